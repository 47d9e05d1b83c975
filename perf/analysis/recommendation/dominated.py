"""A best under the budget (or best peak: trial 30, F10) that the report's own Pareto frontier shows dominated (trial
16, T16-1).

The pick of a rounds sweep is the paired ranking's leader (:mod:`perf.analysis.recommendation.recommend`);
the Pareto frontier (:mod:`perf.analysis.recommendation.frontier`) compares the levels' medians, each over
its own rounds. The two can disagree: with ``--shapes seq=8,128`` the seq=128 pick (116.5 infer/s,
p99 23.92 ms over 5 rounds) was below that workload's frontier, whose ``ts`` c=1 level (232.6 infer/s,
p99 8.86 ms, within the budget) had been measured in one round, the one round they shared, in which the
pick was ahead: a pick resting on one round, while the table beside it showed another level better on
both axes, and no word in the pick's line.

Rule (:func:`dominated`): another series of the pick's client workload with a level within the budget that
dominates the pick's level on the frontier's terms (median throughput and median latency at the budget's
percentile, :func:`dominates`) is compared with it by the paired rule
over the rounds the two levels shared (:func:`perf.analysis.ranking.operating.compare`). Unless the rule puts
the pick ahead, the pick's line says plainly that the verdict between the two is **not decided**, with the
rounds each was measured in (a wrong "best" is worse than "not decided"); where the rule does put it ahead,
the line says why the frontier's level is not the pick (their medians are over different rounds). The
frontier plot's mark of the pick says the same (:mod:`perf.plots.picks`).
"""

from __future__ import annotations

from collections.abc import Mapping

from core.wording import count
from perf.analysis.build_checks import named
from perf.analysis.ranking.operating import compare, side_of
from perf.analysis.recommendation.choice import Choice
from perf.analysis.recommendation.excluded import candidate
from perf.analysis.stats.points import P99, THROUGHPUT, Point
from perf.markdown import fmt
from perf.records.results import RunResult
from perf.records.workloads import workload


def dominates(a: Point, b: Point, metric: str = P99) -> bool:
    """Whether ``a`` is at least as good as ``b`` on throughput (higher) and the latency ``metric`` (lower; default
    p99), and better on one: the Pareto frontier's rule (:mod:`perf.analysis.recommendation.frontier`). Both must be
    candidates (a throughput and a p99) with that latency."""
    ta, tb, la, lb = a.value(THROUGHPUT), b.value(THROUGHPUT), a.value(metric), b.value(metric)
    return ta >= tb and la <= lb and (ta > tb or la < lb)


def dominated(
    run: RunResult, points: Mapping[str, list[Point]], pick: Choice, budget_ms: float | None, metric: str, percentile: int
) -> tuple[str, str, str] | None:
    """The words of the pick's line, its short mark (module rule) and the rival's variant name when a level of
    another series of its client workload, within ``budget_ms`` on ``metric`` (the budget's percentile,
    ``percentile``; ``None``: the best peak's, any level), dominates the pick's level; ``None`` when none does. The
    rival said is the one with the most infer/s (:attr:`perf.analysis.recommendation.choice.Choice.dominated_by`).
    The leader rule names such a level first where they shared a round not one-sided for the pick
    (:func:`perf.analysis.ranking.leader.overtaken`); this says the rest (trial 30, F10)."""
    series = {v.name: v for v in run.variants if v.status != "failed"}
    own = series.get(pick.variant)
    at = next((p for p in points.get(pick.variant, []) if pick.at(p.concurrency, p.batch_size) and candidate(p)), None)
    if own is None or at is None or at.get(metric) is None:
        return None
    rivals = [
        p
        for name, vr in series.items()
        if name != pick.variant and workload(vr) == workload(own)
        for p in points.get(name, [])
        if candidate(p)
        and (lat := p.get(metric)) is not None
        and (budget_ms is None or lat <= budget_ms)
        and dominates(p, at, metric)
    ]
    if not rivals:
        return None
    r = max(rivals, key=lambda p: p.value(THROUGHPUT))
    comp = compare(own, side_of(own, at), series[r.variant], side_of(series[r.variant], r), metric)
    pct, who = f"p{percentile}", named(run, r.variant)  # with its build's verdict, as every name beside a pick
    medians = (
        f"by their medians (each over its own rounds) {who} at concurrency {r.concurrency} has the higher "
        f"throughput and the lower {pct}: {fmt(r.value(THROUGHPUT))} infer/s, {pct} {fmt(r.get(metric), 2)} ms over "
        f"{count(r.trials, 'round')} against the pick's {fmt(at.value(THROUGHPUT))} infer/s, {fmt(at.get(metric), 2)} ms "
        f"over {count(at.trials, 'round')}, so the Pareto frontier holds it and not the pick"
    )
    shared = len(comp.rounds)
    if comp.verdict == "a":
        return (
            f"below the Pareto frontier: {medians}; in the {count(shared, 'round')} they shared the rule put the pick ahead",
            f"below the frontier: ahead of {who} c={r.concurrency} by the rule in {count(shared, 'shared round')}",
            r.variant,
        )
    ahead = sum(1 for x in comp.result.ratios if x > 1.0) if comp.result is not None else 0
    evidence = (
        f"in the {count(shared, 'round')} they shared the pick was ahead on throughput in {ahead}, "
        f"which the rule does not call ({comp.verdict_words()})"
        if shared
        else "they were never measured in the same round"
    )
    return (
        f"**not decided** between it and {who} at concurrency {r.concurrency} (measured in "
        f"{count(r.trials, 'round')}): {medians}; {evidence}",
        f"not decided: {who} c={r.concurrency} ({count(r.trials, 'round')}) better on both by the medians; "
        + (f"the pick ahead in {ahead} of {count(shared, 'shared round')}" if shared else "never in a round with it"),
        r.variant,
    )
