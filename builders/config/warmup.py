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
"""

from __future__ import annotations

from pydantic import Field
from tritonclient.grpc import model_config_pb2 as mc

from builders.model.artifact_io import WILDCARD
from builders.model.spec import ModelSpec
from core.errors import ConfigError
from core.records import Record

#: Runs of each warmup sample when nothing was measured (a stated default, not a
#: measurement: ``triton-perf coldstart`` measures how many requests a variant needs).
DEFAULT_WARMUP_COUNT = 3


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
        raise ConfigError(f"--warmup-count {count}: each warmup sample must run at least once", hint="pass a count >= 1")
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

    A non-batching model's leading ``-1`` is its batch axis and becomes 1. ``random`` data is
    ``random_data: true`` except for integer inputs with a ``value_range`` (token ids...),
    which get zeros: Triton's random integers are not bounded and would index out of range.

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
            t = by_name[inp.name]
            bounded = t.value_range is not None and not t.dtype.startswith(("float", "bool"))
            if data == "zero" or bounded:  # random integers would break e.g. token ids (Triton draws any value)
                w.zero_data = True
            else:
                w.random_data = True


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
