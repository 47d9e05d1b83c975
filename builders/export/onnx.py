"""PyTorch -> ONNX (``model.onnx``): the dynamo exporter, falling back to the TorchScript-based one.

After each strategy the graph is checked before it is accepted: ``onnx.checker`` passes,
and every dynamic axis (the batch axis and the spec's named axes) is still symbolic in the
graph's inputs. Symbolic dims are renamed to the spec's axis names (``batch``, ``seq``...)
so a person reading the graph, Triton and TensorRT see the same names.
"""

from __future__ import annotations

import contextlib
import io
import logging
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from builders.export.artifacts import ExportResult, file_sha256
from builders.export.chain import Starting, Verify, first_verified, tracer_warnings
from builders.export.onnx_names import NameClashError, name_clash, rename_inner_clashes
from builders.export.precision import prepare_module
from builders.model.spec import EXAMPLE_BATCH, ModelSpec
from builders.model.tensor import BATCH_AXIS, TensorSpec

log = logging.getLogger(__name__)

DEFAULT_OPSET = 18
#: ONNX protobufs cannot exceed 2 GiB; weights above this size go to an external data file.
EXTERNAL_DATA_THRESHOLD_BYTES = int(1.8 * 2**30)
#: Name of the external weights file written beside ``model.onnx``.
EXTERNAL_DATA_FILE = "model.onnx.data"
#: Loggers of torch's exporter that warn about optional packages (torchvision) on every export.
_NOISY_LOGGERS = ("torch.onnx._internal.exporter._registration", "torch.onnx")


