"""Request inputs checked against, or generated from, a served model's configuration.

The model configuration is read from the server (``get_model_config``, Triton's
``ModelConfig`` as JSON) and is the contract: input names, ``data_type``, ``dims`` (``-1``
for a dynamic dimension) and ``max_batch_size`` (``> 0``: every tensor carries a leading
batch axis of at most that size; Triton docs, "Model Configuration: Maximum Batch Size").

Dtype policy (what :func:`validate_inputs` does when a given array's dtype differs from
the config's): with ``cast=True`` (the default) an array of the same family is cast by the one
rule (:func:`core.casts.convert_array`: float to float rounded to its precision, e.g. float64,
NumPy's default, for ``TYPE_FP32``, unless it would overflow; integer to integer only where every
value fits), said by its caller in :func:`cast_words`' words (:func:`casts`); another family
(int64 for a float input), a value the cast would change, and any mismatch with ``cast=False``,
is refused with a :class:`~core.errors.ClientError` naming the input.

Generated inputs: floats are N(0, 1); integers (token ids and the like) are uniform in the
input's ``value_range`` from the build's spec (:func:`spec_for`; per position of the last axis
where it gives one range each, :func:`builders.model.value_ranges.draw_integers`) when there is one, else in
:data:`DEFAULT_INT_RANGE` ``[0, 100]`` (the same default as
:meth:`builders.model.spec.ModelSpec.example_inputs`); bools are True. Dynamic dims are sized
by :mod:`clients.shapes` (``--shape``, else the build's ``opt`` size, else an error naming the
input). Requests are built here too (:func:`request_inputs`), wire dtypes from :mod:`core.dtypes`.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from builders.model.domains import conform, describe_domain
from builders.model.range_source import default_words
from builders.model.spec import ModelSpec
from builders.model.value_ranges import (
    DEFAULT_INT_RANGE,
    ValueRange,
    draw_integers,
    range_axes,
    range_text,
    range_words,
)
from builders.repository.view import Repository
from clients import shapes as shp
from clients.request_ranges import request_range
from clients.request_shapes import request_shape
from core import dtypes
from core.casts import astype_code, convert_array, same_family
from core.errors import ClientError, DataTypeError, RecordError, RepositoryError
from core.names import misnamed

log = logging.getLogger(__name__)


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
        meant = misnamed(inputs, known)  # an array named near an input no array names: did you mean (T23-13)
        named = ", ".join(n + (f" (did you mean {meant[n]!r}?)" if n in meant else "") for n in unknown)
        renames = ", ".join(f"{n} to {m}" for n, m in meant.items())
        raise ClientError(
            f"{sig.name}: unknown {'input' if len(unknown) == 1 else 'inputs'} {named}; the model takes {', '.join(known)}",
            hint=(f"rename {renames}: " if meant else "")
            + "name the arrays after the model's inputs (npz keys, or input:<name> as in reference.npz)",
        )
    missing = sorted(set(known) - set(inputs))
    if missing:
        raise ClientError(
            f"{sig.name}: {'input' if len(missing) == 1 else 'inputs'} {', '.join(missing)} missing; the model takes "
            f"{', '.join(known)}",  # in the model's order (T25-9: was alphabetical)
            hint="give every input (npz keys, or input:<name> as in reference.npz); without --input-data, "
            "`clients infer` makes every input up from the build's spec",
        )
    out: dict[str, np.ndarray] = {}
    batches: dict[str, int] = {}
    for name, arr in inputs.items():
        t = known[name]
        arr = np.asarray(arr)
        want = sig.full_shape(t, None)
        if arr.ndim != len(want) or any(w != -1 and w != g for w, g in zip(want, arr.shape)):
            axes = "[batch, " + ", ".join(map(str, t.dims)) + "]" if sig.max_batch_size > 0 else str(list(t.dims))
            if arr.ndim == len(want):  # the rank is right: one dim differs (the batch advice was given for any shape)
                k, w, g = next((k, w, g) for k, (w, g) in enumerate(zip(want, arr.shape)) if w not in (-1, g))
                hint = f"give {name!r} a dim {k} of {w} (it has {g}): the served config's dims, batch axis first"
            elif sig.max_batch_size > 0:
                hint = "a batching model needs the batch axis first, even for one sample"
            else:
                hint = f"max_batch_size 0: give the config's dims as they are, {list(t.dims)} (-1: any size), no batch axis added"
            axes += " (-1 = any size)" if -1 in t.dims else ""
            raise ClientError(f"{sig.name}: input {name!r} has shape {list(arr.shape)}, expected {axes}", hint=hint)
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
        raise ClientError(
            f"{sig.name}: inputs disagree on the batch size: {batches}",
            hint="one request carries one batch: give every input the same first (batch) dim, e.g. "
            f"{min(batches.values())} rows of each",
        )
    return out


def _convert(model: str, name: str, arr: np.ndarray, t: TensorInfo, cast: bool) -> np.ndarray:
    if arr.dtype == np.dtype(t.dtype):
        return arr
    if not cast:
        raise ClientError(
            f"{model}: input {name!r} is {arr.dtype}, the model takes {t.dtype} ({t.triton_dtype})",
            hint=f"convert it, e.g. {astype_code(t.dtype)}"
            + (", or drop --no-cast (a cast within its family)" if same_family(arr.dtype, t.dtype) else ""),
        )
    return convert_array(
        arr, name, t.dtype, t.triton_dtype, f"{model}: {'an' if str(arr.dtype)[0] in 'aeio' else 'a'} {arr.dtype} array"
    )


def cast_words(given: np.dtype, t: TensorInfo) -> str:
    """How an array of ``given`` reaches input ``t``'s dtype by the module's policy, in words, the
    one wording of every place that says a cast (trial 15, T15-6: a float64 file was sent as float32
    under a line that named only float32): ``"float64, cast to the served float32 (TYPE_FP32) with
    each value rounded to float32's precision"``; ``"... with every value kept"`` where the cast is
    exact (a wider float; an integer, which :func:`core.casts.convert` casts only where it fits)."""
    kept = np.dtype(t.dtype).kind != "f" or np.can_cast(given, np.dtype(t.dtype), "safe")
    how = "every value kept" if kept else f"each value rounded to {t.dtype}'s precision"
    return f"{np.dtype(given)}, cast to the served {t.dtype} ({t.triton_dtype}) with {how}"


def casts(sig: ModelSignature, inputs: Mapping[str, np.ndarray]) -> dict[str, str]:
    """The casts :func:`validate_inputs` makes of ``inputs``: input name -> :func:`cast_words`, for
    each array of the model's inputs whose dtype differs from its input's (said only once
    :func:`validate_inputs` took them: it refuses the others)."""
    known = {t.name: t for t in sig.inputs}
    given = {name: np.asarray(arr).dtype for name, arr in inputs.items() if name in known}
    return {name: cast_words(dt, known[name]) for name, dt in given.items() if dt != np.dtype(known[name].dtype)}


def spec_for(repository: Path | None, model: str) -> ModelSpec | None:
    """The build's spec of ``model`` under its served names (named axes, ``opt`` sizes,
    verified ranges, value ranges), if ``repository`` is a toolkit repository that lists it;
    ``None`` otherwise (an unreadable index or manifest is logged)."""
    if repository is None:
        return None
    try:
        return Repository(repository).variant(model).served_spec
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
        value_range: Inclusive range of an integer input's values (one per position of the last
            axis where the build's spec gives one each).
        domain: The build's domain of the input (:mod:`builders.model.domains`: a ``mask``
            has at least one 1 per row), which the values respect; ``None``: none.
        batched: Whether :attr:`shape` starts with the batch axis (a model with ``max_batch_size > 0``).
    """

    name: str
    shape: tuple[int, ...]
    dtype: str
    values: str
    dims: str = ""
    value_range: ValueRange = DEFAULT_INT_RANGE
    domain: str | None = None
    batched: bool = True

    def describe(self) -> str:
        """``"input_ids [1, 64] (batch 1 × [64] per sample) int64: integers uniform in [0, 999] (...); seq=64 (...)"``
        (:func:`clients.request_shapes.request_shape`, the one way every output states an input's shape)."""
        shape = request_shape(self.shape[1:], self.shape[0]) if self.batched else request_shape(self.shape, None)
        return f"{self.name} {shape} {self.dtype}: {self.values}" + (f"; {self.dims}" if self.dims else "")


