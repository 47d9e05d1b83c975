"""How a model (built-in or the user's) is resolved into an ``nn.Module`` and its spec.

torch is imported lazily so that ``--help`` stays fast.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import logging
import sys
from pathlib import Path
from typing import Any

from builders.model.builtin import BUILTINS, get_builtin
from builders.model.factory import (
    EXPORT_SUFFIXES,
    FACTORY_FORMS,
    TORCHSCRIPT_SUFFIXES,
    check_form,
    file_without_factory,
    import_factory,
    looks_like_python_file,
    missing_model_file,
    recorded_source,
)
from builders.model.forward_args import forward_names, input_binding
from builders.model.spec import ModelSpec
from builders.model.torchscript_archive import read_archive
from builders.model.user_frame import user_frame
from core.errors import ConfigError, ModelSpecError

log = logging.getLogger(__name__)


BUILTIN_NAMES = tuple(BUILTINS)


@dataclasses.dataclass
class LoadedModel:
    """A model ready to export.

    Attributes:
        name: Name used for the build folder and variant names.
        module: The eager ``nn.Module`` (eval mode; for a file, the loaded module).
        spec: Its I/O signature (outputs may still be placeholders).
        kind: ``"builtin"``, ``"factory"``, ``"torchscript"`` or ``"exported_program"``.
        fingerprint: Hash of what defines the computation besides the weights (the source
            of the module's own classes, or the file's bytes); part of the reuse key.
        source: What the model came from, as JSON-safe text (the manifest's ``source``): the
            built-in's name, ``package.module:factory``, the model file's absolute path, or
            ``<module>.<Class> (nn.Module object)``. Two builds of one name from different
            sources must not silently replace each other (:func:`builders.build.build`).
        input_binding: Spec input -> the ``forward()`` argument it is passed as (by
            position), when the spec's names differ from ``forward()``'s; empty when they
            match or ``forward()``'s names are unknown
            (:func:`builders.model.forward_args.input_binding`).
    """

    name: str
    module: Any
    spec: ModelSpec
    kind: str
    fingerprint: str
    source: str = ""
    input_binding: dict[str, str] = dataclasses.field(default_factory=dict)


def load_model(source: Any, spec: ModelSpec | None, example_inputs: Any = None) -> LoadedModel:
    """Resolve ``--model``: a built-in name, ``package.module:factory``, a model file, or an
    ``nn.Module`` object (Python API).

    User code runs only here and only when the user named it: a factory is imported and
    called; a ``.pt`` file is loaded with ``torch.jit.load`` and a ``.pt2`` file with
    ``torch.export.load`` (both read files the user named; nothing else is unpickled).

    A factory's module is imported with the current directory first on ``sys.path`` (as
    ``python -m`` does), so ``--model mymodel:make`` finds ``./mymodel.py``; a file is
    imported from its path (``--model path/to/mymodel.py:make``,
    :func:`builders.model.factory.import_factory`).

    Args:
        source: ``mlp`` / ``cnn`` / ``encoder`` / ``tiny``, ``pkg.mod:factory`` or
            ``path/to/file.py:factory`` (a callable returning an ``nn.Module``), a path ending in ``.pt`` (TorchScript) or
            ``.pt2`` (``torch.export``), or an ``nn.Module`` (named after its class, in
            lower case, unless the caller names it).
        spec: The input spec; required except for built-ins (whose own spec is the default)
            and for models given with ``example_inputs``.
        example_inputs: One batch of example inputs, used when ``spec`` is None
            (:meth:`builders.model.spec.ModelSpec.from_example`; names from ``forward()``).

    Every model's spec is then checked against its ``forward()`` argument names, which get
    the inputs by position in the spec's order (:func:`builders.model.forward_args.input_binding`:
    another order or a likely typo is refused; other names are recorded in ``input_binding``);
    a ``.pt2`` spec is then checked against the graph's shapes (:func:`check_spec_against_graph`).

    Raises:
        ModelSpecError: unknown built-in, missing file, a Python file without ``:factory``,
            factory that cannot be imported or called or that returns no ``nn.Module``, a
            user model without a spec, or a spec whose input names are ``forward()``'s in
            another order or a likely typo of one.
    """
    check_model_form(source)
    loaded, program = _resolve(source, spec, example_inputs)
    where = source if isinstance(source, str) else type(source).__name__
    binding = input_binding([t.name for t in loaded.spec.inputs], forward_names(loaded.module), where)
    if program is not None:
        check_spec_against_graph(program, loaded.spec, where)
    return dataclasses.replace(loaded, input_binding=binding)


def check_model_form(source: Any) -> None:
    """Refuse a ``--model`` text of the wrong form before anything heavy is imported (torch: trial 21,
    T21-11): :func:`builders.model.factory.check_form` against the built-in names; other sources pass.

    Raises:
        ModelSpecError: a Python file or folder without ``:factory``, or a factory's file that is missing.
    """
    if isinstance(source, str):
        check_form(source, BUILTIN_NAMES)


def _resolve(source: Any, spec: ModelSpec | None, example_inputs: Any) -> tuple[LoadedModel, Any]:
    """:func:`load_model` before its checks: the model and its spec, and the ``torch.export``
    program of a ``.pt2`` file (``None`` for other models)."""
    import torch

    if spec is None and example_inputs is not None:
        if isinstance(source, str) and source in BUILTIN_NAMES:
            raise ModelSpecError(
                f"built-in model {source!r} has its own spec; example_inputs are for your own models",
                hint=f"drop example_inputs for {source!r} (its spec is used), or pass your own nn.Module",
            )
        spec = ModelSpec.from_example(example_inputs, forward_names(source) or ())  # a tensor or tuple: by position
    if isinstance(source, torch.nn.Module):
        cls = type(source)
        spec = _require_spec(cls.__name__, spec)
        return LoadedModel(
            cls.__name__.lower(),
            _eval(source),
            spec,
            "module",
            _source_hash(source),
            f"{cls.__module__}.{cls.__qualname__} (nn.Module object)",
        ), None
    if not isinstance(source, str):
        raise ModelSpecError(
            f"model {source!r} is neither a name, a file, {FACTORY_FORMS} nor an nn.Module",
            hint="pass a built-in model's name, a .pt/.pt2 file, path/to/file.py:factory, or an nn.Module object",
        )
    path = Path(source)
    if source.endswith(TORCHSCRIPT_SUFFIXES + EXPORT_SUFFIXES):
        if not path.is_file():
            raise missing_model_file(path)
        spec = _require_spec(source, spec)
        if not source.endswith(EXPORT_SUFFIXES):
            _require_torchscript(path)
        program = None
        try:
            if source.endswith(EXPORT_SUFFIXES):
                program = torch.export.load(str(path))
                module, kind = program.module(), "exported_program"
            else:
                module, kind = torch.jit.load(str(path), map_location="cpu"), "torchscript"
        except Exception as e:
            raise ModelSpecError(
                f"could not load {path}: {type(e).__name__}: {str(e)[:300]}",
                hint="a .pt file must be saved with torch.jit.save, a .pt2 file with torch.export.save",
            ) from e
        loaded = LoadedModel(path.stem, _eval(module), spec, kind, _file_hash(path), str(path.resolve()))
        return loaded, program
    if ":" in source:
        fn_name, factory = import_factory(source)  # a missing file or a broken import first: a spec would not help
        spec = _require_spec(source, spec)
        try:
            module = factory()
        except Exception as e:
            where = user_frame(e)
            raise ModelSpecError(
                f"calling {source} failed: {type(e).__name__}: {e}" + (f"\n  raised at {where}" if where else ""),
                hint="fix the error where it was raised: the factory is called with no arguments and returns the nn.Module",
            ) from e
        if not isinstance(module, torch.nn.Module):
            raise ModelSpecError(
                f"{source} returned {_returned(module)}; expected a torch.nn.Module",
                hint="the factory must return the model (an nn.Module), e.g. `def make(): return "
                f"{module.__name__ if isinstance(module, type) else 'MyNet'}().eval()`",
            )
        recorded = recorded_source(source)  # a file by its absolute path: loaded again from any folder
        return LoadedModel(fn_name, _eval(module), spec, "factory", _source_hash(module, factory), recorded), None
    if source not in BUILTIN_NAMES and looks_like_python_file(source):
        raise file_without_factory(source)
    b = get_builtin(source)
    module = b.factory()
    return LoadedModel(b.name, module, spec or b.spec, "builtin", _source_hash(module, b.factory), b.name), None


def check_spec_against_graph(program: Any, spec: ModelSpec, where: str) -> None:
    """Refuse a spec that contradicts a ``torch.export`` graph's input shapes.

    An exported graph records each input dim as a fixed size or a symbol with a range
    (``range_constraints``). A spec dim (after the batch axis) contradicts it when the graph
    dim is fixed at ``N`` and the spec gives another size, or names an axis whose range is
    not exactly ``(N, N, N)``; or when the graph dim is a symbol whose range does not hold the
    spec axis's ``(min, max)``; or when the ranks differ.

    Args:
        program: The ``torch.export.ExportedProgram``.
        spec: The input spec (inputs in ``forward`` order).
        where: The file, for messages.

    Raises:
        ModelSpecError: the first contradiction, naming the input, dim, the spec's axis or
            size, and what the graph allows.
    """
    placeholders = {n.name: n for n in program.graph.nodes if n.op == "placeholder"}
    users = list(program.graph_signature.user_inputs)
    if len(users) != len(spec.inputs):
        raise ModelSpecError(
            f"the spec has {len(spec.inputs)} inputs, the graph in {where} takes {len(users)} ({users})",
            hint="give one --input per forward() argument, in order",
        )
    bounds = {str(k): (v.lower, v.upper) for k, v in program.range_constraints.items()}
    for t, name in zip(spec.inputs, users):
        val = placeholders[name].meta.get("val") if name in placeholders else None
        if val is None or not hasattr(val, "shape"):
            continue
        graph_dims = list(val.shape)[1:]  # after the batch axis
        if len(graph_dims) != len(t.shape):
            raise ModelSpecError(
                f"input {t.name!r}: the spec's per-sample shape {list(t.shape)} has {len(t.shape)} dims, the graph in {where} "
                f"takes {len(graph_dims)} ({[_dim_text(d, bounds) for d in graph_dims]})",
                hint="give the per-sample shape (without the batch axis) the graph was exported with",
            )
        for j, (g, d) in enumerate(zip(graph_dims, t.shape), start=1):
            problem = _dim_contradiction(g, d, spec, bounds)
            if problem:
                raise ModelSpecError(
                    f"input {t.name!r} dim {j}: {problem} in the graph of {where}",
                    hint=f"declared axes: {dict((k, list(v)) for k, v in spec.dynamic_axes.items()) or 'none'}; "
                    "give sizes the graph accepts, or re-export it with a dynamic dim (torch.export Dim)",
                )


def _dim_text(g: Any, bounds: dict[str, tuple[Any, Any]]) -> str:
    if isinstance(g, int):
        return str(g)
    lo, hi = bounds.get(str(g), ("?", "?"))
    return f"{g} in [{lo}, {hi}]"


def _dim_contradiction(g: Any, d: int | str, spec: ModelSpec, bounds: dict[str, tuple[Any, Any]]) -> str | None:
    """Why spec dim ``d`` contradicts graph dim ``g`` (an int, or a SymInt with bounds), or ``None``."""
    lo, hi = (d, d) if isinstance(d, int) else (spec.dynamic_axes[d][0], spec.dynamic_axes[d][2])
    what = f"size {d}" if isinstance(d, int) else f"dynamic axis {d}={','.join(map(str, spec.dynamic_axes[d]))}"
    if isinstance(g, int):
        return None if lo == hi == g else f"{what} contradicts the static size {g}"
    glo, ghi = bounds.get(str(g), (None, None))
    try:
        inside = (glo is None or int(glo) <= lo) and (ghi is None or hi <= int(ghi) or str(ghi) in ("oo", "inf"))
    except (TypeError, ValueError):  # unbounded: sympy's oo
        inside = glo is None or int(glo) <= lo
    return None if inside else f"{what} is outside the graph's range [{glo}, {ghi}] for that dim"


def _returned(value: Any) -> str:
    """What a factory returned instead of an ``nn.Module``, said with the fix where there is one:
    ``"the class TinyCNN, not an instance (call it: TinyCNN())"``, ``"None (no return of the model)"``."""
    if isinstance(value, type):
        return f"the class {value.__name__}, not an instance (call it: {value.__name__}())"
    if inspect.isfunction(value) or inspect.ismethod(value):
        return f"the function {value.__name__}, not what it returns (call it: {value.__name__}())"
    if value is None:
        return "None (the factory has no `return` of the model)"
    return f"{type(value).__name__} ({str(value)[:60]})"


def _require_spec(source: str, spec: ModelSpec | None) -> ModelSpec:
    if spec is None:
        raise ModelSpecError(
            f"--model {source} needs an input spec",
            hint="pass --spec spec.json, or --input NAME:DTYPE:SHAPE[:LOW..HIGH|:DOMAIN] (repeat) with --dynamic-axis AXIS=MIN,OPT,MAX; "
            "in Python: BuildOptions(spec=ModelSpec(...)) or BuildOptions(example_inputs=one_batch); "
            "make demo: DEMO_SPEC=spec.json",
            flag="--spec",
        )
    return spec


def _eval(module: Any) -> Any:
    try:
        return module.eval()
    except (AttributeError, NotImplementedError):  # torch.export modules refuse eval()/train()
        return module


def _file_hash(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:16]


def _source_hash(module: Any, factory: Any = None) -> str:
    """Hash what defines the computation besides the weights: the source of the module's
    classes that are not part of torch (whose version is recorded separately) and of the
    factory that built it (a built-in's factory defines its classes and layer sizes), so an
    edited ``forward`` or factory is not mistaken for a rebuild."""
    h = hashlib.sha256()
    if factory is not None:
        try:
            h.update(inspect.getsource(factory).encode())
        except (OSError, TypeError):
            h.update(repr(factory).encode())
    # classes made inside a function are found by name in their defining module's source
    module_sources: dict[str, str] = {}
    for cls in sorted({type(m) for m in module.modules()}, key=lambda c: f"{c.__module__}.{c.__qualname__}"):
        if cls.__module__.startswith("torch."):
            continue
        h.update(f"{cls.__module__}.{cls.__qualname__}".encode())
        try:
            h.update(inspect.getsource(cls).encode())
        except (OSError, TypeError):  # no source for the class alone: hash its defining file
            mod = sys.modules.get(cls.__module__)
            if mod is not None and cls.__module__ not in module_sources:
                try:
                    module_sources[cls.__module__] = inspect.getsource(mod)
                except (OSError, TypeError):
                    module_sources[cls.__module__] = ""
                h.update(module_sources[cls.__module__].encode())
    return h.hexdigest()[:16]


def _require_torchscript(path: Path) -> None:
    """A ``.pt`` model file must be a TorchScript archive, told by its structure before loading it.

    Raises:
        ModelSpecError: it is a ``torch.save`` pickle (either format) or something else
            (:func:`builders.model.torchscript_archive.read_archive`).
    """
    try:
        read_archive(path)
    except ConfigError as e:
        raise ModelSpecError(
            f"could not load {path}: {e.message}",
            hint=f"{e.hint}; a model saved with torch.save is built from the code that defines it: "
            f"--model {FACTORY_FORMS} (a function returning the nn.Module with its weights loaded) and --spec",
        ) from None
