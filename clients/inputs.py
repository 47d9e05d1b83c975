"""Request inputs checked against, or generated from, a served model's configuration.

The model configuration is read from the server (``get_model_config``, Triton's
``ModelConfig`` as JSON) and is the contract: input names, ``data_type``, ``dims`` (``-1``
for a dynamic dimension) and ``max_batch_size`` (``> 0``: every tensor carries a leading
batch axis of at most that size; Triton docs, "Model Configuration: Maximum Batch Size").

Dtype policy (what :func:`validate_inputs` does when a given array's dtype differs from
the config's): with ``cast=True`` (the default) a float array is cast to another float type
(e.g. float64 given for a ``TYPE_FP32`` input, NumPy's default) and an integer array to
another integer type when every value fits, each with a logged note; every other mismatch
(float for an integer input, int for a float input, a value that does not fit, any mismatch
with ``cast=False``) is refused with a :class:`~core.errors.ClientError` naming the input.

Generated inputs: floats are N(0, 1); integers (token ids and the like) are uniform in the
input's ``value_range`` from the build's input spec (read through
:class:`builders.repository.view.Repository`) when there is one, else in :data:`DEFAULT_INT_RANGE` ``[0, 100]`` (the same
default as :meth:`builders.model.spec.ModelSpec.example_inputs`); bools are True. A dynamic
dimension takes the manifest's ``opt`` size of its named axis, else :data:`DEFAULT_DYNAMIC_DIM`.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from pathlib import Path
from typing import Any

import numpy as np

from builders.model.spec import DEFAULT_INT_RANGE
from builders.repository.view import Repository, RepositoryVariant
from core import dtypes
from core.errors import ClientError, DataTypeError, RecordError, RepositoryError

log = logging.getLogger(__name__)

#: Size of a dynamic (``-1``) dimension when the manifest gives no ``opt`` size.
DEFAULT_DYNAMIC_DIM = 16


@dataclasses.dataclass(frozen=True)
class TensorInfo:
    """One input or output as the server's model config describes it.

    Attributes:
        name: Tensor name.
        dtype: numpy dtype name (``"float32"``...), from the config's ``TYPE_*``.
        triton_dtype: The config's enum name (``"TYPE_FP32"``).
        dims: Per-sample dims (no batch axis); ``-1`` is dynamic.
    """

    name: str
    dtype: str
    triton_dtype: str
    dims: tuple[int, ...]


@dataclasses.dataclass(frozen=True)
class ModelSignature:
    """A served model's inputs, outputs and ``max_batch_size`` (``0``: no batch axis)."""

    name: str
    inputs: tuple[TensorInfo, ...]
    outputs: tuple[TensorInfo, ...]
    max_batch_size: int

    @classmethod
    def from_config(cls, cfg: dict[str, Any]) -> ModelSignature:
        """From the server's model config JSON (HTTP, or gRPC ``as_json``: int64 dims arrive
        as strings there, both are accepted)."""

        def tensors(key: str) -> tuple[TensorInfo, ...]:
            out = []
            for t in cfg.get(key, []):
                tt = t.get("data_type")
                try:
                    dt = dtypes.from_triton(tt)
                    dt.to_numpy()  # bfloat16 has no host type: refused here, by name
                except DataTypeError as e:
                    raise ClientError(f"{cfg.get('name')}: {key} {t['name']!r}: {e.message}", hint=e.hint) from None
                out.append(TensorInfo(t["name"], str(dt.numpy), dt.triton, tuple(int(d) for d in t.get("dims", []))))
            return tuple(out)

        return cls(cfg.get("name", "?"), tensors("input"), tensors("output"), int(cfg.get("max_batch_size", 0) or 0))

    def full_shape(self, t: TensorInfo, batch: int | None) -> list[int]:
        """The request shape pattern of ``t``: ``[batch, *dims]`` when batching, else ``dims``."""
        return [batch if batch is not None else -1, *t.dims] if self.max_batch_size > 0 else list(t.dims)


