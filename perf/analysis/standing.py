"""How a rounds sweep's pick stands against the other variants, in words: one source for every
place that names what the pick beats or its tie set — the recommendation line (console, report.md,
the deployment bundle's README: :meth:`perf.analysis.recommendation.Choice.verdict`), the report's
Paired ranking section and its table, and the Conclusions.

A tie-set member is whatever the pick does not beat by the paired rule
(:mod:`perf.analysis.ranking`), which is not always evidence that the two are alike:

- a member that shared the rule's rounds (:data:`perf.analysis.ranking.MIN_ROUNDS`) with the pick
  and was not separated is *not distinguishable at this noise*;
- a member that shared fewer rounds but was behind (or ahead) in every one of them is said so,
  with its range of ratios and why the rule did not call it (:func:`uncalled`: too few rounds for
  the large-gap tier of :mod:`perf.analysis.paired`, a round apart by less than its 1.1×, or its
  rounds too uneven for its t-test): "behind in every one of its 3 rounds, 3.54–9.96 times; the
  rounds too uneven for the large-gap test, p 0.021 (over 0.005), and the sign test needs 6
  rounds" — never as a tie;
- any other member with fewer rounds is *too few rounds to tell*.

A variant whose level never shared a round with the pick's is *not compared*
(:func:`uncompared`): not a tie-set member, never "not
distinguishable", never "as good a choice"; it is named beside the tie set (:func:`rest_parts`).
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
variants outside its tie set (:func:`outside_words`), so every variant is accounted for.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection, Sequence

from core.wording import count
from perf.analysis.budget_latency import judged
from perf.analysis.paired import GAP_ALPHA, GAP_MIN, GAP_ROUNDS, tiers_words
from perf.analysis.ranking import MIN_ROUNDS, Comparison, Ranking, levels_of, records
from perf.markdown import fmt, fmt_given
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
    (``way`` ``"behind"``) or its own (``"ahead"``); ``"2.37 times"`` for one value."""
    r = c.result
    assert r is not None
    lo, hi = (r.low, r.high) if way == "behind" else (1 / r.high, 1 / r.low)
    return f"{lo:.2f} times" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}–{hi:.2f} times"


def every_round(n: int) -> str:
    """``"in every one of its 3 rounds"``, ``"in its only round"`` (trial 9: "every one of its 1 round")."""
    return "in its only round" if n == 1 else f"in every one of its {count(n, 'round')}"


def uncalled(c: Comparison, short: bool = False) -> str:
    """Why the rule did not call a member that was behind (or ahead of) the pick in every shared
    round (:func:`consistent`), the true reason of :mod:`perf.analysis.paired`'s two tiers (trial 9:
    "too few rounds" beside 3 rounds the large-gap test had, and failed on their spread): fewer rounds
    than the large-gap tier needs; a round apart by less than its :data:`~perf.analysis.paired.GAP_MIN`;
    or its t-test's p over :data:`~perf.analysis.paired.GAP_ALPHA` (the rounds too uneven). The sign
    test needs :data:`~perf.analysis.ranking.MIN_ROUNDS` rounds either way. ``short``: for a list's
    parenthesis (``"too uneven for the large-gap test, p 0.021"``)."""
    r, n = c.result, len(c.rounds)
    sign = f"the sign test needs {MIN_ROUNDS}"
    if r is None or n < GAP_ROUNDS:
        return (
            "too few rounds"
            if short
            else f"too few rounds for the rule to call it (a large gap needs {GAP_ROUNDS}, else {MIN_ROUNDS})"
        )
    if r.gap_p_value is None:
        gap = f"not every round apart by {GAP_MIN:g}× or more"
        return gap if short else f"{gap}, so only the sign test could call it, and it needs {MIN_ROUNDS} rounds"
    gap = f"too uneven for the large-gap test, p {r.gap_p_value:.2g}"
    return gap if short else f"the rounds {gap} (over {GAP_ALPHA:g}), and {sign} rounds"


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


