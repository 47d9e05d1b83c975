"""Triton ``model_warmup`` that covers what a variant will serve, and how often each sample runs.

Warmup moves first-request costs (lazy initialisation, allocator growth, kernels chosen or
compiled on first sight of a shape) from the first client requests into model load (Triton
docs, "Model Configuration: Model Warmup"). It only helps for the batch sizes and shapes it
sends, so :func:`add_warmup` writes one sample per batch size the variant will see (1, every
``dynamic_batching.preferred_batch_size``, ``max_batch_size``) at the spec's ``opt`` sizes,
and, for inputs with named dynamic axes, samples at the axes' ``min`` and ``max`` ends at
batch 1 and at ``max_batch_size``.

How many times each sample runs (``count``) should be the number of requests after which the
variant's latency is steady. That is measured by ``triton-perf coldstart`` (and every sweep) on the
variant without warmup, which prints the ``--warmup-count`` to build with and why; a build
before any measurement uses :data:`DEFAULT_WARMUP_COUNT` and records that it is a default,
not a measurement (:func:`warmup_count`, kept in the build manifest).

Warmup requests are ones a client could send: each input's data stays within its domain
(:meth:`builders.model.tensor.TensorSpec.draw`), or the warmup does not exercise what is
served (a fully masked sequence can give NaN or a degenerate path; token ids out of the
vocabulary fail). Triton's ``zero_data`` is used where zeros are within the domain and
``random_data`` (random bytes) only for floating inputs without a domain; every other input
reads its values from ``input_data_file``, a file of raw row-major values in the model
folder's ``warmup/`` subfolder (Triton docs, "Model Configuration: Model Warmup";
:func:`warmup_files` gives the files, :func:`write_warmup_files` writes them). ``zero``
warmup sends each input's value nearest to zero within its domain (a mask: all ones, no
padding); ``random`` warmup a seeded draw within it.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
from pydantic import Field
from tritonclient.grpc import model_config_pb2 as mc

from builders.model.artifact_io import WILDCARD
from builders.model.domains import domain_problem
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from builders.model.value_ranges import range_axes, range_json, range_text
from builders.triton.rules import Problem
from core import dtypes
from core.casts import convert
from core.errors import ConfigError
from core.records import Record

#: Runs of each warmup sample when nothing was measured (a stated default, not a
#: measurement: ``triton-perf coldstart`` measures how many requests a variant needs).
DEFAULT_WARMUP_COUNT = 3
#: The model-folder subfolder Triton reads ``input_data_file`` from (Triton docs, "Model
#: Configuration: Model Warmup"; ``kWarmupDataFolder`` in Triton's core).
WARMUP_FOLDER = "warmup"


class WarmupCount(Record):
    """How many times each ``model_warmup`` sample of a build's warmup variants runs, and why
    (:func:`builders.config.warmup.warmup_count`)."""

    count: int = Field(ge=1, description="runs of each model_warmup sample (its count field)")
    measured: bool = Field(
        description="whether the count came with a measurement (--warmup-count-reason); false: the default or a bare --warmup-count"
    )
    reason: str = Field(description="why this count: the measurement triton-perf coldstart printed, or 'default, not measured'")


def warmup_count(count: int | None = None, reason: str | None = None) -> WarmupCount:
    """The warmup count of a build and why it is that number.

    Args:
        count: ``--warmup-count`` (>= 1); ``None``: :data:`DEFAULT_WARMUP_COUNT`.
        reason: Why ``count`` (``--warmup-count-reason``, e.g. the measurement ``perf
            coldstart`` printed); ignored without ``count``.

    Raises:
        ConfigError: ``count`` below 1.
    """
    if count is None:
        return WarmupCount(
            count=DEFAULT_WARMUP_COUNT,
            measured=False,
            reason=f"default ({DEFAULT_WARMUP_COUNT} runs per sample), not measured: `triton-perf coldstart` on the variant "
            "without warmup measures how many requests it needs and prints the --warmup-count to build with",
        )
    if count < 1:
        raise ConfigError(
            f"--warmup-count {count}: each warmup sample must run at least once", hint="pass a count >= 1", flag="--warmup-count"
        )
    return WarmupCount(count=count, measured=bool(reason), reason=reason or "given with --warmup-count (no reason given)")


def warmup_batches(cfg: mc.ModelConfig) -> list[int]:
    """The batch sizes ``cfg`` will be sent: 1, its preferred batch sizes and ``max_batch_size``
    (only 1 for a model that does not batch), ascending."""
    mbs = cfg.max_batch_size
    if mbs <= 1:
        return [1]
    return sorted({1, *cfg.dynamic_batching.preferred_batch_size, mbs})


def warmup_points(cfg: mc.ModelConfig, spec: ModelSpec) -> list[tuple[int, dict[str, int]]]:
    """``(batch size, dynamic-axis sizes)`` of every warmup sample: each of
    :func:`warmup_batches` at the ``opt`` sizes; with dynamic axes also every axis at its
    ``min`` and at its ``max`` at batch 1 and at the largest batch size. Duplicates dropped."""
    batches = warmup_batches(cfg)
    opt = spec.axis_sizes("opt")
    points = [(b, opt) for b in batches]
    if spec.dynamic_axes:
        for b in dict.fromkeys((batches[0], batches[-1])):
            points += [(b, spec.axis_sizes("min")), (b, spec.axis_sizes("max"))]
    out: list[tuple[int, dict[str, int]]] = []
    for p in points:
        if p not in out:
            out.append(p)
    return out


def sample_name(data: str, batch: int, sizes: dict[str, int], opt: dict[str, int]) -> str:
    """``"random_batch8"`` at the ``opt`` sizes, ``"random_batch8_seq128"`` elsewhere."""
    return f"{data}_batch{batch}" + "".join(f"_{a}{n}" for a, n in sizes.items() if sizes != opt)


def add_warmup(cfg: mc.ModelConfig, spec: ModelSpec, data: str, count: int = DEFAULT_WARMUP_COUNT) -> None:
    """Add ``model_warmup`` samples at every :func:`warmup_points` point, each run ``count``
    times (Triton docs, "Model Configuration: Model Warmup").

    A non-batching model's leading ``-1`` is its batch axis and becomes 1. Each input's data
    stays within its domain (module docstring): ``zero_data`` where zeros are within it,
    ``random_data`` for a floating input without a domain under ``random``, else an
    ``input_data_file`` (:func:`warmup_values`), which :func:`write_warmup_files` writes.

    Args:
        cfg: The config, with inputs, ``max_batch_size`` and dynamic batching already set.
        spec: The model's spec (named dynamic axes and their ``(min, opt, max)``).
        data: ``"random"`` or ``"zero"``.
        count: Runs of each sample (>= 1).

    Raises:
        ConfigError: a dynamic dim has no size in the spec; ``count`` below 1.
    """
    if count < 1:
        raise ConfigError(f"model_warmup.count: {count} is below 1", hint="pass --warmup-count 1 or more")
    by_name = {t.name: t for t in spec.inputs}
    opt = spec.axis_sizes("opt")
    for b, sizes in warmup_points(cfg, spec):
        sample = cfg.model_warmup.add(name=sample_name(data, b, sizes, opt), batch_size=b, count=count)
        for inp in cfg.input:
            w = sample.inputs[inp.name]
            w.data_type = inp.data_type
            w.dims.extend(_concrete_dims(cfg, inp, list(by_name[inp.name].shape), sizes))
            source = _source(by_name[inp.name], data, sizes)
            if source == "zero_data":
                w.zero_data = True
            elif source == "random_data":
                w.random_data = True
            else:
                w.input_data_file = data_file_name(inp.name, data, list(w.dims), _range_sizes(by_name[inp.name], sizes))


def _range_sizes(t: TensorSpec, sizes: dict[str, int]) -> dict[str, int]:
    """The sizes of the axes ``t``'s value_range names (``{"time": 1000}``): its values depend on them."""
    return {a: sizes[a] for a in range_axes(t.value_range) if a in sizes}


