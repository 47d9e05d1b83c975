"""What a tied pick is named first by, in words (:mod:`perf.analysis.ranking.leader` decides it): the tie-set members
it trailed in the rounds they shared (:func:`trailed`), those it was named first over by its median over more rounds
(:func:`outsupported`) and those at whose knee it was named first by its latency (:func:`kneed`); read into
:class:`perf.analysis.recommendation.choice.Choice` by the recommendation."""

from __future__ import annotations

from collections.abc import Callable

from core.wording import count
from perf.analysis.ranking.leader import knee, supported
from perf.analysis.ranking.levels_said import rival
from perf.analysis.ranking.operating import Comparison, Operating, compare
from perf.analysis.ranking.rank import Ranking
from perf.records.results import RunResult


def trailed(ranking: Ranking, run: RunResult | None = None) -> list[str]:
    """The tie-set members the leader trailed in the median of the rounds they shared, each with those rounds
    (``"`b` (1 round)"``): the leader rule let them stand (too few or too mixed rounds to move the order, a circle of
    medians, or a member another variant beats; :mod:`perf.analysis.ranking.leader`), so the pick is not named first by those rounds (trial 21, T21-9)."""
    ties = set(ranking.names[1:])
    return [
        f"{rival(c, run)} ({count(len(c.rounds), 'round')})"
        for c in ranking.comparisons
        if c.b.variant in ties
        and c.result is not None
        and c.result.median < 1.0
        and (ranking.leader is None or c.a == ranking.leader.side)  # the pick's own level, not another of its side's
    ]


def outsupported(ranking: Ranking, run: RunResult | None) -> list[str]:
    """The tie-set members the round-adjusted scale put above the leader that it was named first over by its median
    throughput over more rounds (:func:`perf.analysis.ranking.leader.supported`; trial 28, T28-1), each with the
    rounds of its median (``"`b` at c=4 (3 rounds)"``): the pick is not named first by the round-adjusted scale then."""
    lead, cmp, members = _against_leader(ranking, run)
    if lead is None or run is None:
        return []
    kept = [o for o in members if o.adjusted_infer_per_s > lead.adjusted_infer_per_s and supported(lead, o, cmp)]
    return [f"{rival(cmp(lead, o), run)} ({count(o.rounds, 'round')})" for o in kept]


def kneed(ranking: Ranking, run: RunResult | None) -> list[str]:
    """The tie-set members the leader was named first over at their knee (:func:`perf.analysis.ranking.leader.knee`:
    as much throughput by the medians, a latency far lower and lower in every shared round), each with the rounds
    they shared (``"`b` (3 rounds)"``): the pick is named first by its latency there, not by its throughput (trial
    22, F-mixed-pick)."""
    lead, cmp, members = _against_leader(ranking, run)
    if lead is None or run is None:
        return []
    kept = [o for o in members if knee(lead, o, cmp)]
    return [f"{rival(c, run)} ({count(len(c.rounds), 'round')})" for c in (cmp(lead, o) for o in kept)]


def _against_leader(
    ranking: Ranking, run: RunResult | None
) -> tuple[Operating | None, Callable[[Operating, Operating], Comparison], list[Operating]]:
    """What :func:`outsupported` and :func:`kneed` weigh the leader against: the leader, the comparison of two operating
    points of ``run`` (by ``ranking``'s latency metric) and the tie-set members after the leader that it can compare
    (none where the run does not hold the leader's variant, or there is no leader or run)."""
    lead = ranking.leader
    by_name = {v.name: v for v in run.variants} if run is not None else {}

    def cmp(x: Operating, y: Operating) -> Comparison:
        return compare(by_name[x.side.variant], x.side, by_name[y.side.variant], y.side, ranking.latency_metric)

    if lead is None or lead.side.variant not in by_name:
        return lead, cmp, []
    return lead, cmp, [o for o in ranking.tie_set[1:] if o.side.variant in by_name]