def member_words(c: Comparison, with_ratios: bool = True) -> str:
    """A tie-set member's comparison with the pick in words (module docstring), without its name:
    ``"not distinguishable at this noise"``, ``"behind the pick in every one of its 3 rounds,
    3.54–9.96 times; the rounds too uneven for the large-gap test, p 0.021 (over 0.005), and the sign
    test needs 6 rounds"`` (:func:`uncalled`), ``"too few rounds to tell (2 rounds)"``
    (``with_ratios=False``: without the times, for a table that shows them beside it)."""
    k, n = kind(c), len(c.rounds)
    if k == NOT_COMPARED:
        return NOT_COMPARED_WORDS
    if k == STEADY:
        way = consistent(c) or "behind"
        times = f", {_times(c, way)}" if with_ratios else ""
        side = "behind the pick" if way == "behind" else "ahead of the pick"
        return f"{side} {every_round(n)}{times}; {uncalled(c)}"
    if k == FULL:
        return "not distinguishable at this noise"
    if k == SETTLED:  # the search's settle rule: more rounds were not what it lacked
        return settled_verdict(c)
    return f"too few rounds to tell ({count(n, 'round')})"


def rounds_left(run: RunResult, c: Comparison) -> int | None:
    """The rounds the last group holding both of ``c``'s variants could still have had: its
    ``max_rounds`` less the rounds it measured (:meth:`perf.records.rounds.RoundsRecord.group_rounds`,
    the count the settle rule used); ``None`` without a rounds record or such a group."""
    rr = run.rounds
    if rr is None:
        return None
    both = [g for g in rr.groups if {c.a.variant, c.b.variant} <= set(g.variants)]
    if not both:
        return None
    return max(0, rr.rules.max_rounds - len(rr.group_rounds(both[-1].index)))