def _source(t: TensorSpec, data: str, sizes: dict[str, int]) -> str:
    """Where a warmup sample of ``data`` takes input ``t``'s values from: ``"zero_data"``,
    ``"random_data"`` or ``"input_data_file"`` (module docstring); ``sizes``: the sample's axis sizes."""
    if t.dtype == "bytes":
        return "zero_data"  # Triton sends empty strings for random_data too
    if data == "zero":
        return "zero_data" if not np.any(_zero_value(t, sizes)) else "input_data_file"
    if t.domain is None and dtypes.from_name(t.dtype).is_floating:
        return "random_data"  # Triton's random bytes: any float, as the input takes
    return "input_data_file"  # random bytes are outside a range, a domain, a bool's 0/1


def _zero_value(t: TensorSpec, sizes: dict[str, int]) -> np.ndarray:
    """The value nearest to zero within ``t``'s domain: 1 for a mask (all ones, no padding),
    zero clipped into ``value_range`` (per position of the last axis where it gives one range
    each; a bound that names an axis at its size in ``sizes``, the sample's: :meth:`TensorSpec.bounds`),
    else 0; an array that broadcasts against a request."""
    if t.domain == "mask":
        return np.asarray(1)
    if t.input_range() is None:  # a float, a bool
        return np.asarray(0)
    lo, hi = t.bounds(sizes)
    return np.clip(0, lo, hi)


