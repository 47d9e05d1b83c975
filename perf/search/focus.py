"""Which levels of each contender the next round measures, beyond its own ladder: the search
(``--search prune``) spends no visit on a question the rounds have already answered. The rounds
engine (:mod:`perf.search.rounds`) applies it after every round, once the ladders are updated and
the beaten variants dropped; brute force (``--search brute``) narrows no round (its ladders still
retire the levels behind each variant's best, :mod:`perf.search.ladder`; an explicit level list is
measured whole every round).

Rules (on the paired ranking of the contenders, :func:`perf.analysis.ranking.rank.rank_variants`):

* **A settled tie rests.** A contender whose comparison with the leader is "not
  distinguishable" on at least :data:`~perf.analysis.ranking.operating.MIN_ROUNDS` shared rounds (what
  the sign test needs to call anything, so the tie-set words stay "not distinguishable at this noise"), and
  which the rounds left could not separate even all going one way
  (:meth:`perf.analysis.ranking.operating.Comparison.can_separate`), is not measured while that variant
  leads: more rounds cannot change its verdict (a futility stop, as group-sequential trials and
  racing designs stop sampling an arm whose outcome is settled). Its rounds stay in the
  results; it is measured again when another variant takes the lead. Not while its ladder may
  still move its operating point (climbing, or a level with too few rounds).
* **Far behind: only the level it is compared at.** A contender the leader is ahead of by more
  than :data:`FAR_GAP` (2x) in every shared round, not yet called by the rule, is measured at
  its compared level only until the rule calls it (then it is dropped; :mod:`perf.search.rounds`
  drops it even while its ladder adds a level): the levels its ladder adds next to its best
  cannot lift it that far. Not while its ladder still climbs (its top step paid: its coarse
  ladder's next level, 4x the concurrency, may), nor while a level of its ladder above the compared
  one has fewer than ``min_rounds`` rounds and could lift it that far (:func:`reach`; trial 22,
  F-prune-c1: a ladder ended at the time budget's cap, concurrency 4, before its c=4 had a round; the
  variant was measured at c=1 only, then dropped on c=1 against the leader's c=4, 4.24x, where its c=4
  was 1.6x behind).

The leader is always measured at every active level of its ladder.
"""

from __future__ import annotations

from collections.abc import Mapping

from perf.analysis.ranking.operating import MIN_ROUNDS, Comparison, per_round
from perf.analysis.ranking.rank import Ranking
from perf.analysis.stats.paired import FAR_GAP
from perf.records.results import VariantResult
from perf.records.rounds import RoundRules
from perf.records.search import SearchRules
from perf.search import ladder as ladders
from perf.search.plan import VariantPlan, at_workload, side

# FAR_GAP (perf.analysis.stats.paired, the one source): a contender behind the leader by more than it in every
# shared round cannot be lifted to it by the doubling level next to its best: in a closed loop (perf_analyzer's
# concurrency mode) doubling the concurrency N at most doubles the throughput X, since X = N / R (Little's law)
# and the mean response time R does not fall as N rises (closed queueing networks; mean value analysis). From
# GAP_ROUNDS shared rounds the paired rule calls such a gap itself; this narrows the rounds before that.


def far_behind(comp: Comparison) -> bool:
    """The leader is ahead of ``comp``'s other side by more than :data:`FAR_GAP` in every shared round."""
    return comp.result is not None and comp.result.low > FAR_GAP


def reach(lad: ladders.Ladder, plan: VariantPlan, vr: VariantResult, rounds: RoundRules, at: int) -> float:
    """How many times its throughput at concurrency ``at`` a level of ``lad`` (``plan``'s one client workload) not yet
    measured on ``min_rounds`` rounds, not retired nor failed, could still lift the variant: ``c / at`` for its highest such
    level ``c`` above ``at`` (Little's law, above), 1.0 when none. Such a level is measured before a gap under that is
    taken for final (module rule "Far behind"; :func:`perf.search.after_round.prune`)."""
    failed = lad.end.concurrency if lad.end is not None and lad.end.rule == "failed" else None  # not measured again
    open_ = [
        c
        for c in lad.levels
        if c > at and c not in lad.retired_why and c != failed and len(per_round(vr, side(plan, c))) < rounds.min_rounds
    ]
    return max(open_, default=at) / at if at > 0 else 1.0


def out_of_reach(comp: Comparison, lanes: ladders.Lanes, plan: VariantPlan, vr: VariantResult, rounds: RoundRules) -> bool:
    """The leader is ahead of ``comp``'s other side in every shared round by more than :data:`FAR_GAP` and more than
    its levels still to be measured at that comparison's client workload could lift it (:func:`reach`)."""
    load, at = (comp.b.batch_size, comp.b.shape), comp.b.concurrency
    lift = max((reach(lad, at_workload(plan, w), vr, rounds, at) for w, lad in lanes.items() if w == load or len(lanes) == 1), default=1.0)  # fmt: skip
    return far_behind(comp) and comp.result is not None and comp.result.low > lift


def focus(
    rank: Ranking,
    lads: Mapping[str, ladders.Ladder],
    plans: Mapping[str, VariantPlan],
    variants: Mapping[str, VariantResult],
    rules: SearchRules,
    rounds: RoundRules,
    rounds_left: int,
) -> dict[str, list[int]]:
    """The contenders whose next round is narrowed (module rules): name -> the levels it measures
    (``[]``: it rests). Contenders not named measure their ladder's active levels."""
    out: dict[str, list[int]] = {}
    if rank.leader is None:
        return out
    for comp in rank.comparisons:
        name = comp.b.variant
        lad, plan, vr = lads.get(name), plans.get(name), variants.get(name)
        if lad is None or plan is None or vr is None or comp.verdict == "a" or comp.result is None:
            continue
        if ladders.climbing(lad, plan, vr, rules):
            continue
        if (
            comp.verdict != "b"
            and out_of_reach(comp, {(comp.b.batch_size, comp.b.shape): lad}, plan, vr, rounds)
            and comp.b.concurrency in lad.levels
        ):
            out[name] = [comp.b.concurrency]
        elif (
            comp.verdict == "not distinguishable"
            and len(comp.rounds) >= MIN_ROUNDS
            and not comp.can_separate(rounds_left)
            and not ladders.exploring(lad, plan, vr, rounds)
        ):
            out[name] = []
    return out
