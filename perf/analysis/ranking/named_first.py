"""What a tied pick is named first by, in words (:mod:`perf.analysis.ranking.leader` decides it): the tie-set members
it trailed in the rounds they shared (:func:`trailed`), those it was named first over by its median over more rounds
(:func:`outsupported`), those it beats on both medians that the round-adjusted scale or their shared rounds put
first (:func:`overtook`), those of a higher median it was named first over by its round-adjusted throughput
(:func:`adjusted_over`) and those at whose knee it was named first by its latency (:func:`kneed`); read into
:class:`perf.analysis.recommendation.choice.Choice` by the recommendation."""

from __future__ import annotations

from collections.abc import Callable

from core.wording import count
from perf.analysis.ranking.leader import favoured, knee, overtakes, supported
from perf.analysis.ranking.levels_said import rival
from perf.analysis.ranking.operating import Comparison, Operating, compare
from perf.analysis.ranking.rank import Ranking
from perf.markdown import fmt
from perf.records.results import RunResult


def trailed(ranking: Ranking, run: RunResult | None = None) -> list[str]:
    """The tie-set members the leader trailed in the median of the rounds they shared, each with those rounds
    (``"`b` (1 round)"``): the leader rule let them stand (too few or too mixed rounds to move the order, a circle of
    medians, or a member another variant beats; :mod:`perf.analysis.ranking.leader`), so the pick is not named first by those rounds (trial 21, T21-9)."""
    ties = set(ranking.names[1:])
    lead, cmp, members = _against_leader(ranking, run)
    # those it beats on both medians are named first over by those (:func:`overtook`), not by round-adjusted throughput
    over = {o.side for o in members if lead is not None and overtakes(lead, o, cmp)}
    return [
        f"{rival(c, run)} ({count(len(c.rounds), 'round')})"
        for c in ranking.comparisons
        if c.b.variant in ties
        and c.result is not None
        and c.result.median < 1.0
        and (ranking.leader is None or c.a == ranking.leader.side)  # the pick's own level, not another of its side's
        and c.b not in over
    ]


def outsupported(ranking: Ranking, run: RunResult | None) -> list[str]:
    """The tie-set members the round-adjusted scale put above the leader that it was named first over by its median
    throughput over more rounds (:func:`perf.analysis.ranking.leader.supported`; trial 28, T28-1), each with the
    rounds of its median (``"`b` at c=4 (3 rounds)"``): the pick is not named first by the round-adjusted scale then."""
    lead, cmp, members = _against_leader(ranking, run)
    if lead is None or run is None:
        return []
    kept = [
        o
        for o in members
        if o.adjusted_infer_per_s > lead.adjusted_infer_per_s and supported(lead, o, cmp) and not overtakes(lead, o, cmp)
    ]  # those it beats on both medians: by those (overtook)
    return [f"{rival(cmp(lead, o), run)} ({count(o.rounds, 'round')})" for o in kept]


def overtook(ranking: Ranking, run: RunResult | None) -> list[str]:
    """The tie-set members the leader was named first over by its medians (:func:`perf.analysis.ranking.leader.overtakes`:
    a higher median throughput and a lower median latency, the rounds they shared not one-sided for the member) where
    the round-adjusted scale put the member above it or the leader trailed it in the median of their shared rounds,
    each with its numbers and those rounds (```a` at c=2 (512.0 infer/s, p99 26.50 ms; ahead in 2 of 4 shared
    rounds)``): the pick is named first by the medians then, not by either (trial 30, F10)."""
    lead, cmp, members = _against_leader(ranking, run)
    if lead is None or run is None:
        return []
    pct = ranking.latency_metric.removeprefix("latency_").removesuffix("_ms")
    said = []
    for o in members:
        c = cmp(lead, o)
        r = c.result
        if r is None or not overtakes(lead, o, cmp) or not (o.adjusted_infer_per_s > lead.adjusted_infer_per_s or r.median < 1.0):
            continue
        behind = sum(1 for x in r.ratios if x < 1.0)
        said.append(
            f"{rival(c, run)} ({fmt(o.throughput_infer_per_s)} infer/s, {pct} {fmt(o.latency_ms or 0.0, 2)} ms; ahead in "
            f"{behind} of {count(len(r.ratios), 'shared round')})"
        )
    return said


def adjusted_over(ranking: Ranking, run: RunResult | None) -> list[str]:
    """The tie-set members of a higher median throughput than the leader's that its round-adjusted throughput named it
    first over (:mod:`perf.analysis.ranking.leader`: the rounds they shared put the leader ahead or level, not
    one-sidedly; not at their knee), each with the numbers that decided and those that did not (trial 30, F10: a
    bundle deployed for the member of the lower median, the words saying it was named "by throughput in the rounds it
    shared"): ```b` at c=4 (round-adjusted 1,844.4 infer/s against the pick's 2,052.1; its median higher, 2,076.0
    against 1,740.0; the pick ahead in 4 of 6 shared rounds)``."""
    lead, cmp, members = _against_leader(ranking, run)
    if lead is None or run is None or ranking.batching_off:
        return []
    said = []
    for o in members:
        c = cmp(lead, o)
        r = c.result
        if r is None or o.throughput_infer_per_s <= lead.throughput_infer_per_s or r.median < 1.0:
            continue  # a lower median; or the pick trailed it: said by trailed()
        if favoured(r) == "a" or knee(lead, o, cmp):
            continue  # named first over it by those rounds, or by its latency at its knee
        ahead = sum(1 for x in r.ratios if x > 1.0)
        said.append(
            f"{rival(c, run)} (round-adjusted {fmt(o.adjusted_infer_per_s)} infer/s against the pick's "
            f"{fmt(lead.adjusted_infer_per_s)}; its median higher, {fmt(o.throughput_infer_per_s)} against "
            f"{fmt(lead.throughput_infer_per_s)}; the pick ahead in {ahead} of {count(len(r.ratios), 'shared round')})"
        )
    return said


def kneed(ranking: Ranking, run: RunResult | None) -> list[str]:
    """The tie-set members the leader was named first over at their knee (:func:`perf.analysis.ranking.leader.knee`:
    as much throughput by the medians, a latency far lower and lower in every shared round), each with the rounds
    they shared (``"`b` (3 rounds)"``): the pick is named first by its latency there, not by its throughput (trial
    22, F-mixed-pick)."""
    lead, cmp, members = _against_leader(ranking, run)
    if lead is None or run is None:
        return []
    kept = [o for o in members if knee(lead, o, cmp) and not overtakes(lead, o, cmp)]  # overtook's, those
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
