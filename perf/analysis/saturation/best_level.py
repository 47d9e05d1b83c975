"""Each variant's best level, by the one rule wherever one is named (:func:`best_levels`): the paired ranking's
in a rounds sweep (:func:`perf.analysis.ranking.operating.best_of`), the recommendation's in a run of trials."""

from __future__ import annotations

from perf.analysis.ranking.budget_latency import host_cores
from perf.analysis.ranking.operating import Adjusted, Side, operating_point
from perf.analysis.stats.curves import curve, peak
from perf.analysis.stats.points import Point
from perf.analysis.stats.trials import DEFAULT_TOLERANCE_PCT, rank, tolerance
from perf.records.results import RunResult


def best_levels(run: RunResult | None, points: dict[str, list[Point]], batch_size: int | None = None) -> dict[str, Point]:
    """Each variant's best level, by one rule wherever one is named (the best peak pick, the console
    table's row, the plots' highlights, the Variant frontier, the peaks not reached; trial 9, F36: the
    report named c=1 and the console c=2 of the same variant): in a rounds sweep the paired ranking's
    (:func:`perf.analysis.ranking.operating.operating_point` of every level, over the round-adjusted
    throughput of the run's variants that did not fail, as :func:`~perf.analysis.ranking.rank.rank_variants`
    names its leader); in a run of trials (``run`` ``None``: at the default stability tolerance) the
    recommendation's rule, stable levels first (:func:`perf.analysis.stats.trials.rank`; the console named
    an unstable level's higher median beside a pick of the stable one below it), else, a variant without a
    level that rule ranks, its highest median (:func:`perf.analysis.stats.curves.peak`). A variant without
    one is left out. ``batch_size``: the best of each variant's levels at that client batch size, by the same rule
    (a Main effects pair, the Conclusions' why at the best's batch size; issue 26: those took the highest median
    there, another level than the one the Recommendation names where the paired rule names another); a variant
    without a level there is left out."""
    if batch_size is not None:
        points = {n: line for n, pts in points.items() if (line := curve(pts, batch_size))}
    tol = tolerance(run) if run is not None else DEFAULT_TOLERANCE_PCT
    out = {n: p for n, pts in points.items() if (p := rank(pts, tol)[0] or peak(pts)) is not None}
    if run is None or run.rounds is None:
        return out
    ok = [v for v in run.variants if v.status != "failed"]
    adjusted = Adjusted(ok)
    for v in ok:
        op = operating_point(v, None, adjusted=adjusted, backed=False, cores=host_cores(run), batch_size=batch_size)
        at = next((p for p in points.get(v.name, []) if at_side(p, op.side)), None) if op is not None else None
        if at is not None:
            out[v.name] = at
    return out


def at_side(p: Point, side: Side) -> bool:
    """Whether ``p`` is ``side``'s level (its concurrency and client batch size)."""
    return (p.concurrency, p.batch_size) == (side.concurrency, side.batch_size)
