"""Curves of a sweep: a variant's points over concurrency at one client batch size, the level two
series share, and falls of throughput as load rose (the points and the noise rule:
:mod:`perf.analysis.stats.points`; the knee, judged by the rule of a rise:
:func:`perf.analysis.saturation.rises.knee`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from perf.analysis.stats.points import GPU_METRICS, THROUGHPUT, Point, aggregate
from perf.records.levels import LevelResult

#: How far apart (%) two median throughputs must be to be said to differ, where no noise rule judges them:
#: a fall below the best level before it (:func:`falls`), and two variants at concurrency 1 before an
#: instance-count effect is ruled out (:mod:`perf.analysis.effects.threads`). Not the knee's rule: whether
#: throughput still rises, and the knee, are :mod:`perf.analysis.saturation.rises`' (named ``KNEE_GAIN_PCT``
#: until the knee moved there, bd10880).
APART_PCT = 10.0


def has_metric(points: dict[str, list[Point]], metric: str) -> bool:
    """Whether any point of the run has a value for ``metric``."""
    return any(p.get(metric) is not None for pts in points.values() for p in pts)


def gpu_metric(points: dict[str, list[Point]]) -> str | None:
    """The GPU utilisation field present in the run: Triton's metric, else local NVML; None without GPU."""
    return next((m for m in GPU_METRICS if has_metric(points, m)), None)


def primary_batch_size(points: Sequence[Point]) -> int | None:
    """The smallest client batch size with a measured level (curves and knees use it)."""
    sizes = [p.batch_size for p in points if p.ok]
    return min(sizes) if sizes else None


def curve(points: Sequence[Point], batch_size: int | None = None) -> list[Point]:
    """Measured points of one batch size (default :func:`primary_batch_size`) by concurrency."""
    bs = primary_batch_size(points) if batch_size is None else batch_size
    return sorted((p for p in points if p.ok and p.batch_size == bs), key=lambda p: p.concurrency)


def common_level(a: Sequence[Point], b: Sequence[Point], batch_size: int | None = None) -> tuple[Point, Point] | None:
    """Both curves' points at their highest common concurrency (client ``batch_size``,
    default each curve's smallest measured), or None when they share no level."""
    cb = {p.concurrency: p for p in curve(b, batch_size)}
    both = [(p, q) for p in curve(a, batch_size) if (q := cb.get(p.concurrency)) is not None and p.batch_size == q.batch_size]
    return both[-1] if both else None


def peak(points: Sequence[Point]) -> Point | None:
    """The measured point with the highest throughput (any batch size), or None."""
    return max((p for p in points if p.ok), key=lambda p: p.value(THROUGHPUT), default=None)


def _as_points(levels: Sequence[LevelResult | Point]) -> list[Point]:
    if all(isinstance(x, Point) for x in levels):
        return list(levels)  # type: ignore[arg-type]
    return aggregate([x for x in levels if isinstance(x, LevelResult)])


@dataclasses.dataclass(frozen=True)
class Interference:
    """Throughput whose median fell as load rose (:func:`falls`): the best level before the fall and
    the level it fell to. A fall of the medians only: whether it is beyond the noise, and every word
    said of it, are :func:`perf.analysis.saturation.falls.fall`'s.

    Attributes:
        before: The highest-throughput level at a lower concurrency.
        after: The level whose throughput fell below it.
        drop_pct: How far (% of ``before``'s throughput).
    """

    before: Point
    after: Point
    drop_pct: float


def falls(
    levels: Sequence[LevelResult | Point], batch_size: int | None = None, gain_pct: float = APART_PCT
) -> list[Interference]:
    """Where the median throughput *fell* as load rose, which saturation cannot do (a saturated server
    queues the extra requests at the same throughput); the largest fall first.

    Rule: a level whose median is more than ``gain_pct`` below the best level at a lower concurrency,
    while no higher level gets back within ``gain_pct`` of that best: a level followed by one that does
    is a dip, not a fall as load rose (trial 11, F14: c=1 165.5, c=4 86.5, c=16 289.6 infer/s was said
    to have "fallen 48 % as load rose"). Medians only: :func:`perf.analysis.saturation.falls.fall` judges the noise.
    """
    line = curve(_as_points(levels), batch_size)
    out: list[Interference] = []
    best: Point | None = None
    for i, p in enumerate(line):
        if best is not None:
            drop = (1.0 - p.value(THROUGHPUT) / best.value(THROUGHPUT)) * 100.0
            floor = best.value(THROUGHPUT) * (1.0 - gain_pct / 100.0)
            if drop > gain_pct and all(q.value(THROUGHPUT) < floor for q in line[i + 1 :]):
                out.append(Interference(best, p, drop))
        if best is None or p.value(THROUGHPUT) > best.value(THROUGHPUT):
            best = p
    return sorted(out, key=lambda f: -f.drop_pct)


def interference(
    levels: Sequence[LevelResult | Point], batch_size: int | None = None, gain_pct: float = APART_PCT
) -> Interference | None:
    """The largest of :func:`falls`, or ``None``."""
    found = falls(levels, batch_size, gain_pct)
    return found[0] if found else None