def plan_inputs(
    sig: ModelSignature,
    batch_size: int = 1,
    spec: ModelSpec | None = None,
    shapes: Mapping[str, Sequence[int]] | None = None,
) -> list[InputChoice]:
    """The shape, dtype and value distribution of each generated input, and why.

    Dynamic dims are sized by :func:`clients.shapes.resolve` (``--shape``, else the build's
    ``opt`` size, else an error). Integer inputs are uniform in the build's ``value_range``,
    else :data:`DEFAULT_INT_RANGE`.

    Args:
        sig: The served model's signature.
        batch_size: Leading batch size (rows per request; 1 for a model with ``max_batch_size 0``).
        spec: The build's spec under served names (:func:`spec_for`), or ``None``.
        shapes: Dims by input name (``--shape NAME:dims``, no batch axis).

    Raises:
        ClientError: a batch size the model cannot take (:func:`clients.shapes.check_batch_size`),
            or a shape :func:`clients.shapes.resolve` refuses or cannot size.
    """
    shp.check_batch_size(sig.name, sig.max_batch_size, batch_size)
    resolved = shp.resolve(sig.name, [(t.name, t.dims) for t in sig.inputs], sig.max_batch_size, spec, shapes)
    specs = {t.name: t for t in spec.inputs} if spec else {}
    sizes = spec.sizes_of({n: r.dims for n, r in resolved.items()}) if spec else {}  # a range bound naming an axis
    out = []
    for t in sig.inputs:
        r, s = resolved[t.name], specs.get(t.name)
        shape = (batch_size, *r.dims) if sig.max_batch_size > 0 else r.dims
        value_range: ValueRange = DEFAULT_INT_RANGE
        if s is not None and s.domain is not None:
            values = f"{describe_domain(s.domain, 'random')} (the build's domain)"
        elif t.dtype.startswith("float"):
            values = "N(0, 1)"
        elif t.dtype == "bool":
            values = "all true"
        else:
            decided, value_range = request_range(t.name, t.dtype, t.triton_dtype, s, sizes)
            if decided.default:
                values = (
                    f"integers uniform in {range_words(value_range)} "
                    f"(no value range recorded: {default_words(t.dtype, decided.range)}; --input-data FILE sends real values)"
                )
            else:
                at = ", ".join(f"{a}={sizes[a]}" for a in range_axes(decided.range))
                of = f" {range_text(decided.range)} at {at}" if at else ""
                values = f"integers uniform in {range_words(value_range)} (the build's value_range{of})"
        domain = s.domain if s is not None else None
        out.append(InputChoice(t.name, tuple(shape), t.dtype, values, r.describe(), value_range, domain, sig.max_batch_size > 0))
    return out


