"""Which variant of a rounds sweep leads the paired ranking (:func:`perf.analysis.ranking.rank.rank_variants`), and
which level of a variant is its best (:func:`perf.analysis.ranking.operating.best_of`): one rule for both (issue 26:
a variant's best level was the round-adjusted throughput's first alone, behind another of its levels in 2 of 3
shared rounds).

Rule: among the operating points no other beats by the paired rule (:mod:`perf.analysis.stats.paired`),
the one with the highest round-adjusted throughput (:class:`perf.analysis.ranking.operating.Adjusted`) is
the first candidate; a candidate behind another unbeaten one in the median of their shared
rounds' throughput ratios gives its place to the one furthest ahead of it, until no unbeaten
variant is ahead of the candidate (or the medians go round in a circle: then the round-adjusted
order decides). The round-adjusted throughput mixes every round of a variant, also rounds
the other never had (a late group, a level added later); the median of the shared rounds is
what the tie-set table shows, so the variant named first is never one that trailed another
member in the rounds both had (a trial's report named a pick "for its higher round-adjusted
throughput" above a runner-up ahead of it in 3 of 3 shared rounds, median ratio 0.73).
When every variant is beaten by another (a cycle of verdicts), the round-adjusted order decides.
A median of fewer than :data:`~perf.analysis.stats.paired.GAP_ROUNDS` shared rounds moves no one (trial 19,
T19-20: after a resume's final group, one shared round, 1,001 against 926 infer/s on a busy host, named a
variant of 755 infer/s over 3 rounds first above one of 1,567 over 7): the fewest rounds any tier of the rule
calls a difference on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from perf.analysis.stats.paired import GAP_ROUNDS

#: :class:`perf.analysis.ranking.operating.Operating` (not imported: the ranking imports this module).
Op = TypeVar("Op")


def choose(ops: Sequence[Op], cmp: Callable[[Op, Op], Any]) -> Op | None:
    """The leader of ``ops`` (sorted by round-adjusted throughput, highest first) by the module rule: of variants'
    operating points, or of one variant's levels.

    Args:
        ops: Operating points (:class:`perf.analysis.ranking.operating.Operating`), highest round-adjusted throughput first.
        cmp: The paired comparison of two of them (:func:`perf.analysis.ranking.operating.compare`: ``a`` vs ``b``).
    """
    unbeaten = [o for o in ops if not any(cmp(other, o).verdict == "a" for other in ops if other is not o)]
    if not unbeaten:
        return ops[0] if ops else None
    leader, seen = unbeaten[0], {id(unbeaten[0])}
    while True:
        shared = [(o, c.result) for o in unbeaten if o is not leader and (c := cmp(leader, o)).result is not None]
        behind = [(r.median, o) for o, r in shared if len(r.ratios) >= GAP_ROUNDS]
        ahead = [(m, o) for m, o in behind if m < 1.0]
        if not ahead:
            return leader
        nxt = min(ahead, key=lambda t: t[0])[1]
        if id(nxt) in seen:  # the medians go round: the round-adjusted order decides
            return unbeaten[0]
        leader = nxt
        seen.add(id(nxt))