def export_onnx(
    module: Any,
    spec: ModelSpec,
    out_dir: Path,
    precision: str = "fp32",
    opset: int = DEFAULT_OPSET,
    max_batch_size: int = 64,
    external_data_threshold_bytes: int = EXTERNAL_DATA_THRESHOLD_BYTES,
    verify: Verify | None = None,
    starting: Starting | None = None,
) -> ExportResult:
    """Export ``module`` to ``out_dir/model.onnx`` with symbolic batch and dynamic axes.

    Strategies, in order (:func:`builders.export.chain.first_verified`), each attempt
    recorded: ``dynamo`` (``torch.onnx.export(dynamo=True)`` with ``dynamic_shapes``), then
    ``torchscript`` (the TorchScript-based exporter with ``dynamic_axes``, which traces:
    its ``torch.jit.TracerWarning`` are kept in ``tracer_warnings``). A strategy whose graph
    fails ``onnx.checker``, has a dynamic axis frozen to a number, or fails ``verify`` fails,
    and the next is tried. The exporters' progress output is captured and logged at DEBUG
    level, never printed.

    Args:
        module: The eager ``nn.Module`` (eval mode).
        spec: Its I/O signature, outputs filled in; its names become the graph's names.
        out_dir: Folder to write ``model.onnx`` into (created).
        precision: ``"fp32"``, ``"fp16"`` or ``"bf16"`` (see :func:`builders.export.precision.cast_module`).
        opset: ONNX opset version (default 18; the dynamo exporter converts from 18 when
            another is asked for).
        max_batch_size: Upper bound of the batch axis given to the dynamo exporter.
        external_data_threshold_bytes: Weights larger than this (bytes, default 1.8 GiB)
            are stored in ``model.onnx.data`` beside the graph (the 2 GiB protobuf limit).
        verify: Verification of each export against eager PyTorch (raises
            ``VerificationError``); ``None`` accepts the first export.
        starting: Called with each strategy's name before it exports (``None``: nothing is called).

    Returns:
        The result; ``extra`` holds ``opset``, ``dynamic_dims`` (input -> axis names) and,
        for large models, ``external_data`` (``[{"file", "size_bytes", "sha256"}]``).

    Raises:
        ExportError: Every strategy failed to export (each strategy's error is listed).
        VerificationError: An export was made but none verified.
    """
    import onnx
    import torch

    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "model.onnx"
    model = prepare_module(module, precision, spec)
    examples = spec.export_inputs()
    args = tuple(torch.from_numpy(examples[t.name]) for t in spec.inputs)
    in_names = [t.name for t in spec.inputs]
    out_names = [t.name for t in spec.outputs]
    external = _weights_bytes(module) > external_data_threshold_bytes
    renamed: list[dict[str, str]] = []  # the dynamo export's inner values renamed (rename_inner_clashes)

    def dynamo() -> None:
        from torch.export import Dim

        dims = {BATCH_AXIS: Dim(BATCH_AXIS, min=1, max=max(EXAMPLE_BATCH, max_batch_size))}
        for axis, (lo, _opt, hi) in spec.dynamic_axes.items():
            dims[axis] = Dim(axis, min=lo, max=hi)
        shapes = tuple(  # by position: the prepared module's forward() names its arguments as the model does
            {0: dims[BATCH_AXIS], **{i + 1: dims[d] for i, d in enumerate(t.shape) if isinstance(d, str)}} for t in spec.inputs
        )
        program = torch.onnx.export(
            model,
            args,
            None,  # saved below, once inner values no longer carry the spec's names
            dynamo=True,
            opset_version=opset,
            verbose=False,
            input_names=in_names,
            output_names=out_names,
            dynamic_shapes=shapes,
        )
        assert program is not None  # export returns the program it made (saved here, not by the exporter)
        renamed[:] = rename_inner_clashes(program.model)
        program.save(str(path), external_data=external)
        _ensure_opset(path, opset, external)

    def legacy() -> None:
        axes = {t.name: _axis_names(t) for t in (*spec.inputs, *spec.outputs)}
        # a loaded TorchScript module is exported as it is (the exporter cannot trace through a wrapper around it)
        plain = isinstance(module, torch.jit.ScriptModule) and precision == "fp32"
        torch.onnx.export(
            module if plain else model,
            args,
            str(path),
            dynamo=False,
            opset_version=opset,
            verbose=False,
            input_names=in_names,
            output_names=out_names,
            dynamic_axes=axes,
        )
        if external:
            _move_weights_to_external_data(path)

    def attempt(strategy: str, fn: Any) -> ExportResult:
        _remove_outputs(out_dir)
        t0 = time.perf_counter()
        warned: list[str] = []
        with torch.no_grad(), _quiet(), tracer_warnings(warned):
            fn()
        # by path: works for models with external data; full_check adds type/shape inference (e.g. bf16 Conv is invalid ONNX)
        try:
            onnx.checker.check_model(str(path), full_check=True)
        except onnx.checker.ValidationError as e:
            clash = name_clash(path, str(e), in_names, out_names)
            if clash is None:
                raise
            raise NameClashError(clash) from None  # one line: the ONNX message is in it
        extra: dict[str, Any] = {"opset": opset, "dynamic_dims": _check_and_name_dynamic_axes(path, spec)}
        if strategy == "dynamo" and renamed:
            extra["renamed_values"] = list(renamed)
        data = external_data_files(path)
        if data:
            extra["external_data"] = data
        return ExportResult("onnx", path, precision, strategy, [], time.perf_counter() - t0, extra, warned)

    return first_verified(
        "onnx",
        [("dynamo", lambda: attempt("dynamo", dynamo)), ("torchscript", lambda: attempt("torchscript", legacy))],
        verify,
        starting=starting,
        hint="check that the model's operators are supported by torch.onnx (try another --opset), and that "
        "forward() does not turn tensor sizes into Python numbers (that freezes dynamic axes)",
    )


class FrozenAxisError(ValueError):
    """An exported graph has a number where a dynamic axis should be symbolic."""