def generate_inputs(
    sig: ModelSignature,
    batch_size: int = 1,
    spec: ModelSpec | None = None,
    seed: int = 0,
    shapes: Mapping[str, Sequence[int]] | None = None,
) -> dict[str, np.ndarray]:
    """Random inputs for ``sig``, made as :func:`plan_inputs` says: shape ``[batch_size, *dims]``
    (``dims`` when not batching); floats N(0, 1), booleans true, integers uniform in the
    build's ``value_range`` (else :data:`DEFAULT_INT_RANGE`); an input with a domain respects
    it (:func:`builders.model.domains.conform`: a mask has a 1 in every row).

    Raises:
        ClientError: see :func:`plan_inputs`.
    """
    rng = np.random.default_rng(seed)
    out: dict[str, np.ndarray] = {}
    for c in plan_inputs(sig, batch_size, spec, shapes):
        if c.dtype.startswith("float"):
            out[c.name] = rng.standard_normal(c.shape).astype(c.dtype)
        elif c.dtype == "bool":
            out[c.name] = np.ones(c.shape, dtype=bool)
        else:
            out[c.name] = draw_integers(c.value_range, c.shape, rng).astype(c.dtype)
        out[c.name] = conform(c.domain, out[c.name] if sig.max_batch_size > 0 else out[c.name][None], rng).reshape(c.shape)
    return out


def infer_input(module: Any, name: str, arr: np.ndarray) -> Any:
    """A tritonclient ``InferInput`` for ``arr`` (no data set yet), its wire datatype from
    :mod:`core.dtypes` (``"FP32"``, ``"BYTES"``...).

    Args:
        module: ``tritonclient.http`` or ``tritonclient.grpc``.
        name: Input name.
        arr: The array to send (its shape and dtype).

    Raises:
        ClientError: a dtype with no wire type (e.g. complex).
    """
    try:
        wire = dtypes.from_numpy(arr.dtype).client
    except DataTypeError as e:
        raise ClientError(f"input {name!r}: {e.message}", hint=e.hint) from None
    return module.InferInput(name, list(arr.shape), wire)


def request_inputs(module: Any, inputs: Mapping[str, np.ndarray]) -> list[Any]:
    """One tritonclient ``InferInput`` per array, data set (:func:`infer_input`)."""
    request = []
    for name, arr in inputs.items():
        t = infer_input(module, name, arr)
        t.set_data_from_numpy(arr)
        request.append(t)
    return request


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