def data_file_name(name: str, data: str, dims: list[int], range_sizes: dict[str, int] | None = None) -> str:
    """``input_data_file`` of input ``name`` for ``data`` at per-request ``dims``, within the
    model's ``warmup/`` folder: ``"attention_mask.zero.32.bin"`` (samples of one shape share it);
    an input whose value_range names axes carries their sizes (``"lengths.random.1.time1000.bin"``):
    its values differ with them although its dims do not."""
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", name)
    at = "".join(f".{a}{n}" for a, n in (range_sizes or {}).items())
    return f"{safe}.{data}.{'x'.join(str(d) for d in dims)}{at}.bin"


def warmup_values(t: TensorSpec, data: str, dims: list[int], data_type: int, sizes: dict[str, int] | None = None) -> np.ndarray:
    """The values one warmup request sends for input ``t``: ``dims`` (one request's dims,
    without a batch axis when the model batches) in the config's ``data_type``. ``zero``:
    :func:`_zero_value` everywhere; ``random``: :meth:`TensorSpec.draw` seeded with 0 (a mask
    row along the last axis). ``sizes``: the sample's dynamic-axis sizes (a value_range bound
    that names an axis is its size there). Values reach the config's type by the one conversion rule
    (:func:`core.casts.convert`): a value the type cannot hold (the spec's int64 ``0..300`` served as
    ``TYPE_INT8``) is refused, never wrapped.

    Raises:
        ConfigError: a value the config's type cannot hold exactly, naming the input and the type.
    """
    triton = mc.DataType.Name(data_type)
    numpy_dtype = dtypes.from_triton(triton).to_numpy()
    if data == "zero":
        values = np.broadcast_to(_zero_value(t, sizes or {}), dims)
    else:
        values = t.draw((1, *dims), np.random.default_rng(0), sizes).reshape(dims)
    return convert(values, t.name, str(numpy_dtype), triton, f"{data} warmup data", error=ConfigError)


