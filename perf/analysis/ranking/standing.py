"""How a rounds sweep's pick stands against the other variants, in words: one source for every
place that names what the pick beats or its tie set — the recommendation line (console, report.md,
the deployment bundle's README: :meth:`perf.analysis.recommendation.choice.Choice.verdict`), the report's
Paired ranking section and its table, and the Conclusions.

A tie-set member is whatever the pick does not beat by the paired rule
(:mod:`perf.analysis.ranking.rank`), which is not always evidence that the two are alike:

- a member that shared the rule's rounds (:data:`perf.analysis.ranking.operating.MIN_ROUNDS`) with the pick
  and was not separated is *not distinguishable at this noise*;
- a member that shared fewer rounds but was behind (or ahead) in every one of them is said so,
  with its range of ratios and why the rule did not call it (:func:`uncalled`: too few rounds for
  the large-gap tier of :mod:`perf.analysis.stats.paired`, a round apart by less than its 1.1×, or its
  rounds too uneven for its t-test while one of them is apart by no more than
  :data:`~perf.analysis.stats.paired.FAR_GAP` (2×)): "behind in every one of its 3 rounds, 1.51–8.61 times;
  by too uneven an amount for 3 rounds to tell (large consistent gap t-test p = 0.069, needs ≤ 0.005, or every
  round more than 2× apart), and the sign test needs 6 rounds all one way: more rounds could tell" — never as a
  tie. Every round more than 2× apart is called from 3 rounds (the far tier, trial 17, T17-1: 3.54–9.96×,
  trial 15's example here, is called now: the pick beats it);
- any other member with fewer rounds is *too few rounds to tell*.

A variant whose level never shared a round with the pick's is *not compared*
(:func:`uncompared`): not a tie-set member, never "not
distinguishable", never "as good a choice"; it is named beside the tie set (:func:`perf.analysis.ranking.standing_words.rest_parts`).
One rule sorts every comparison without a verdict (:func:`kind`): the recommendation line, the
report's tie set and table, the rounds engine's end words and the bundle's README all read it.

A pair the search's settle rule left without a verdict because the rounds its group could still
have had, all going one way, could not reach the rule (:func:`settled`) is *not distinguishable at
this noise*, with why (:func:`settled_text`), whatever its rounds: more rounds were not what it
lacked (trial 9, F37: a run stopped at 5 rounds because 5 more could not separate its tie set, then
said "too few rounds to tell (a verdict needs 6)" with 327 s of its 360 s budget unused). Only of a
pair the rule could have called had every round agreed (its rounds and the rounds left reach the
large-gap tier's): of one with no round, or too few ever to decide, more rounds *were* what it lacked.

The rounds engine (:mod:`perf.search.rounds`) says why its rounds ended in the same words
(:func:`ranked_words`, :func:`settled_words`): which ranking it decided (under the latency budget,
or by peak when no variant in contention has a level within it), and of a tie set it settled
because the rounds left could not separate it, which members shared too few rounds with the
leader to tell, as the report's tie-set words say of them.

What the pick beats is counted against every variant of the run, with the others said: those
without a level to rank (under a budget: none within it, with the lowest latency each reached),
those never measured (cut for time) and those that failed; a tie set's pick says the same of the
variants outside its tie set (:func:`perf.analysis.ranking.standing_words.outside_words`), so every variant is accounted for.
What it beats is its own verdicts only (:meth:`perf.analysis.ranking.rank.Ranking.beaten`); a runner-up another variant
beat in its place (the search dropped it) is said with that variant and how the pick stands against it
(:func:`perf.analysis.ranking.standing_words.through_parts`), never as beaten by the pick, and a pick with such
runner-ups is never said to beat "every other ranked variant" (:func:`perf.analysis.ranking.standing_words.beats_words`,
the one wording; trial 26, T26-1).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from core.wording import count
from perf.analysis.ranking.levels_said import rival, rivals, shared_why
from perf.analysis.ranking.operating import MIN_ROUNDS, Comparison
from perf.analysis.ranking.rank import Ranking
from perf.analysis.stats.paired import GAP_ROUNDS
from perf.markdown import fmt_given, ratio_number, ratio_span
from perf.records.results import RunResult
from perf.records.workloads import variant_name

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


def times_words(c: Comparison, way: str) -> str:
    """``"3.54–9.96 times"``: the runner-up's range of per-round ratios, as the pick's lead
    (``way`` ``"behind"``) or its own (``"ahead"``); ``"2.37 times"`` for one value."""
    r = c.result
    assert r is not None
    lo, hi = (r.low, r.high) if way == "behind" else (1 / r.high, 1 / r.low)
    return f"{ratio_number(lo, 3)} times" if lo == hi else f"{ratio_span(lo, hi, 3)} times"


def every_round(n: int) -> str:
    """``"in every one of its 3 rounds"``, ``"in its only round"`` (trial 9: "every one of its 1 round")."""
    return "in its only round" if n == 1 else f"in every one of its {count(n, 'round')}"


def uncalled(c: Comparison, short: bool = False) -> str:
    """Why the rule did not call a member that was behind (or ahead of) the pick in every shared
    round (:func:`consistent`): the paired rule's own reason (:meth:`perf.analysis.stats.paired.Paired.uncalled`,
    trial 9: "too few rounds" beside 3 rounds the large-gap test had, and failed on their spread), ``"too few
    rounds"`` without a result. ``short``: for a list's parenthesis (``"too uneven for 3 rounds to tell, p 0.021
    (needs ≤ 0.005)"``)."""
    why = c.result.uncalled(short) if c.result is not None else None
    if why is not None:
        return why
    return (
        "too few rounds"
        if short
        else f"too few rounds for the rule to call it (a large gap needs {GAP_ROUNDS}, else {MIN_ROUNDS})"
    )


