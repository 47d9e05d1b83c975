"""At which level a rounds sweep compared a variant with the pick (trial 13, T13-18).

A variant is ranked at its operating point (:func:`perf.analysis.ranking.operating.operating_point`): the
best of its levels with the rounds a comparison rests on. Its best level by the paired ranking whatever
its rounds (:func:`perf.analysis.saturation.best_level.best_levels`: the console table's row) can be another,
measured in too few rounds to be compared; the console showed such a row (433.2 infer/s, p99 26.16 ms at
c=2) beside the pick's variant, better on both numbers, and nothing said that the pick had been compared
with it at c=1. :func:`compared_elsewhere` finds that case and :func:`elsewhere_words` says it, as one
clause of a row's note.
"""

from __future__ import annotations

from core.wording import count
from perf.analysis.ranking.operating import Comparison
from perf.analysis.ranking.rank import Ranking

#: A comparison's verdict from the pick's side, short (``Comparison.verdict``).
_VERDICT = {"a": "the pick ahead", "b": "ahead of the pick", "not distinguishable": "not distinguishable"}


def compared_elsewhere(ranking: Ranking | None, variant: str, concurrency: int, batch_size: int = 1) -> Comparison | None:
    """The comparison of ``ranking``'s leader with ``variant`` when it was made at another level of
    ``variant`` than ``concurrency`` (at client batch size ``batch_size``); ``None`` when it was made at
    that level, ``variant`` is the leader or was not compared."""
    if ranking is None or ranking.leader is None or ranking.leader.side.variant == variant:
        return None
    c = next((c for c in ranking.comparisons if c.b.variant == variant), None)
    if c is None or (c.b.concurrency, c.b.batch_size) == (concurrency, batch_size):
        return None
    return c


def compared_here(ranking: Ranking | None, variant: str, concurrency: int, batch_size: int = 1) -> Comparison | None:
    """The comparison of ``ranking``'s leader with ``variant`` when it was made at that very level (``concurrency``,
    ``batch_size``); ``None`` otherwise (trial 27, T27-15: a row said its level "not compared with the pick" by the
    budget's ranking, which took another level, while the best peak's ranking, the same pick, compared exactly it)."""
    if ranking is None or ranking.leader is None or ranking.leader.side.variant == variant:
        return None
    c = next((c for c in ranking.comparisons if c.b.variant == variant), None)
    return c if c is not None and (c.b.concurrency, c.b.batch_size) == (concurrency, batch_size) else None


def elsewhere_words(c: Comparison, pick: str, ranking: Ranking | None = None) -> str:
    """``"compared with the best under budget at c=1 (2 rounds): not distinguishable"``, or where every round
    went one way, ``"...: the pick ahead in every one, not called (too few rounds)"`` (``pick``: what the leader
    was picked as); a verdict another variant of ``ranking`` reached in the pick's place
    (:meth:`~perf.analysis.ranking.rank.Ranking.beaten_through`), ``"not compared with the best under budget:
    `x` at c=4 beats it at c=1 (the search dropped it)"`` (trial 26, T26-1)."""
    level = f"c={c.b.concurrency}" + (f", b={c.b.batch_size}" if c.b.batch_size != 1 else "")
    if ranking is not None and c.verdict == "a" and not ranking.own(c):
        return f"not compared with the {pick}: `{c.a.variant}` at {c.a.level()} beats it at {level} (the search dropped it)"
    if c.result is None:
        return f"compared with the {pick} at {level}: no round shared"
    said = f"compared with the {pick} at {level} ({count(c.result.rounds, 'round')})"
    if (why := c.result.uncalled(short=True)) is not None:  # every round one way: not "not distinguishable" (trial 15, T15-2)
        return f"{said}: {'the pick' if c.result.wins else 'it'} ahead in every one, not called ({why})"
    return f"{said}: {_VERDICT[c.verdict]}"
