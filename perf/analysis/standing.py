"""How a rounds sweep's pick stands against the other variants, in words: one source for every
place that names what the pick beats or its tie set — the recommendation line (console, report.md,
the deployment bundle's README: :meth:`perf.analysis.recommendation.Choice.verdict`), the report's
Paired ranking section and its table, and the Conclusions.

A tie-set member is whatever the pick does not beat by the paired rule
(:mod:`perf.analysis.ranking`), which is not always evidence that the two are alike:

- a member that shared the rule's rounds (:data:`perf.analysis.ranking.MIN_ROUNDS`) with the pick
  and was not separated is *not distinguishable at this noise*;
- a member that shared fewer rounds but was behind (or ahead) in every one of them is said so,
  with its range of ratios: "behind in every one of its 3 rounds, 3.54–9.96 times; too few rounds
  for the rule to call it" (the large-gap tier of :mod:`perf.analysis.paired` did not call it:
  its rounds disagree too much in size) — never as a tie;
- any other member with fewer rounds is *too few rounds to tell*.

The rounds engine (:mod:`perf.search.rounds`) says why its rounds ended in the same words
(:func:`ranked_words`, :func:`settled_words`): which ranking it decided (under the latency budget,
or by peak when no variant in contention has a level within it), and of a tie set it settled
because the rounds left could not separate it, which members shared too few rounds with the
leader to tell, as the report's tie-set words say of them.

What the pick beats is counted against every variant of the run, with the others said: those
without a level to rank (under a budget: none within it), those never measured (cut for time)
and those that failed.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from core.wording import count
from perf.analysis.ranking import MIN_ROUNDS, Comparison, Ranking
from perf.markdown import fmt_given
from perf.records.results import RunResult

#: Names listed before the rest are only counted.
NAMED = 3


def consistent(c: Comparison) -> str | None:
    """``"behind"`` when the runner-up was behind the pick in every shared round, ``"ahead"`` when
    ahead in every one, of a comparison with fewer rounds than the rule needs and no verdict;
    ``None`` otherwise."""
    r = c.result
    if r is None or c.verdict != "not distinguishable" or len(c.rounds) >= MIN_ROUNDS or not r.rounds:
        return None
    return "behind" if r.wins == r.rounds else "ahead" if r.losses == r.rounds else None


def _times(c: Comparison, way: str) -> str:
    """``"3.54–9.96 times"``: the runner-up's range of per-round ratios, as the pick's lead
    (``way`` ``"behind"``) or its own (``"ahead"``)."""
    r = c.result
    assert r is not None
    lo, hi = (r.low, r.high) if way == "behind" else (1 / r.high, 1 / r.low)
    return f"{lo:.2f}–{hi:.2f} times"


def member_words(c: Comparison, with_ratios: bool = True) -> str:
    """A tie-set member's comparison with the pick in words (module docstring), without its name:
    ``"not distinguishable at this noise"``, ``"behind the pick in every one of its 3 rounds,
    3.54–9.96 times; too few rounds for the rule to call it"``, ``"too few rounds to tell (2
    rounds)"`` (``with_ratios=False``: without the times, for a table that shows them beside it)."""
    way = consistent(c)
    n = len(c.rounds)
    if way is not None:
        times = f", {_times(c, way)}" if with_ratios else ""
        side = "behind the pick" if way == "behind" else "ahead of the pick"
        return f"{side} in every one of its {count(n, 'round')}{times}; too few rounds for the rule to call it"
    if n >= MIN_ROUNDS:
        return "not distinguishable at this noise"
    return f"too few rounds to tell ({count(n, 'round') if n else 'never in the same round'})"


def ranked_words(budget_ms: float | None, percentile: int, met: bool) -> str:
    """Which ranking a rounds sweep's engine decides (:meth:`perf.search.rounds.Rounds.ranked`):
    ``"ranking"`` without a latency budget; ``"ranking under the p99 budget of 5.125 ms"`` (the
    budget as given) when a variant in contention has a level within it (``met``); else
    ``"no variant in contention has a level within the p99 budget of 5.125 ms: peak ranking"``."""
    if budget_ms is None:
        return "ranking"
    budget = f"p{percentile} budget of {fmt_given(budget_ms)} ms"
    return f"ranking under the {budget}" if met else f"no variant in contention has a level within the {budget}: peak ranking"