def validate_inputs(sig: ModelSignature, inputs: dict[str, np.ndarray], cast: bool = True) -> dict[str, np.ndarray]:
    """Check ``inputs`` against the model's signature, casting dtypes where allowed.

    Args:
        sig: The served model's signature.
        inputs: Input name -> array, ``[batch, *dims]`` for a batching model.
        cast: Apply the module's dtype policy; ``False`` refuses any dtype mismatch.

    Returns:
        The inputs, C-contiguous, in the config's dtypes.

    Raises:
        ClientError: an unknown or missing input, a wrong rank or dimension, a batch above
            ``max_batch_size`` or different between inputs, or a refused dtype; the
            message names the input and says what was expected.
    """
    known = {t.name: t for t in sig.inputs}
    unknown = sorted(set(inputs) - set(known))
    if unknown:
        raise ClientError(
            f"{sig.name}: unknown input(s) {unknown}; the model takes {sorted(known)}",
            hint="name the arrays after the model's inputs (npz keys, or input:<name> as in reference.npz)",
        )
    missing = sorted(set(known) - set(inputs))
    if missing:
        raise ClientError(f"{sig.name}: input(s) {missing} missing; the model takes {sorted(known)}")
    out: dict[str, np.ndarray] = {}
    batches: dict[str, int] = {}
    for name, arr in inputs.items():
        t = known[name]
        arr = np.asarray(arr)
        want = sig.full_shape(t, None)
        if arr.ndim != len(want) or any(w != -1 and w != g for w, g in zip(want, arr.shape)):
            axes = "[batch, " + ", ".join(map(str, t.dims)) + "]" if sig.max_batch_size > 0 else str(list(t.dims))
            raise ClientError(
                f"{sig.name}: input {name!r} has shape {list(arr.shape)}, expected {axes} (-1 = any size)",
                hint="a batching model needs the batch axis first, even for one sample" if sig.max_batch_size > 0 else None,
            )
        if sig.max_batch_size > 0:
            b = arr.shape[0]
            if not 1 <= b <= sig.max_batch_size:
                raise ClientError(
                    f"{sig.name}: input {name!r} has batch size {b}; the model takes 1..{sig.max_batch_size} (max_batch_size)",
                    hint="split the request or use a variant with a larger max_batch_size",
                )
            batches[name] = b
        out[name] = np.ascontiguousarray(_convert(sig.name, name, arr, t, cast))
    if len(set(batches.values())) > 1:
        raise ClientError(f"{sig.name}: inputs disagree on the batch size: {batches}")
    return out


def _convert(model: str, name: str, arr: np.ndarray, t: TensorInfo, cast: bool) -> np.ndarray:
    want = np.dtype(t.dtype)
    if arr.dtype == want:
        return arr
    refuse = ClientError(
        f"{model}: input {name!r} is {arr.dtype}, the model takes {t.dtype} ({t.triton_dtype})",
        hint=f"convert it, e.g. arr.astype(np.{t.dtype})" + ("" if cast else ", or allow casting"),
    )
    if not cast:
        raise refuse
    if arr.dtype.kind == "f" and want.kind == "f":
        log.warning("input %r: casting %s to %s (the model's %s)", name, arr.dtype, t.dtype, t.triton_dtype)
        return arr.astype(want)
    if arr.dtype.kind in "iu" and want.kind in "iu":
        info = np.iinfo(want)
        if arr.size and (arr.min() < info.min or arr.max() > info.max):
            raise ClientError(
                f"{model}: input {name!r} has values in [{arr.min()}, {arr.max()}] that do not fit the model's {t.dtype}"
            )
        log.warning("input %r: casting %s to %s (the model's %s)", name, arr.dtype, t.dtype, t.triton_dtype)
        return arr.astype(want)
    raise refuse


def variant_for(repository: Path | None, model: str) -> RepositoryVariant | None:
    """``model`` as its repository records it (input spec, served names), if the
    repository is a toolkit repository that lists it; ``None`` otherwise (an unreadable
    index or manifest is logged)."""
    if repository is None:
        return None
    try:
        variant = Repository(repository).variant(model)
        variant.spec  # noqa: B018 - reads the manifest now, so that a broken one is logged here
        return variant
    except RepositoryError:
        return None
    except RecordError as e:
        log.warning("%s", e.message)
        return None


@dataclasses.dataclass(frozen=True)
class InputChoice:
    """How one generated input is made, in words the user can check.

    Attributes:
        name: Input name (as served).
        shape: The full request shape (batch axis first for a batching model).
        dtype: numpy dtype name.
        values: How values are drawn (``"N(0, 1)"``, ``"integers uniform in [0, 999] (...)"``).
        dims: How each dynamic (``-1``) dimension got its size, ``""`` when there is none.
    """

    name: str
    shape: tuple[int, ...]
    dtype: str
    values: str
    dims: str = ""

    def describe(self) -> str:
        """``"input_ids [1, 64] int64: integers uniform in [0, 999] (...); seq=64 (...)"``."""
        return f"{self.name} {list(self.shape)} {self.dtype}: {self.values}" + (f"; {self.dims}" if self.dims else "")


def parse_shape_flag(text: str) -> tuple[str, tuple[int, ...]]:
    """``--shape NAME:D1,D2`` (per-sample dims, no batch axis; perf_analyzer's form) -> ``(NAME, (D1, D2))``.

    Raises:
        ClientError: not ``NAME:dims`` with positive integers.
    """
    name, sep, dims = text.rpartition(":")
    try:
        shape = tuple(int(d) for d in dims.split(",") if d.strip())
    except ValueError:
        shape = ()
    if not sep or not name or not shape or min(shape) < 1:
        raise ClientError(
            f"--shape {text!r} is not NAME:dims",
            hint="give the per-sample dims without the batch axis, e.g. --shape input_ids:64",
        )
    return name, shape