def _check_and_name_dynamic_axes(path: Path, spec: ModelSpec) -> dict[str, list[str | None]]:
    """Check that every dynamic axis of every input is symbolic; rename symbolic dims to
    the spec's axis names across the graph; return input -> per-axis names.

    Raises:
        FrozenAxisError: an input's dynamic axis is a fixed number in the graph.
    """
    import onnx

    model = onnx.load(str(path), load_external_data=False)
    graph_inputs = {i.name: i for i in model.graph.input}
    rename: dict[str, str] = {}
    for t in spec.inputs:
        gi = graph_inputs.get(t.name)
        if gi is None:
            continue  # an input the model ignores; the exporter dropped it (verification reports it)
        dims = gi.type.tensor_type.shape.dim
        for pos, name in _axis_names(t).items():
            if pos >= len(dims):
                break
            d = dims[pos]
            if d.HasField("dim_value"):
                raise FrozenAxisError(
                    f"input {t.name!r} axis {pos} ({name!r}) is fixed at {d.dim_value} in the exported graph; "
                    f"expected a symbolic dim"
                )
            if d.dim_param and d.dim_param != name:
                rename.setdefault(d.dim_param, name)
    if rename:
        for vi in (*model.graph.input, *model.graph.output, *model.graph.value_info):
            for d in vi.type.tensor_type.shape.dim:
                if d.HasField("dim_param") and d.dim_param in rename:
                    d.dim_param = rename[d.dim_param]
        onnx.save(model, str(path))  # the proto only; external data references are kept
    return {
        i.name: [d.dim_param if d.HasField("dim_param") else None for d in i.type.tensor_type.shape.dim]
        for i in model.graph.input
    }


def _axis_names(t: TensorSpec) -> dict[int, str]:
    """Axis position -> name for one tensor's full shape: the batch (where the tensor has
    it, :attr:`TensorSpec.batch_axis`) and the spec's named axes."""
    return {i: d for i, d in enumerate(t.full_shape()) if isinstance(d, str)}


def external_data_files(path: Path) -> list[dict[str, Any]]:
    """The external data files ``path`` refers to, with sizes (bytes) and sha256."""
    import onnx
    from onnx.external_data_helper import _get_all_tensors, uses_external_data

    model = onnx.load(str(path), load_external_data=False)
    files = sorted(
        {
            entry.value
            for t in _get_all_tensors(model)
            if uses_external_data(t)
            for entry in t.external_data
            if entry.key == "location"
        }
    )
    return [{"file": f, "size_bytes": (path.parent / f).stat().st_size, "sha256": file_sha256(path.parent / f)} for f in files]


def _ensure_opset(path: Path, opset: int, external: bool) -> None:
    """The dynamo exporter writes its own minimum opset (18) when asked for an older one:
    convert the graph to the requested opset with onnx's version converter.

    Raises:
        ValueError: the converter cannot express the graph in ``opset``.
    """
    import onnx
    from onnx import version_converter

    model = onnx.load(str(path), load_external_data=False)
    have = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), opset)
    if have == opset:
        return
    log.info("dynamo exporter wrote opset %d; converting to opset %d", have, opset)
    full = onnx.load(str(path))
    converted = version_converter.convert_version(full, opset)
    if external:
        onnx.save_model(
            converted,
            str(path),
            save_as_external_data=True,
            all_tensors_to_one_file=True,
            location=EXTERNAL_DATA_FILE,
            size_threshold=1024,
        )
    else:
        onnx.save(converted, str(path))


def _move_weights_to_external_data(path: Path) -> None:
    import onnx

    model = onnx.load(str(path))
    onnx.save_model(
        model,
        str(path),
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location=EXTERNAL_DATA_FILE,
        size_threshold=1024,
    )


def _remove_outputs(out_dir: Path) -> None:
    """Remove a previous attempt's files, so a stale weights file is never picked up."""
    for name in ("model.onnx", EXTERNAL_DATA_FILE):
        (out_dir / name).unlink(missing_ok=True)


def _weights_bytes(model: Any) -> int:
    try:
        return sum(p.numel() * p.element_size() for p in model.parameters()) + sum(
            b.numel() * b.element_size() for b in model.buffers()
        )
    except (AttributeError, RuntimeError):
        return 0


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Capture the exporters' progress prints (stdout and stderr: torch.export prints the graph
    of a failed export) and optional-package warnings; log them at DEBUG."""
    buf = io.StringIO()
    saved = {}
    for name in _NOISY_LOGGERS:
        lg = logging.getLogger(name)
        saved[name] = lg.level
        lg.setLevel(logging.ERROR)
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf), warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            warnings.simplefilter("ignore", UserWarning)
            yield
    finally:
        for name, level in saved.items():
            logging.getLogger(name).setLevel(level)
        if buf.getvalue().strip():
            log.debug("torch.onnx output:\n%s", buf.getvalue().rstrip())