#: :func:`kind` of a comparison without a verdict: never in a common round; behind (or ahead) in
#: every shared round; the rule's rounds shared; settled by the rounds left; too few rounds to tell.
NOT_COMPARED, STEADY, FULL, SETTLED, SHORT = "not compared", "steady", "full", "settled", "short"
#: What a member never measured in the same round as the pick is, in words (:data:`NOT_COMPARED`).
NOT_COMPARED_WORDS = "not compared: never measured in the same round as the pick's level"


def kind(c: Comparison) -> str:
    """What a comparison the rule did not call says of the pair (module docstring), the one rule
    every tie-set sentence, table row and rounds end reads: :data:`NOT_COMPARED`, :data:`STEADY`
    (:func:`consistent`), :data:`FULL` (the rule's rounds shared), :data:`SETTLED` (:func:`settled`)
    or :data:`SHORT`."""
    if c.result is None:
        return NOT_COMPARED
    if consistent(c) is not None:
        return STEADY
    if len(c.rounds) >= MIN_ROUNDS:
        return FULL
    return SETTLED if settled(c) else SHORT


def uncompared(ranking: Ranking) -> list[Comparison]:
    """The leader's comparisons whose sides never shared a round (:data:`NOT_COMPARED`): neither beaten nor tied."""
    return [c for c in ranking.comparisons if kind(c) == NOT_COMPARED]


def contention(ranking: Ranking) -> list[str]:
    """What the rounds have not separated from the leader: its tie set (leader first), then the variants
    never compared with it (:func:`uncompared`: a search keeps measuring them, a final group holds them)."""
    return ranking.names + [c.b.variant for c in uncompared(ranking)]


def member_words(c: Comparison, with_ratios: bool = True, rounds_said: bool = False) -> str:
    """A tie-set member's comparison with the pick in words (module docstring), without its name:
    ``"not distinguishable at this noise"``, ``"behind the pick in every one of its 3 rounds,
    3.54–9.96 times; by too uneven an amount for 3 rounds to tell (... p = 0.021, needs ≤ 0.005), and the sign
    test needs 6 rounds"`` (:func:`uncalled`), ``"too few rounds to tell (2 rounds)"``
    (``with_ratios=False``: without the times, for a table that shows them beside it). ``rounds_said``: its rounds
    (and a settled pair's why) are said once for every member of a table (:func:`common_rounds`), not here."""
    k, n = kind(c), len(c.rounds)
    if k == NOT_COMPARED:
        return NOT_COMPARED_WORDS
    if k == STEADY:
        way = consistent(c) or "behind"
        times = f", {times_words(c, way)}" if with_ratios else ""
        side = "behind the pick" if way == "behind" else "ahead of the pick"
        return f"{side} {'in every round' if rounds_said else every_round(n)}{times}; {uncalled(c)}"
    if k == FULL:
        return "not distinguishable at this noise"
    if k == SETTLED:  # the search's settle rule: more rounds were not what it lacked
        return (
            "not distinguishable at this noise (further rounds could not have separated them)"
            if rounds_said
            else settled_verdict(c)
        )
    return "too few rounds to tell" if rounds_said else f"too few rounds to tell ({count(n, 'round')})"