def plan_inputs(
    sig: ModelSignature,
    batch_size: int = 1,
    variant: RepositoryVariant | None = None,
    shapes: dict[str, tuple[int, ...]] | None = None,
) -> list[InputChoice]:
    """The shape, dtype and value distribution of each generated input, and why.

    A dynamic (``-1``) dimension takes, in order: the size ``shapes`` gives (``--shape``),
    the build's ``opt`` size of its named axis, else :data:`DEFAULT_DYNAMIC_DIM`. Integer
    inputs are uniform in the build's ``value_range``, else :data:`DEFAULT_INT_RANGE`.

    Args:
        sig: The served model's signature.
        batch_size: Leading batch size (ignored for a model with ``max_batch_size 0``).
        variant: The variant as its repository records it (:func:`variant_for`).
        shapes: Per-sample dims by input name (``--shape NAME:dims``), replacing the dynamic
            dims; the fixed ones must match.

    Raises:
        ClientError: ``batch_size`` outside ``1..max_batch_size``, or a ``--shape`` that names
            no input or contradicts the config (rank or a fixed dim).
    """
    if sig.max_batch_size > 0 and not 1 <= batch_size <= sig.max_batch_size:
        raise ClientError(f"{sig.name}: batch size {batch_size} is outside 1..{sig.max_batch_size} (max_batch_size)")
    shapes = dict(shapes or {})
    unknown = sorted(set(shapes) - {t.name for t in sig.inputs})
    if unknown:
        raise ClientError(
            f"{sig.name}: --shape names {unknown}, which the model does not take",
            hint=f"its inputs: {', '.join(t.name for t in sig.inputs)}",
        )
    spec = variant.spec if variant else None
    specs = {b.served: b.spec for b in variant.inputs} if variant else {}
    axes = spec.axis_sizes("opt") if spec else {}
    out = []
    for t in sig.inputs:
        s = specs.get(t.name)
        named = list(s.shape) if s is not None and len(s.shape) == len(t.dims) else [None] * len(t.dims)
        given = shapes.get(t.name)
        if given is not None and (len(given) != len(t.dims) or any(d != -1 and d != g for d, g in zip(t.dims, given))):
            raise ClientError(
                f"{sig.name}: --shape {t.name}:{','.join(map(str, given))} does not fit its config dims "
                f"{list(t.dims)} (-1 = dynamic)",
                hint="give every per-sample dim, the fixed ones as they are",
            )
        dims, why = [], []
        for i, (d, n) in enumerate(zip(t.dims, named)):
            if d != -1:
                dims.append(d)
                continue
            label = n if isinstance(n, str) else f"dim {i + 1}"
            if given is not None:
                dims.append(given[i])
                why.append(f"{label}={given[i]} (--shape)")
            elif isinstance(n, str) and n in axes:
                dims.append(axes[n])
                why.append(f"{label}={axes[n]} (the build's opt size of axis {n}; --shape {t.name}:... to change)")
            else:
                dims.append(DEFAULT_DYNAMIC_DIM)
                why.append(
                    f"{label}={DEFAULT_DYNAMIC_DIM} (no size recorded for this dynamic dim: the default; "
                    f"--shape {t.name}:... to choose)"
                )
        shape = (batch_size, *dims) if sig.max_batch_size > 0 else tuple(dims)
        if t.dtype.startswith("float"):
            values = "N(0, 1)"
        elif t.dtype == "bool":
            values = "all true"
        elif s is not None and s.value_range:
            values = f"integers uniform in [{s.value_range[0]}, {s.value_range[1]}] (the build's value_range)"
        else:
            lo, hi = DEFAULT_INT_RANGE
            values = (
                f"integers uniform in [{lo}, {hi}] (no value range recorded: the default; --input-data FILE sends real values)"
            )
        out.append(InputChoice(t.name, tuple(shape), t.dtype, values, "; ".join(why)))
    return out


