"""Main-effect pairs of a rounds sweep, from paired rounds (:mod:`perf.analysis.effects.main_effects`).

In the rounds design (:mod:`perf.search.rounds`) the two variants of a pair were measured in
the same rounds, each round in a shuffled order, so background load that changes between
rounds falls on both alike and cancels in their per-round ratio. A pair's change is then the
median over their common rounds of ``metric(changed) / metric(reference) - 1`` (%), at the
levels :mod:`perf.analysis.effects.main_effects` compares (each one's peak; both at the highest common
concurrency for p99), judged by the project's one paired rule
(:func:`perf.analysis.stats.paired.paired`: :data:`~perf.analysis.stats.paired.RULE_SHORT`): a flag
on one of the rounds does not make the pair unfair, which a one-after-another design cannot
say. Pairs that never shared a round are "not measured fairly". Where a setting cannot act
(:func:`perf.analysis.stats.fair.cannot_act`) the pair is still no evidence.
"""

from __future__ import annotations

from perf.analysis.ranking.operating import shared, side_of
from perf.analysis.stats.paired import Paired, paired
from perf.analysis.stats.points import P99, THROUGHPUT, Point
from perf.records.results import VariantResult

#: Why a pair is no evidence when its two levels never shared a round.
NEVER_TOGETHER = "not measured fairly: the two levels were never measured in the same round"


def is_rounds(variants: list[VariantResult]) -> bool:
    """Each variant's levels are one series (one swept shape at most: a shape sweep is split
    into one series per shape first, :func:`perf.records.workloads.split_by_workload`)."""
    return all(len({lv.shape for lv in v.levels}) <= 1 for v in variants)


def paired_change(
    ref: VariantResult, a: Point, changed: VariantResult, b: Point, metric: str = THROUGHPUT
) -> tuple[float | None, bool | None, str | None]:
    """``(change %, significant, note)`` of ``metric`` from ``a`` (a level of ``ref``) to ``b``
    (a level of ``changed``) over their common rounds (module docstring)."""
    pct, sig, note, _ = paired_change_n(ref, a, changed, b, metric)
    return pct, sig, note


def paired_text(ref: VariantResult, a: Point, changed: VariantResult, b: Point, metric: str = THROUGHPUT) -> str:
    """The change in words: ``"+31.7 % (median of the paired per-round ratios over 6 rounds)"``,
    ``"...: not significant"``, ``"...: the same way in each of the 3 rounds, not called: too uneven for 3 rounds
    to tell, p 0.011 (needs ≤ 0.005)"`` (:meth:`perf.analysis.stats.paired.Paired.uncalled`: never "not significant"
    beside rounds that all agree, trial 15, T15-2), or the note: the median of per-round ratios, said as such (it is
    not the ratio of the two levels' medians)."""
    res = _paired(ref, a, changed, b, metric)
    if res is None:
        return NEVER_TOGETHER
    n = len(res.ratios)
    said = "" if res.significant else ": not significant"
    if (why := res.uncalled(short=True)) is not None:
        said = f": the same way in {'the one round' if n == 1 else f'each of the {n} rounds'}, not called: {why}"
    return (
        f"{(res.median - 1.0) * 100.0:+.1f} % (median of the paired per-round ratios over {n} round{'s' if n != 1 else ''}{said})"
    )


def paired_uncalled(ref: VariantResult, a: Point, changed: VariantResult, b: Point, metric: str = THROUGHPUT) -> str | None:
    """Why the paired rule did not call the change from ``a`` to ``b`` although every common round went one way
    (:meth:`perf.analysis.stats.paired.Paired.uncalled`, short), else ``None``."""
    res = _paired(ref, a, changed, b, metric)
    return res.uncalled(short=True) if res is not None else None


def _paired(ref: VariantResult, a: Point, changed: VariantResult, b: Point, metric: str) -> Paired | None:
    """The paired rule on ``metric`` of ``b`` (a level of ``changed``) against ``a`` (of ``ref``) over their common rounds."""
    field = {THROUGHPUT: THROUGHPUT, P99: "latency_p99_ms"}.get(metric, metric)
    common, xb, xa = shared(changed, side_of(changed, b), ref, side_of(ref, a), field)
    return paired(xb, xa) if common else None


def paired_change_n(
    ref: VariantResult, a: Point, changed: VariantResult, b: Point, metric: str = THROUGHPUT
) -> tuple[float | None, bool | None, str | None, int]:
    """:func:`paired_change` and the number of common rounds."""
    res = _paired(ref, a, changed, b, metric)
    if res is None:
        return None, None, NEVER_TOGETHER, 0
    return (res.median - 1.0) * 100.0, res.verdict != "not distinguishable", None, len(res.ratios)