def settled(c: Comparison) -> bool:
    """``c`` has no verdict and could not have had one: the rounds its group could still have had
    (:attr:`~perf.analysis.ranking.Comparison.rounds_left`, at least one), all going one way, would
    not reach the rule, although its rounds and those left reach the large-gap tier's
    (:data:`~perf.analysis.paired.GAP_ROUNDS`): the rounds it had stood in the way, not their
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


def settled_words(tied: Sequence[Comparison], rounds_left: int, max_rounds: int) -> str:
    """Why a tie set is settled: the rounds left (up to ``max_rounds``) could not separate the
    leader from ``tied`` (its comparisons, none a verdict), even all going one way
    (:meth:`perf.analysis.ranking.Comparison.can_separate`). Each member is said by :func:`kind`,
    as the report's tie-set words say it (:func:`member_words`): settled by the rounds a group
    gets, not by a verdict; when rounds were left, a member with fewer than
    :data:`~perf.analysis.ranking.MIN_ROUNDS` rounds the rounds left could not separate is *not
    distinguishable at this noise* (:func:`settled_text`, as the report says it), never "too few
    rounds to tell" (trial 9); one never measured in the same round as the leader is *not
    compared*, and not named in the tie set (trial 11, F9). The set is named sorted, not leader
    first: the report ranks every variant (dropped ones too) and may name another member of it first."""
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
    for c in members:
        n, k = len(c.rounds), kind(c)
        if k == STEADY:
            side = "behind" if consistent(c) == "behind" else "ahead of"
            parts.append(f"`{c.b.variant}` was {side} the leader {every_round(n)}: {uncalled(c)}")
        elif k == SETTLED:  # the rounds left could not separate it: said above, no lack of rounds
            parts.append(f"`{c.b.variant}` shared {count(n, 'round')} with the leader: not distinguishable at this noise")
        elif k == SHORT:
            parts.append(f"`{c.b.variant}` shared {count(n, 'round')} with the leader: too few rounds to tell (a verdict needs {MIN_ROUNDS})")  # fmt: skip
    if apart:
        who = _names([c.b.variant for c in apart])
        why = (
            f"in the {count(max_rounds, 'round')} a group gets at most"
            if rounds_left == 0
            else f"and {'the round left is' if rounds_left == 1 else f'the {rounds_left} rounds left are'} fewer than the {GAP_ROUNDS} a verdict needs"
        )
        parts.append(f"{who} never measured in the same round as the leader's level, {why}: not compared")
    return "; ".join(parts)


#: What :func:`settled_words` said, before trial 9, of a member a settled tie's rounds left could not separate.
_OLD_SETTLED = re.compile(r"shared (\d+ rounds?) with the leader: too few rounds to tell \(a verdict needs \d+\)")


def settled_recorded(ended: str) -> str:
    """A rounds end recorded by :func:`settled_words` (``results.json``), in today's words: a run
    recorded before trial 9 said "too few rounds to tell" of a member the rounds left could not
    separate (its own words said so before it); ``ended`` unchanged otherwise."""
    if "could not separate the tie set" not in ended:
        return ended
    return _OLD_SETTLED.sub(r"shared \1 with the leader: not distinguishable at this noise", ended)


def _members(ranking: Ranking) -> list[Comparison]:
    tied = set(ranking.names[1:])
    return [c for c in ranking.comparisons if c.b.variant in tied]


def _names(names: Sequence[str]) -> str:
    return _listed([f"`{n}`" for n in names])


def tie_words(ranking: Ranking) -> str:
    """The tie set (without the pick) in words, grouped as the module docstring says:
    ``"not distinguishable at this noise from `a`; behind it in every round they shared, not called
    by the rule: `b` (3 rounds, 3.54–9.96 times; too uneven for the large-gap test, p 0.021), `c`
    (1 round, 2.37 times; too few rounds); too few rounds to tell: `d` (2 rounds)"``; a member with
    fewer rounds that further rounds could not have separated (:func:`perf.analysis.settle.settled`)
    is not distinguishable, with why."""
    members = _members(ranking)
    full = [c.b.variant for c in members if kind(c) == FULL]
    done = [c for c in members if kind(c) == SETTLED]
    short = [c for c in members if kind(c) == SHORT]
    parts = [f"not distinguishable at this noise from {_names(full)}"] if full else []
    parts += [settled_verdict(c).replace(" (", f" from `{c.b.variant}` (", 1) for c in done]
    for way, side in (("ahead", "ahead of it"), ("behind", "behind it")):
        steady = [c for c in members if kind(c) == STEADY and consistent(c) == way]
        if steady:
            said = [
                f"`{c.b.variant}` ({count(len(c.rounds), 'round')}, {_times(c, way)}; {uncalled(c, short=True)})" for c in steady
            ]
            they = "it" if len(steady) == 1 else "they"
            parts.append(f"{side} in every round {they} shared, not called by the rule: {', '.join(said)}")
    if short:
        said = [f"`{c.b.variant}` ({count(len(c.rounds), 'round')})" for c in short]
        parts.append("too few rounds to tell: " + ", ".join(said))
    return "; ".join(parts)


def others_words(ranking: Ranking, run: RunResult | None, under_budget: bool) -> str:
    """What the pick is counted against: ``"5 of the 7 others, on a large, consistent gap after 3
    rounds; 2 have no level within the budget: `a` (lowest p99 12.40 ms, at c=1), `b` (...)"``
    (``"5, ..."`` without a run, or when every other variant is ranked; by which tier and after how
    many rounds: :func:`perf.analysis.paired.tiers_words`; the only ranked variant: only the rest). The others: those without an operating point (``"no level within the
    budget"`` under a budget, with the lowest latency they reached, else ``"no level to rank"``),
    the never-measured ones (``"not measured: cut for time"``) and failed ones (:func:`rest_parts`)."""
    beaten = ranking.beaten()
    how = f", {tiers}" if (tiers := tiers_words([c.result for c in beaten if c.result is not None])) else ""
    others = len(beaten) if run is None else len(run.variants) - 1 - len(ranking.other_sizes)
    if run is None or others <= len(beaten):
        return f"{len(beaten)}{how}"
    rest = rest_parts(ranking, run, under_budget)
    if not beaten and not uncompared(ranking):  # the only ranked variant: only why the others are not ranked
        return "; ".join(rest)
    return "; ".join([f"{len(beaten) or 'none'} of the {others} others{how}", *rest])


def outside_words(ranking: Ranking, run: RunResult | None, under_budget: bool) -> str:
    """A tie set's pick: the variants outside its tie set, each counted and said, so that every
    variant of the run is accounted for (trial 9: a pick under a what-if budget with a tie set of
    4, and the other 4 of 8 variants, none with a level within the budget, said nowhere):
    ``"the 4 others outside the tie set: it beats 1 by the rule; 3 have no level within the budget:
    `a` (lowest p99 5.45 ms, at c=1), ..."``; ``""`` when every other variant is in the tie set
    (or without a run)."""
    if run is None:
        return ""
    outside = len(run.variants) - len(ranking.tie_set) - len(ranking.other_sizes)
    if outside <= 0:
        return ""
    beaten = len(ranking.beaten())
    parts = ([f"it beats {beaten} by the rule"] if beaten else []) + rest_parts(ranking, run, under_budget)
    return f"the {count(outside, 'other')} outside the tie set: " + "; ".join(parts)


def rest_parts(ranking: Ranking, run: RunResult, under_budget: bool) -> list[str]:
    """The run's variants the ranking has no operating point for, by why, each part counted and
    named: ``"2 have no level within the budget: `a` (lowest p99 5.45 ms, at c=1), `b` (...)"``
    (under a budget, with the lowest latency each reached as the budget judges it, :func:`lowest`),
    ``"1 was not measured: cut for time: `c`"``, ``"1 failed: `d`"``; first those ranked but never
    measured in the same round as the pick's level (:data:`NOT_COMPARED`): ``"1 not compared
    (never measured in the same round as the pick's level): `e`"``."""
    cut = _cut(run)
    failed = [v.name for v in run.variants if v.status == "failed"]
    never = [n for n in ranking.unranked if n in cut]
    unranked = [n for n in ranking.unranked if n not in cut]
    apart = [c.b.variant for c in uncompared(ranking)]
    said = [f"{len(apart)} not compared (never measured in the same round as the pick's level): {_names(apart)}"] if apart else []
    if unranked and under_budget:
        shown = [f"`{n}`" + lowest(ranking, run, n) for n in unranked]
        said.append(f"{len(unranked)} {'has' if len(unranked) == 1 else 'have'} no level within the budget: {_listed(shown)}")
    elif unranked:
        said.append(f"{len(unranked)} {'has' if len(unranked) == 1 else 'have'} no level to rank: {_names(unranked)}")
    for names, one, many in (
        (never, "was not measured: cut for time", "were not measured: cut for time"),
        (failed, "failed", "failed"),
    ):
        if names:
            said.append(f"{len(names)} {one if len(names) == 1 else many}: {_names(names)}")
    return said


def lowest(ranking: Ranking, run: RunResult, name: str) -> str:
    """``" (lowest p99 5.45 ms, at c=1)"``: the lowest latency at the ranking's percentile any level
    of ``name`` reached, as the budget judges it (:func:`perf.analysis.budget_latency.judged`: the
    median of its rounds, its quieter ones where enough were not host busy), and where this host
    cannot judge it, that it is not verified here; ``""`` without one."""
    vr = run.variant(name)
    if vr is None:
        return ""
    got = [(j, s) for s in levels_of(vr) if (j := judged(records(vr, s), ranking.latency_metric)) is not None]
    if not got:
        return ""
    j, side = min(got, key=lambda x: x[0].ms)
    pct = ranking.latency_metric.removeprefix("latency_").removesuffix("_ms")
    unverified = j.unverified_note(int(pct.removeprefix("p")), ranking.budget_ms)  # over it on a busy host only
    return (
        f" (lowest {pct} {fmt(j.ms, 2)} ms, at c={side.concurrency}"
        + (f", b={side.batch_size}" if side.batch_size != 1 else "")
        + (f": {unverified}" if unverified else "")
        + ")"
    )


def _listed(shown: Sequence[str]) -> str:
    """``shown`` (already written names) joined, the first :data:`NAMED` and a count of the rest."""
    if len(shown) <= NAMED + 1:  # "and 1 more" names no fewer than the name itself
        return ", ".join(shown)
    return ", ".join(shown[:NAMED]) + f" and {len(shown) - NAMED} more"


def _cut(run: RunResult) -> Collection[str]:
    return {c.variant for c in (run.rounds.cuts if run.rounds else []) if c.kind == "variant" and c.variant}