def settled_words(tied: Sequence[Comparison], rounds_left: int, max_rounds: int) -> str:
    """Why a tie set is settled: the rounds left (up to ``max_rounds``) could not separate the
    leader from ``tied`` (its comparisons, none a verdict), even all going one way
    (:meth:`perf.analysis.ranking.Comparison.can_separate`). A member that shared fewer than
    :data:`~perf.analysis.ranking.MIN_ROUNDS` rounds with the leader is said as the report's
    tie-set words say it (:func:`member_words`): settled by the rounds a group gets, not by a
    verdict. The set is named sorted, not leader first: the report ranks every variant (dropped
    ones too) and may name another member of it first."""
    names = ", ".join(f"`{n}`" for n in sorted({c.a.variant for c in tied} | {c.b.variant for c in tied}))
    if rounds_left == 0:
        text = f"the rule did not separate the tie set {names} in the {count(max_rounds, 'round')} a group gets at most"
    else:
        left = "the round left" if rounds_left == 1 else f"the {rounds_left} rounds left"
        text = f"{left} could not separate the tie set {names}, even all going one way"
    for c in tied:
        n, way = len(c.rounds), consistent(c)
        if way is not None:
            side = "behind" if way == "behind" else "ahead of"
            text += f"; `{c.b.variant}` was {side} the leader in every one of its {count(n, 'round')}: too few rounds for the rule to call it"
        elif n < MIN_ROUNDS:
            shared = f"shared {count(n, 'round')} with the leader" if n else "never shared a round with the leader"
            text += f"; `{c.b.variant}` {shared}: too few rounds to tell (a verdict needs {MIN_ROUNDS})"
    return text


def _members(ranking: Ranking) -> list[Comparison]:
    tied = set(ranking.names[1:])
    return [c for c in ranking.comparisons if c.b.variant in tied]


def _names(names: Sequence[str]) -> str:
    shown = ", ".join(f"`{n}`" for n in names[:NAMED])
    return shown + (f" and {len(names) - NAMED} more" if len(names) > NAMED else "")


def tie_words(ranking: Ranking) -> str:
    """The tie set (without the pick) in words, grouped as the module docstring says:
    ``"not distinguishable at this noise from `a`; behind it in every round they shared, too few
    for the rule to call: `b` (3 rounds, 3.54–9.96 times), `c` (...); too few rounds to tell: `d` (2 rounds)"``."""
    members = _members(ranking)
    full = [c.b.variant for c in members if consistent(c) is None and len(c.rounds) >= MIN_ROUNDS]
    short = [c for c in members if consistent(c) is None and len(c.rounds) < MIN_ROUNDS]
    parts = [f"not distinguishable at this noise from {_names(full)}"] if full else []
    for way, side in (("ahead", "ahead of it"), ("behind", "behind it")):
        steady = [c for c in members if consistent(c) == way]
        if steady:
            said = [f"`{c.b.variant}` ({count(len(c.rounds), 'round')}, {_times(c, way)})" for c in steady]
            they = "it" if len(steady) == 1 else "they"
            parts.append(f"{side} in every round {they} shared, too few for the rule to call: {', '.join(said)}")
    if short:
        said = [f"`{c.b.variant}` ({count(len(c.rounds), 'round') if c.rounds else 'never in the same round'})" for c in short]
        parts.append("too few rounds to tell: " + ", ".join(said))
    return "; ".join(parts)


def others_words(ranking: Ranking, run: RunResult | None, under_budget: bool) -> str:
    """What the pick is counted against: ``"5 of the 7 others; 2 have no level within the budget:
    `a`, `b`"`` (``"5"`` without a run, or when every other variant is ranked). The others: those
    without an operating point (``"no level within the budget"`` under a budget, else ``"no level
    to rank"``), the never-measured ones (``"not measured: cut for time"``) and failed ones."""
    beaten = len(ranking.beaten())
    if run is None:
        return str(beaten)
    ranked = {ranking.leader.side.variant} if ranking.leader else set()
    ranked |= {c.b.variant for c in ranking.comparisons}
    cut = _cut(run)
    failed = [v.name for v in run.variants if v.status == "failed"]
    never = [n for n in ranking.unranked if n in cut]
    unranked = [n for n in ranking.unranked if n not in cut]
    others = len(run.variants) - 1 - len(ranking.other_sizes)
    if others <= beaten:
        return str(beaten)
    said = [f"{beaten} of the {others} others"]
    no_level = "no level within the budget" if under_budget else "no level to rank"
    for names, one, many in (
        (unranked, f"has {no_level}", f"have {no_level}"),
        (never, "was not measured: cut for time", "were not measured: cut for time"),
        (failed, "failed", "failed"),
    ):
        if names:
            said.append(f"{len(names)} {one if len(names) == 1 else many}: {_names(names)}")
    return "; ".join(said)


def _cut(run: RunResult) -> Collection[str]:
    return {c.variant for c in (run.rounds.cuts if run.rounds else []) if c.kind == "variant" and c.variant}


def few_rounds(rounds: int | None, beats_all: bool) -> str | None:
    """``"measured in 2 rounds, fewer than the 6 a verdict needs"``: a rounds sweep's pick whose level
    rests on fewer rounds than the paired rule needs (trial 7: a pick and a bundle on 2 of 6 planned
    rounds, said nowhere); ``None`` when it has them, is no rounds sweep's (``rounds`` ``None``), or
    beats every other anyway (``beats_all``: a large gap, its verdict says so)."""
    if rounds is None or rounds >= MIN_ROUNDS or beats_all:
        return None
    return f"measured in {count(rounds, 'round')}, fewer than the {MIN_ROUNDS} a verdict needs"