def generate_inputs(
    sig: ModelSignature,
    batch_size: int = 1,
    variant: RepositoryVariant | None = None,
    seed: int = 0,
    shapes: dict[str, tuple[int, ...]] | None = None,
) -> dict[str, np.ndarray]:
    """Random inputs for ``sig``, made as :func:`plan_inputs` says: shape ``[batch_size, *dims]``
    (``dims`` when not batching); floats N(0, 1), booleans true, integers uniform in the
    build's ``value_range`` (else :data:`DEFAULT_INT_RANGE`).

    Raises:
        ClientError: see :func:`plan_inputs`.
    """
    specs = {b.served: b.spec for b in variant.inputs} if variant else {}
    rng = np.random.default_rng(seed)
    out: dict[str, np.ndarray] = {}
    for c in plan_inputs(sig, batch_size, variant, shapes):
        if c.dtype.startswith("float"):
            out[c.name] = rng.standard_normal(c.shape).astype(c.dtype)
        elif c.dtype == "bool":
            out[c.name] = np.ones(c.shape, dtype=bool)
        else:
            s = specs.get(c.name)
            lo, hi = (s.value_range if s is not None else None) or DEFAULT_INT_RANGE
            out[c.name] = rng.integers(int(lo), int(hi) + 1, size=c.shape).astype(c.dtype)
    return out


def load_input_file(path: Path, sig: ModelSignature, batch_size: int = 1) -> dict[str, np.ndarray]:
    """Read inputs from ``.npz`` (one array per input name, or ``input:<name>`` keys as in a
    build's ``reference.npz``), ``.npy`` (a model with exactly one input) or ``.json`` in
    perf_analyzer's ``--input-data`` form (the same file serves both tools). No pickles.

    Raises:
        ClientError: unreadable file, a pickled array, or a ``.npy`` for a multi-input model.
    """
    path = Path(path)
    if path.suffix == ".json":
        return _load_perf_analyzer_json(path, sig, batch_size)
    try:
        loaded = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise ClientError(
            f"could not read inputs from {path}: {e}", hint="give a .npy or .npz written by numpy (no pickled objects)"
        ) from e
    if isinstance(loaded, np.ndarray):
        if len(sig.inputs) != 1:
            raise ClientError(
                f"{path} holds one array but {sig.name} takes {len(sig.inputs)} inputs {[t.name for t in sig.inputs]}",
                hint="save them in one .npz with one key per input name",
            )
        return {sig.inputs[0].name: loaded}
    with loaded as z:
        arrays = {k: z[k] for k in z.files}
    if any(k.startswith("input:") for k in arrays):
        arrays = {k.split(":", 1)[1]: v for k, v in arrays.items() if k.startswith("input:")}
    return arrays


def _load_perf_analyzer_json(path: Path, sig: ModelSignature, batch_size: int) -> dict[str, np.ndarray]:
    """Inputs from perf_analyzer's input-data JSON (perf_analyzer docs, "Input Data"):
    ``{"data": [{NAME: {"content": [...], "shape": [...]} | [...]}, ...]}``, one entry per
    sample (no batch axis). A batching model gets ``batch_size`` entries, cycling through them.

    Raises:
        ClientError: not that form, or an entry that misses an input.
    """
    try:
        entries = json.loads(path.read_text())["data"]
        assert isinstance(entries, list) and entries
    except (OSError, ValueError, KeyError, TypeError, AssertionError) as e:
        raise ClientError(
            f"{path} is not perf_analyzer input data ({type(e).__name__}: {e})",
            hint='expected {"data": [{"NAME": {"content": [...], "shape": [...]}}, ...]}',
        ) from None
    known = {t.name: t for t in sig.inputs}
    n = batch_size if sig.max_batch_size > 0 else 1
    out: dict[str, np.ndarray] = {}
    for name, t in known.items():
        samples = []
        for i in range(n):
            entry = entries[i % len(entries)]
            if name not in entry:
                raise ClientError(
                    f"{path}: entry {i % len(entries)} has no input {name!r}", hint=f"the model takes {sorted(known)}"
                )
            item = entry[name]
            content, shape = (item.get("content"), item.get("shape")) if isinstance(item, dict) else (item, None)
            if shape is None and list(t.dims).count(-1) > 1:
                raise ClientError(f'{path}: input {name!r} has several dynamic dims {list(t.dims)}: its entries need a "shape"')
            samples.append(np.asarray(content, dtype=t.dtype).reshape(shape if shape is not None else t.dims))
        out[name] = np.stack(samples) if sig.max_batch_size > 0 else samples[0]
    return out


def summarize(outputs: dict[str, np.ndarray]) -> list[dict[str, Any]]:
    """Per output: ``name``, ``shape``, ``dtype``, ``min``, ``max``, ``mean`` (NaN-aware)."""
    rows = []
    for name, a in outputs.items():
        row: dict[str, Any] = {
            "name": name,
            "shape": list(a.shape),
            "dtype": str(a.dtype),
            "min": None,
            "max": None,
            "mean": None,
        }
        if a.dtype.kind in "biuf" and a.size > 0:
            f = a.astype(np.float64)
            row.update(min=float(np.nanmin(f)), max=float(np.nanmax(f)), mean=float(np.nanmean(f)))
        rows.append(row)
    return rows