def warmup_files(cfg: mc.ModelConfig, spec: ModelSpec, data: str | None) -> dict[str, bytes]:
    """Every ``input_data_file`` ``cfg``'s warmup reads, ``{file name: raw row-major bytes}``
    (what :func:`add_warmup` named; Triton reads at least dims x element size bytes).

    Args:
        cfg: A config made with :func:`add_warmup` (or without warmup: ``{}``).
        spec: The spec it was made from (served names).
        data: The variant's warmup (``"random"``, ``"zero"``, ``None``).
    """
    if not data:
        return {}
    by_name = {t.name: t for t in spec.inputs}
    out: dict[str, bytes] = {}
    for sample in cfg.model_warmup:
        sizes = spec.sizes_of({n: list(w.dims) for n, w in sample.inputs.items()})  # this sample's axis sizes
        for name, w in sample.inputs.items():
            if w.WhichOneof("input_data_type") == "input_data_file" and w.input_data_file not in out:
                values = warmup_values(by_name[name], data, list(w.dims), w.data_type, sizes)
                out[w.input_data_file] = values.tobytes(order="C")
    return out


def write_warmup_files(cfg: mc.ModelConfig, spec: ModelSpec, data: str | None, folder: Path) -> None:
    """Write :func:`warmup_files` into ``folder/warmup/`` (replaced; removed when there are none)."""
    target = Path(folder) / WARMUP_FOLDER
    if target.exists():
        shutil.rmtree(target)
    files = warmup_files(cfg, spec, data)
    if files:
        target.mkdir(parents=True)
        for name, content in files.items():
            (target / name).write_bytes(content)


def _concrete_dims(cfg: mc.ModelConfig, inp: mc.ModelInput, shape: list[int | str], sizes: dict[str, int]) -> list[int]:
    """``inp``'s config dims with each ``-1`` replaced by its axis's size in ``sizes``.

    Raises:
        ConfigError: a dynamic dim has no size.
    """
    dims = list(inp.dims)
    if cfg.max_batch_size == 0 and len(dims) == len(shape) + 1:  # the leading dim is the batch axis
        shape = [1, *shape]
    out = []
    for j, d in enumerate(dims):
        if d != WILDCARD:
            out.append(d)
            continue
        s = shape[j] if j < len(shape) else None
        size = s if isinstance(s, int) else sizes.get(s) if isinstance(s, str) else None
        if size is None:
            raise ConfigError(
                f"model_warmup.inputs[{inp.name}].dims: dim {j} is dynamic and the spec gives it no size",
                hint="name the axis in the input spec with a (min, opt, max) range, or build without --warmup",
            )
        out.append(size)
    return out


def warmup_domain_problems(cfg: mc.ModelConfig, spec: ModelSpec) -> list[Problem]:
    """Warmup inputs whose data is outside the input's domain (module docstring): ``zero_data``
    where zeros are not within it (a mask, a ``value_range`` without 0), ``random_data``
    (random bytes) for anything but a floating input without a domain.

    Args:
        cfg: A config (read back from a repository, or made here).
        spec: The served spec of its artifact (the build's record); inputs it does not name
            are not checked.
    """
    by_name = {t.name: t for t in spec.inputs}
    opt = spec.axis_sizes("opt")
    out: list[Problem] = []
    for i, sample in enumerate(cfg.model_warmup):
        for name, w in sample.inputs.items():
            t = by_name.get(name)
            given = w.WhichOneof("input_data_type")
            if t is None or given not in ("zero_data", "random_data") or t.dtype == "bytes":
                continue  # Triton sends empty strings for both
            if given == "zero_data" and _source(t, "zero", opt) == "zero_data":  # 0 within at one size: at every size
                continue
            if given == "random_data" and _source(t, "random", opt) == "random_data":
                continue
            what = f"a {t.domain} of zeros" if t.domain else f"zeros outside value_range {range_json(t.value_range or (0, 0))}"
            if given == "random_data":
                what = "random bytes, outside " + (f"its {t.domain} domain" if t.domain else f"the {t.dtype} input's range")
            out.append(
                Problem(
                    "",
                    f"model_warmup[{sample.name or i}].inputs[{name}].{given}",
                    f"sends {what}: no request sends that, so the warmup does not exercise what is served",
                    "rebuild with `builders build` (warmup data files within each input's domain)",
                )
            )
    return out