def common_rounds(comparisons: Sequence[Comparison]) -> str | None:
    """What two or more rows of a table without a verdict (:func:`kind` :data:`STEADY`, :data:`SETTLED`, :data:`SHORT`)
    have in common, said once under it where every one shared the same rounds with the pick: ``"each shared 2
    rounds with the pick"``, and a settled pair's why (:func:`settled_text`) where each has the same rounds left;
    ``None`` otherwise (each row says its own: :func:`member_words`). A table gave each member's rounds per row,
    word for word (issue 26: 'too few rounds to tell (2 rounds)' on every row)."""
    rows = [c for c in comparisons if c.verdict not in ("a", "b") and kind(c) in (STEADY, SETTLED, SHORT)]
    if len(rows) < 2 or len({len(c.rounds) for c in rows}) != 1:
        return None
    said = f"each shared {count(len(rows[0].rounds), 'round')} with the pick"
    settle = {settled_text(c) for c in rows if kind(c) == SETTLED}
    if len(settle) > 1:  # each row says its own why
        return None
    return said + "".join(f"; {t}" for t in settle)


def rounds_left(run: RunResult, c: Comparison) -> int | None:
    """The rounds the last group holding both of ``c``'s variants could still have had: its
    ``max_rounds`` less the rounds it measured (:meth:`perf.records.rounds.RoundsRecord.group_rounds`,
    the count the settle rule used); ``None`` without a rounds record or such a group. A series of
    one client workload (:func:`perf.records.workloads.split_by_workload`) is looked up by its
    variant's name, the one a load group holds (trial 12, F19: by the series' names no group held the
    pair, and the report said "too few rounds to tell" of a pair the end line had settled)."""
    rr = run.rounds
    if rr is None:
        return None
    of = {v.name: variant_name(v) for v in run.variants}
    pair = {of.get(c.a.variant, c.a.variant), of.get(c.b.variant, c.b.variant)}
    both = [g for g in rr.groups if pair <= set(g.variants)]
    if not both:
        return None
    return max(0, rr.rules.max_rounds - len(rr.group_rounds(both[-1].index)))


def settled(c: Comparison) -> bool:
    """``c`` has no verdict and could not have had one: the rounds its group could still have had
    (:attr:`~perf.analysis.ranking.operating.Comparison.rounds_left`, at least one), all going one way, would
    not reach the rule, although its rounds and those left reach the large-gap tier's
    (:data:`~perf.analysis.stats.paired.GAP_ROUNDS`): the rounds it had stood in the way, not their
    number. Never of a pair without a common round (module docstring; trial 11, F9: "0 rounds;
    further rounds could not have separated them")."""
    k = c.rounds_left or 0
    if c.result is None or k <= 0 or len(c.rounds) + k < GAP_ROUNDS:
        return False
    return c.verdict == "not distinguishable" and not c.can_separate(k)


def settled_text(c: Comparison) -> str:
    """Why a :func:`settled` pair has no verdict: ``"further rounds could not have separated them:
    even the 5 more rounds its group could still have had, all going one way, would not reach the
    rule"``."""
    k = c.rounds_left or 0
    more = "the 1 more round" if k == 1 else f"the {k} more rounds"
    return f"further rounds could not have separated them: even {more} its group could still have had, all going one way, would not reach the rule"  # fmt: skip


def settled_verdict(c: Comparison) -> str:
    """A :func:`settled` pair's verdict in words: ``"not distinguishable at this noise (5 rounds; further rounds ...)"``."""
    return f"not distinguishable at this noise ({count(len(c.rounds), 'round')}; {settled_text(c)})"


def ranked_words(budget_ms: float | None, percentile: int, met: bool) -> str:
    """Which ranking a rounds sweep's engine decides (:meth:`perf.search.rounds.Rounds.ranked`):
    ``"ranking"`` without a latency budget; ``"ranking under the p99 budget of 5.125 ms"`` (the
    budget as given) when a variant in contention has a level within it (``met``); else
    ``"no variant in contention has a level within the p99 budget of 5.125 ms: peak ranking"``."""
    if budget_ms is None:
        return "ranking"
    budget = f"p{percentile} budget of {fmt_given(budget_ms)} ms"
    return f"ranking under the {budget}" if met else f"no variant in contention has a level within the {budget}: peak ranking"


