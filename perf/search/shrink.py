"""The rule that shrinks a rounds plan to a time budget, one for the first plan
(:func:`perf.search.budget.fit`) and the plan fitted again after the loads
(:func:`perf.search.refit.refit`): the ladder's top is lowered first (``--concurrency auto``
only, never below its first coarse levels nor below ``floor``, the highest level a resumed run
measured before: those numbers stand, and a cut "concurrency above N not measured" beside them
would be false) while the rounds wanted do not fit; then variants go from the end of the
list (:func:`perf.search.promise.by_measurements`'s order, never below 2) while not even the rounds a verdict
needs (:data:`perf.analysis.ranking.operating.MIN_ROUNDS`) fit. Each caller words its own cuts.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from perf.analysis.ranking.operating import MIN_ROUNDS

#: The estimated seconds of ``n`` variants over ``levels`` for ``rounds`` rounds.
Cost = Callable[[int, Sequence[int], int], float]


@dataclasses.dataclass
class Shrunk:
    """What :func:`shrink` kept and dropped.

    Attributes:
        levels: The ladder's levels kept (its top lowered, or as given).
        kept: The variants kept, most promising first.
        dropped: ``(variant, n, cost)`` of each variant dropped, in the order dropped: the
            variants and the seconds the plan needed for the verdict's rounds with it still in
            (its cut's reason).
    """

    levels: list[int]
    kept: list[str]
    dropped: list[tuple[str, int, float]]


def shrink(
    names: Sequence[str],
    levels: Sequence[int],
    cost: Cost,
    budget_s: float,
    want: int,
    first_levels: int,
    adaptive: bool,
    floor: int = 0,
    verdict: int = MIN_ROUNDS,
) -> Shrunk:
    """Shrink the plan of ``names`` over ``levels`` to ``budget_s`` (module rule); ``want``: the
    rounds the ladder's top is lowered for; ``floor``: the top is not lowered below it; ``verdict``: the rounds
    a verdict still needs (a resume's run has some: :func:`perf.search.budget.wanted`)."""
    kept, lv, dropped = list(names), list(levels), []
    while adaptive and cost(len(kept), lv, want) > budget_s and len(lv) > max(first_levels, 1) and lv[-2] >= floor:
        lv.pop()
    while cost(len(kept), lv, verdict) > budget_s and len(kept) > 2:
        dropped.append((kept[-1], len(kept), cost(len(kept), lv, verdict)))
        kept.pop()
    return Shrunk(lv, kept, dropped)


def rounds_within(cost: Cost, n: int, levels: Sequence[int], want: int, budget_s: float) -> int:
    """The most rounds, up to ``want`` (at least 1), that ``n`` variants over ``levels`` fit in ``budget_s``."""
    rounds = want
    while rounds > 1 and cost(n, levels, rounds) > budget_s:
        rounds -= 1
    return rounds