def warmup_file_problems(cfg: mc.ModelConfig, folder: Path) -> list[Problem]:
    """``input_data_file`` entries of ``cfg``'s warmup that ``folder/warmup/`` lacks or holds
    too few bytes for (Triton then fails the load: "warmup setting expects N bytes")."""
    out: list[Problem] = []
    for i, sample in enumerate(cfg.model_warmup):
        for name, w in sample.inputs.items():
            if w.WhichOneof("input_data_type") != "input_data_file":
                continue
            path = Path(folder) / WARMUP_FOLDER / w.input_data_file
            field = f"model_warmup[{sample.name or i}].inputs[{name}].input_data_file"
            if not path.is_file():
                out.append(Problem(str(folder), field, f"{path} is missing", "rebuild the variant with `builders build`"))
                continue
            kind = dtypes.from_triton(mc.DataType.Name(w.data_type))
            need = int(np.prod(list(w.dims))) * (kind.to_numpy().itemsize if kind.numpy else 0)
            if kind.name != "bytes" and path.stat().st_size < need:
                out.append(
                    Problem(
                        str(path),
                        field,
                        f"holds {path.stat().st_size} bytes, dims {list(w.dims)} need {need}",
                        "rebuild the variant with `builders build`",
                    )
                )
    return out


def warmup_value_problems(cfg: mc.ModelConfig, spec: ModelSpec, folder: Path) -> list[Problem]:
    """``input_data_file`` values of ``cfg``'s warmup outside what a request of the input sends:
    an integer value outside its range at the sample's sizes (:meth:`TensorSpec.bounds`, per position
    of the last axis where it gives one each), or a row that breaks its domain (a mask row with no
    1): data a hand-edited or stale file gives, which the warmup would run although no client sends it.
    A file that is missing or too short is :func:`warmup_file_problems`'s to say.

    Args:
        cfg: A config read back from a repository.
        spec: The served spec of its artifact (the build's record); inputs it does not name are not checked.
        folder: The model folder (its ``warmup/`` holds the files).
    """
    by_name = {t.name: t for t in spec.inputs}
    out: list[Problem] = []
    for i, sample in enumerate(cfg.model_warmup):
        sizes = spec.sizes_of({n: list(w.dims) for n, w in sample.inputs.items()})  # this sample's axis sizes
        for name, w in sample.inputs.items():
            t, path = by_name.get(name), Path(folder) / WARMUP_FOLDER / w.input_data_file
            kind = dtypes.from_triton(mc.DataType.Name(w.data_type))
            if t is None or w.WhichOneof("input_data_type") != "input_data_file" or not kind.numpy or not path.is_file():
                continue
            n = int(np.prod(list(w.dims)))
            raw = path.read_bytes()[: n * kind.to_numpy().itemsize]
            if len(raw) < n * kind.to_numpy().itemsize:
                continue
            values = np.frombuffer(raw, kind.to_numpy()).reshape(list(w.dims))
            said = domain_problem(t.domain, values, per_sample_axis=len(t.shape) > 0) if t.domain else None
            r = t.input_range()
            if said is None and r is not None and kind.is_integer:
                lo, hi = t.bounds(sizes)
                if lo.ndim and values.shape[-1:] != lo.shape:
                    continue  # another last axis: the config's dims are checked elsewhere
                bad = (values < lo) | (values > hi)
                if bad.any():
                    at = ", ".join(f"{a}={sizes[a]}" for a in range_axes(r.range))
                    said = (
                        f"holds {int(bad.sum())} values outside the range {range_text(r.range)}"
                        + (f" at {at}" if at else "")
                        + f" (e.g. {int(values[bad].reshape(-1)[0])})"
                    )
            if said is not None:
                field = f"model_warmup[{sample.name or i}].inputs[{name}].input_data_file"
                out.append(
                    Problem(str(path), field, f"{said}: no request sends that", "rebuild the variant with `builders build`")
                )
    return out