def settled_words(tied: Sequence[Comparison], rounds_left: int, max_rounds: int, under_budget: bool | None = None) -> str:
    """Why a tie set is settled: the rounds left (up to ``max_rounds``) could not separate the
    leader from ``tied`` (its comparisons, none a verdict), even all going one way
    (:meth:`perf.analysis.ranking.operating.Comparison.can_separate`). Each member is said by :func:`kind`,
    as the report's tie-set words say it (:func:`member_words`): settled by the rounds a group
    gets, not by a verdict; when rounds were left, a member with fewer than
    :data:`~perf.analysis.ranking.operating.MIN_ROUNDS` rounds the rounds left could not separate is *not
    distinguishable at this noise* (:func:`settled_text`, as the report says it), never "too few
    rounds to tell" (trial 9); one never measured in the same round as the leader is *not
    compared*, and not named in the tie set (trial 11, F9). The set is named sorted, not leader
    first: the report ranks every variant (dropped ones too) and may name another member of it first. Each member
    is named at the level compared, beside the leader's (:func:`perf.analysis.ranking.levels_said.rival`; whether it is
    its best level within the budget or by peak: ``under_budget``), with the rounds each level was measured in where
    they differ (:func:`perf.analysis.ranking.levels_said.shared_why`; trial 24, T24-9: "shared 4 rounds with the
    leader: too few rounds to tell" after 10 rounds that measured both variants in every one)."""
    said = [dataclasses.replace(c, rounds_left=rounds_left) for c in tied]
    apart = [c for c in said if kind(c) == NOT_COMPARED]
    members = [c for c in said if kind(c) != NOT_COMPARED]
    names = ", ".join(f"`{n}`" for n in sorted({c.a.variant for c in said} | {c.b.variant for c in members}))
    parts = []
    if members and rounds_left == 0:
        parts.append(f"the rule did not separate the tie set {names} in the {count(max_rounds, 'round')} a group gets at most")
    elif members:
        left = "the round left" if rounds_left == 1 else f"the {rounds_left} rounds left"
        parts.append(f"{left} could not separate the tie set {names}, even all going one way")
    for c in members:  # each at the level compared, with the leader's (trial 24, T24-9, T24-15)
        n, k, who = len(c.rounds), kind(c), f"{rival(c)}{ranked_at(under_budget)}"
        with_leader = f"with the leader at {c.a.level()}"
        why = f" ({w})" if (w := shared_why(c)) else ""
        if k == STEADY:
            side = "behind" if consistent(c) == "behind" else "ahead of"
            parts.append(f"{who} was {side} the leader at {c.a.level()} {every_round(n)}{why}: {uncalled(c)}")
        elif k == SETTLED:  # the rounds left could not separate it: said above, no lack of rounds
            parts.append(f"{who} shared {count(n, 'round')} {with_leader}{why}: not distinguishable at this noise")
        elif k == SHORT:
            parts.append(f"{who} shared {count(n, 'round')} {with_leader}{why}: too few rounds to tell (a verdict needs {MIN_ROUNDS})")  # fmt: skip
    if apart:
        who = cut_list(rivals(apart))
        why = (
            f"in the {count(max_rounds, 'round')} a group gets at most"
            if rounds_left == 0
            else f"and {'the round left is' if rounds_left == 1 else f'the {rounds_left} rounds left are'} fewer than the {GAP_ROUNDS} a verdict needs"
        )
        lead = apart[0].a.level()
        parts.append(f"{who} never measured in the same round as the leader's level ({lead}), {why}: not compared")
    return "; ".join(parts)


def ranked_at(under_budget: bool | None) -> str:
    """Which level of a variant a ranking compares (:func:`perf.analysis.ranking.operating.operating_point`), said
    after it: ``" (its best level within the budget)"``, ``" (its best level)"`` by peak, ``""`` unknown."""
    return "" if under_budget is None else " (its best level within the budget)" if under_budget else " (its best level)"


#: What :func:`settled_words` said, before trial 9, of a member a settled tie's rounds left could not separate.
_OLD_SETTLED = re.compile(r"shared (\d+ rounds?) with the leader: too few rounds to tell \(a verdict needs \d+\)")


def settled_recorded(ended: str) -> str:
    """A rounds end recorded by :func:`settled_words` (``results.json``), in today's words: a run
    recorded before trial 9 said "too few rounds to tell" of a member the rounds left could not
    separate (its own words said so before it); ``ended`` unchanged otherwise."""
    if "could not separate the tie set" not in ended:
        return ended
    return _OLD_SETTLED.sub(r"shared \1 with the leader: not distinguishable at this noise", ended)


def quoted_names(names: Sequence[str]) -> str:
    """``names`` in backticks, cut as :func:`cut_list` cuts them."""
    return cut_list([f"`{n}`" for n in names])


def cut_list(shown: Sequence[str]) -> str:
    """``shown`` (already written names) joined, the first :data:`NAMED` and a count of the rest."""
    if len(shown) <= NAMED + 1:  # "and 1 more" names no fewer than the name itself
        return ", ".join(shown)
    return ", ".join(shown[:NAMED]) + f" and {len(shown) - NAMED} more"
