"""What a deployment bundle says of its inputs' sizes (trial 26, T26-8): Triton's ``config.pbtxt`` states a dynamic
dim as ``-1`` and holds no range, so the deployed server takes a request of any size; the build compared the
export's outputs with PyTorch's only within each dynamic axis's ``min..max``, and the run measured at its own sizes
(the build's ``opt`` size, a ``--shape``, or the ``--shapes`` size of the series deployed). The bundle's README
("What was measured and what the bundle runs") and ``export-deployment``'s lines say all three.

The ranges are the run's record of the build it measured (:attr:`perf.records.results.VariantResult.axis_ranges`),
else the repository's build spec; the sizes are the deployed series' (its ``--shapes`` label, a mixed range too),
else the sizes the run recorded for the variant (:attr:`perf.records.results.VariantResult.dynamic_axes`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from builders.model.axis_steps import range_words
from builders.repository.view import RepositoryVariant
from clients.request_shapes import per_sample_shape
from core.errors import ToolkitError
from perf.records.results import RunResult
from perf.records.workloads import workload_text

#: What a bundle says of a size outside the verified range.
OUTSIDE = "never verified"


def input_sizes(
    run: RunResult,
    variant: str,
    shape: str | None,
    inputs: Sequence[tuple[str, Sequence[int]]],
    build_ranges: Mapping[str, Sequence[int]] | None = None,
    batching: bool = True,
    steps: Mapping[str, int] | None = None,
) -> str | None:
    """The sentence on a sweep's deployed variant's input sizes (:func:`sizes_words`); ``None`` when no input has a
    dynamic dim.

    Args:
        run: The run the bundle is of.
        variant: The variant deployed.
        shape: The ``--shapes`` size of the series deployed (``"time=4000"``, ``"time=1600..16000"``), ``None``: not swept.
        inputs: The bundle config's inputs, ``(name, dims)``.
        build_ranges: The repository build's dynamic axes, ``axis -> (min, opt, max)``: used where the run did not
            record the ranges (runs saved before it did).
        batching: Whether the config's ``max_batch_size`` is above 0 (its dims are then per sample), for the words
            every output states dims in (:func:`clients.request_shapes.per_sample_shape`).
        steps: The build's step of each axis that takes only multiples of one (:func:`build_steps`).
    """
    vr = run.variant(variant)
    ranges = (vr.axis_ranges if vr else None) or build_ranges
    return sizes_words(run.run_id, inputs, ranges, shape, vr.dynamic_axes if vr else None, batching, steps=steps)


def sizes_words(
    run_id: str,
    inputs: Sequence[tuple[str, Sequence[int]]],
    ranges: Mapping[str, Sequence[int]] | None,
    shape: str | None,
    recorded: str | None,
    batching: bool = True,
    subject: str = "The bundle's config",
    steps: Mapping[str, int] | None = None,
) -> str | None:
    """What a config of a bundle takes of its dynamic dims, the build's verified range of them and the sizes run
    ``run_id`` measured at (the ``--shapes`` size ``shape``, else ``recorded``: the sizes as
    :func:`perf.measure.inputs.describe_dynamic` says them); ``None`` when no input has a dynamic dim. A sweep's
    bundle (:func:`input_sizes`) and a co-location run's (``subject``: one variant's config of its several) say it
    in these words; an axis's range with its step (``steps``; :func:`builders.model.axis_steps.range_words`)."""
    dynamic = [(n, list(d)) for n, d in inputs if any(int(x) < 0 for x in d)]
    if not dynamic:
        return None
    ranges = {a: list(r) for a, r in (ranges or {}).items()}
    dims = ", ".join(f"{n} {per_sample_shape(d, batching)}" for n, d in dynamic)
    text = f"{subject} takes any size of its dynamic dims ({dims}; -1 = dynamic: Triton's config holds no range)."
    said = _measured_at(run_id, shape, recorded)
    if not ranges:
        return f"{text} The build recorded no verified range for them; {said}."
    verified = ", ".join(f"{a} {range_words(r[0], r[-1], (steps or {}).get(a, 1))}" for a, r in ranges.items())
    return (
        f"{text} The build verified its outputs against PyTorch's for {verified} only, and {said}. A request outside "
        f"{'that range' if len(ranges) == 1 else 'those ranges'} was {OUTSIDE} nor measured: keep clients within "
        f"{'it' if len(ranges) == 1 else 'them'}, or "
        "rebuild with a wider `--dynamic-axis` and measure again."
    )


def input_sizes_lines(sizes: tuple[str, ...]) -> list[str]:
    """A bundle README's **Input sizes.** paragraph: one sentence (a sweep's bundle, :mod:`perf.deploy.readme`), or a
    list of one per variant (a co-location run's, :mod:`perf.deploy.combination`); ``[]`` when no dim is dynamic."""
    if len(sizes) == 1:
        return ["", f"**Input sizes.** {sizes[0]}"]
    return ["", "**Input sizes.**", "", *[f"- {s}" for s in sizes]] if sizes else []


def build_ranges(rv: RepositoryVariant) -> dict[str, tuple[int, int, int]] | None:
    """The repository build's dynamic axes, ``axis -> (min, opt, max)`` (a run saved before it recorded them, or a
    co-location run, which records none); ``None`` without a readable build record."""
    try:
        spec = rv.served_spec
    except ToolkitError:
        return None
    return dict(spec.dynamic_axes) if spec else None


def build_steps(rv: RepositoryVariant) -> dict[str, int]:
    """The repository build's step of each axis that takes only multiples of one (``{"H": 16}``; the spec's
    ``multiple_of``); ``{}`` without a readable build record or a step."""
    try:
        spec = rv.served_spec
    except ToolkitError:
        return {}
    return dict(spec.multiple_of) if spec else {}


def _measured_at(run_id: str, shape: str | None, recorded: str | None) -> str:
    """``"every number of run `s1` was measured at time=8000 (the build's opt size of axis time) only"``."""
    if shape:
        size = workload_text(shape, None)
        if size != shape:  # a mixed range: sizes drawn across it
            return f"every number of run `{run_id}` was measured at {size}: sizes drawn across that range"
        return f"every number of run `{run_id}` was measured at {size} only (its `--shapes` size deployed)"
    if recorded:
        return f"every number of run `{run_id}` was measured at {recorded} only"
    return f"run `{run_id}` did not record the sizes it measured at"
