"""The pick's tie set and the variants it is counted against, in words (each comparison sorted by
:mod:`perf.analysis.ranking.standing`): the tie set, what the pick beats and the others, the variants
outside a tie set, and the lowest latency a variant with no level to rank reached.
"""

from __future__ import annotations

from core.wording import count
from perf.analysis.build_checks import notes
from perf.analysis.measured import cut_variants, rounds_measured
from perf.analysis.ranking.budget_latency import host_cores, judged
from perf.analysis.ranking.leader import favoured
from perf.analysis.ranking.levels_said import rival, rivals
from perf.analysis.ranking.operating import Comparison, Side, levels_of, records
from perf.analysis.ranking.rank import Ranking
from perf.analysis.ranking.standing import (
    FULL,
    NOT_COMPARED,
    SETTLED,
    SHORT,
    STEADY,
    consistent,
    cut_list,
    kind,
    quoted_names,
    settled_verdict,
    times_words,
    uncalled,
    uncompared,
)
from perf.analysis.stats.rounds_words import tiers_words
from perf.markdown import fmt, ratio_number
from perf.records.results import RunResult


def _members(ranking: Ranking) -> list[Comparison]:
    tied = set(ranking.names[1:])
    return [c for c in ranking.comparisons if c.b.variant in tied]


def tie_words(ranking: Ranking, run: RunResult | None) -> str:
    """:func:`tie_parts` in one clause, ``"; "`` between them."""
    return "; ".join(tie_parts(ranking, run))


def tie_parts(ranking: Ranking, run: RunResult | None, brief: bool = False) -> list[str]:
    """The tie set (without the pick) in words, one part per group (the module docstring), each member with
    its build's verdict when it is not ``ok`` (:func:`perf.analysis.build_checks.named`; issue 26):
    ``"not distinguishable at this noise from `a`; behind the pick in every round they shared, not called
    by the rule: `b` (3 rounds, 3.54–9.96 times; too uneven for 3 rounds to tell, p 0.021 (needs ≤ 0.005)), `c`
    (1 round, 2.37 times; too few rounds); too few rounds to tell: `d` (2 rounds)"``; a member with
    fewer rounds that further rounds could not have separated (:func:`perf.analysis.ranking.standing.settled`)
    is not distinguishable, with why.

    ``brief``: the console's note of the pick (trial 25, T25-3: it said every member "not distinguishable" where
    report.md said one was behind the pick in every round): each member by the same words, the numbers and whys that
    report.md adds left to it (``"behind the pick in every round it shared, not called by the rule: `b` at c=4 (5 rounds)"``),
    and no higher medians (the note says them apart, :attr:`perf.analysis.recommendation.choice.Choice.rivals`). The
    side is "the pick", never "it" (trial 27, T27-3: after the console's "not the winner:", "behind it in every round"
    read as the pick behind a member with 852.8 infer/s to its 1,406.5)."""
    members = _members(ranking)
    full = [c for c in members if kind(c) == FULL]
    done = [c for c in members if kind(c) == SETTLED]
    short = [c for c in members if kind(c) == SHORT]
    parts = [f"not distinguishable at this noise from {cut_list(rivals(full, run))}"] if full else []
    parts += _settled_parts(done, run, brief)
    for way, side in (("ahead", "ahead of the pick"), ("behind", "behind the pick")):  # never "it" (T27-3)
        steady = [c for c in members if kind(c) == STEADY and consistent(c) == way]
        if steady:
            said = [
                f"{rival(c, run)} ({count(len(c.rounds), 'round')}"
                + ("" if brief else f", {times_words(c, way)}; {uncalled(c, short=True)}")
                + ")"
                for c in steady
            ]
            they = "it" if len(steady) == 1 else "they"
            parts.append(f"{side} in every round {they} shared, not called by the rule: {', '.join(said)}")
    if short:
        said = [f"{rival(c, run)} ({count(len(c.rounds), 'round')})" for c in short]
        parts.append("too few rounds to tell: " + ", ".join(said))
    return parts if brief else parts + higher_medians(ranking, run)


def _settled_parts(done: list[Comparison], run: RunResult | None, brief: bool = False) -> list[str]:
    """The settled members (:func:`perf.analysis.ranking.standing.settled_verdict`), those of one why said once:
    ``"not distinguishable at this noise from `a`, `b` (3 rounds each; further rounds could not have separated
    them: ...)"`` (trial 23, T23-5: four members' same 200-character why, word for word, on one line)."""
    whys: dict[str, list[Comparison]] = {}
    for c in done:
        whys.setdefault(settled_verdict(c), []).append(c)
    parts = []
    for why, cs in whys.items():
        names = ", ".join(rivals(cs, run))
        each = f"{count(len(cs[0].rounds), 'round')} each" if len(cs) > 1 else count(len(cs[0].rounds), "round")
        if brief:  # the why's first clause: "further rounds could not have separated them"
            why = why.split(": even ", 1)[0] + ")"
        parts.append(why.replace(f" ({count(len(cs[0].rounds), 'round')};", f" from {names} ({each};", 1))
    return parts


def higher_medians(ranking: Ranking, run: RunResult | None, short: bool = False) -> list[str]:
    """Why the pick is named first although a tie-set member's median throughput (over its own
    rounds, at its level) is higher, in numbers, one part per such member (trial 12, F5: "named first
    by throughput" beside a runner-up at 1,874.2 infer/s, the pick's 1,268.2): the two medians are
    over different rounds, the order is by the rounds they shared (:mod:`perf.analysis.ranking.leader`),
    or by round-adjusted throughput where the shared rounds put the pick behind (a circle of medians), or by its
    batching off (:attr:`perf.analysis.ranking.rank.Ranking.batching_off`: the member, its batching twin, formed no batch).
    ``short``: for the console's note of the pick (``"`b`'s median higher, 1,874.2: the pick ahead in 3 of
    5 shared rounds"``), which said nothing of it beside the runner-up's higher number in its own row.
    The member's build verdict, when not ``ok``, follows its number (:func:`perf.analysis.build_checks.notes`)."""
    lead = ranking.leader
    ops = {o.side.variant: o for o in ranking.tie_set[1:]}
    parts = []
    for c in _members(ranking):
        o, r = ops.get(c.b.variant), c.result
        if lead is None or o is None or r is None or o.throughput_infer_per_s <= lead.throughput_infer_per_s:
            continue
        who = "the pick" if c.a == lead.side else f"the pick at {c.a.level()}"
        at = f" at {c.b.level()}"  # the level compared (trial 24, T24-15)
        build = "".join(f" ({w})" for w in (notes(run, o.side.variant) if run is not None else []))
        if short:
            how = (
                ""
                if r.median >= 1.0 and (favoured(r) == "a" or ranking.batching_off)
                else f", named by round-adjusted {fmt(lead.adjusted_infer_per_s)} vs {fmt(o.adjusted_infer_per_s)}"
                if r.median >= 1.0  # not one-sided: the round adjustment decided (trial 30, F10)
                else " only, named first for its batching off"
                if ranking.batching_off
                else f" only, named by round-adjusted {fmt(lead.adjusted_infer_per_s)} vs {fmt(o.adjusted_infer_per_s)}"
            )
            parts.append(
                f"`{o.side.variant}`'s median{at} higher, {fmt(o.throughput_infer_per_s)}{build}: {who} ahead in {r.wins} of "
                f"{r.rounds} shared rounds{how}"
            )
            continue
        said = (
            f"`{o.side.variant}`'s median{at} is higher, {fmt(o.throughput_infer_per_s)} infer/s over "
            f"{count(o.rounds, 'round')}{build} against the pick's {fmt(lead.throughput_infer_per_s)} over {lead.rounds}"
        )
        if r.median < 1.0 and ranking.batching_off:  # named first by its batching off (trial 24, T24-8)
            why = (
                f"and in the {count(r.rounds, 'round')} they shared {who} was ahead in {r.wins} only (median ratio "
                f"{ratio_number(r.median)}): it is named first for its batching off (said above), not by throughput"
            )
        elif r.median >= 1.0:
            why = f"but in the {count(r.rounds, 'round')} they shared {who} was ahead in {r.wins} (median ratio {ratio_number(r.median)})"
            if favoured(r) != "a":  # not one-sided: not what names it (perf.analysis.ranking.leader; trial 28, T28-1)
                why += (
                    ", too few or too mixed to decide alone; the pick's median is over more rounds"
                    if lead.rounds > o.rounds
                    else f", too few or too mixed to decide alone; the round-adjusted throughput names it, "
                    f"{fmt(lead.adjusted_infer_per_s)} against {fmt(o.adjusted_infer_per_s)} infer/s"
                )
        else:
            why = (
                f"and in the {count(r.rounds, 'round')} they shared {who} was ahead in {r.wins} only (median ratio "
                f"{ratio_number(r.median)}): the round-adjusted throughput names it, {fmt(lead.adjusted_infer_per_s)} against "
                f"{fmt(o.adjusted_infer_per_s)} infer/s"
            )
        parts.append(f"{said}, {why}")
    return parts


def others_words(ranking: Ranking, run: RunResult | None, under_budget: bool) -> str:
    """What the pick is counted against: ``"5 of the 7 others, on a large, consistent gap after 3
    rounds; 2 have no level within the budget: `a` (lowest p95 12.40 ms, at c=1), `b` (...)"`` (under a p95
    budget: the lowest latency at the budget's percentile, :func:`lowest`)
    (``"5, ..."`` without a run, or when every other variant is ranked; by which tier and after how
    many rounds: :func:`perf.analysis.stats.rounds_words.tiers_words`; the only ranked variant: only the rest, ``""``
    when there is none, as in a run of one variant). The others: those without an operating point (``"no level within the
    budget"`` under a budget, with the lowest latency they reached, else ``"no level to rank"``),
    the never-measured ones (``"not measured: cut for time"``) and failed ones (:func:`rest_parts`).

    Its counts, tiers and rounds are of the pick's own verdicts (:meth:`~perf.analysis.ranking.rank.Ranking.beaten`);
    runner-ups another variant beat in its place are said apart, with that variant (:func:`through_parts`):
    ``"3 of the 7 others by its own paired rounds, by the sign test after 6–9 rounds; 4 were beaten by `x` at c=4, ..."``
    (trial 26, T26-1: "7, 4 by the sign test" of a pick that had 3 verdicts of its own)."""
    beaten, via = ranking.beaten(), through_parts(ranking)
    how = _tiers_by_level(ranking, beaten)
    ahead = len(beaten) + len(ranking.beaten_through())
    others = ahead if run is None else len(run.variants) - 1 - len(ranking.other_sizes)
    if not via and (run is None or others <= len(beaten)):  # nothing beaten, none else: no count to say (not "(0)")
        return f"{len(beaten)}{how}" if beaten else ""
    rest = [*via, *(rest_parts(ranking, run, under_budget) if run is not None else [])]
    if not beaten and not uncompared(ranking) and not via:  # the only ranked variant: only why the others are not ranked
        return "; ".join(rest)
    own = " by its own paired rounds" if via else ""
    return "; ".join([f"{len(beaten) or 'none'} of the {others} others{own}{how}", *rest])


def _tiers_by_level(ranking: Ranking, beaten: list[Comparison]) -> str:
    """``", by the sign test after 6–8 rounds"``: by which tier and after how many rounds the pick's verdicts were
    reached (:func:`perf.analysis.stats.rounds_words.tiers_words`); those its variant won at another of its levels
    (module docstring of :mod:`perf.analysis.ranking.rank`, "The pick's other levels") said apart with that level:
    ``", 1 at the pick's c=2, by the sign test after 6 rounds; 2 by the same variant at c=4, not at the pick's c=2: by
    the sign test after 7 rounds"`` (trial 30, F3: "beats every other ... after 7 rounds" of a pick at c=2 measured in
    3, the verdicts its c=4's); ``""`` without any."""
    lead = ranking.leader
    at: dict[Side | None, list[Comparison]] = {}
    for c in beaten:
        at.setdefault(None if lead is None or c.a == lead.side else c.a, []).append(c)
    if lead is None or set(at) <= {None}:
        tiers = tiers_words([c.result for c in beaten if c.result is not None])
        return f", {tiers}" if tiers else ""
    parts = []
    for side, cs in sorted(at.items(), key=lambda kv: kv[0] is not None):
        tiers = tiers_words([c.result for c in cs if c.result is not None])
        where = (
            f"at the pick's {lead.side.level()}"
            if side is None
            else f"by the same variant at {side.level()}, not at the pick's {lead.side.level()}"
        )
        parts.append((f"{len(cs)} " if len(at) > 1 else "") + where + (f": {tiers}" if tiers else ""))
    return ", " + "; ".join(parts)


def through_parts(ranking: Ranking, run: RunResult | None = None) -> list[str]:
    """The runner-ups another variant beat in the pick's place (:meth:`~perf.analysis.ranking.rank.Ranking.beaten_through`:
    the search dropped them), one part per level that beat them, with how the pick stands against that variant
    (:func:`_standing`): ``"4 were beaten by `x` at c=4, which the pick beats by the rule, and dropped by the search:
    not compared with the pick itself: `y0` at c=4, ..."``. Never counted as the pick's own verdicts, and never said
    to be beaten by the pick where it does not itself beat that variant (trial 26, T26-1)."""
    by: dict[Side, list[Comparison]] = {}
    for c in ranking.beaten_through():
        by.setdefault(c.a, []).append(c)
    return [
        f"{len(cs)} {'was' if len(cs) == 1 else 'were'} beaten by `{side.variant}` at {side.level()}, "
        f"{_standing(ranking, side.variant)}, and dropped by the search: not compared with the pick itself: "
        f"{cut_list(rivals(cs, run))}"
        for side, cs in by.items()
    ]


def _standing(ranking: Ranking, name: str) -> str:
    """How the pick stands against ``name``, a variant that beat runner-ups in its place (:func:`through_parts`)."""
    c = next((c for c in ranking.comparisons if c.b.variant == name), None)
    if c is None:
        return "which the pick was not ranked against"
    if c.verdict == "a" and ranking.own(c):
        return "which the pick beats by the rule"
    if c.verdict == "a":
        return f"which `{c.a.variant}` beats in the pick's place"
    if c.verdict == "b":
        return "which beats the pick by the rule"
    if kind(c) == NOT_COMPARED:
        return "which was never measured in the same round as the pick's level"
    return "which the rule did not separate from the pick (its tie set)"


def rule_words(alpha: float) -> str:
    """The paired rule a verdict is by, ``"paired rounds at 5 %"`` (``alpha``: its level)."""
    return f"paired rounds at {alpha * 100:g} %"


def beats_words(against: str, rule: str, *, uncompared: bool = False, through: bool = False, subject: str = "") -> str:
    """What a pick the rule separated from every other beats, in the one wording of report.md's Recommendation
    (:meth:`perf.analysis.recommendation.choice.Choice.verdict`) and Paired ranking, export-deployment's chosen level
    and the bundle's README. ``"beats every other ranked variant (7, by the sign test after 6–8 rounds; paired rounds
    at 5 %)"`` only where each of the others is one of its own verdicts; else ``"by the rule (paired rounds at 5 %) it
    beats 3 of the 7 others by its own paired rounds, ...; 4 were beaten by `x` at c=4, ..."``.

    Args:
        against: The others in words (:func:`others_words`).
        rule: The rule's words (:func:`rule_words`).
        uncompared: Some were never in a round with its level: ``"; it is named first by throughput, not as the
            winner"`` follows.
        through: Another variant beat some in its place (:func:`through_parts`).
        subject: Said before the verb of the first form (``"It "`` starting a sentence).
    """
    if uncompared:  # neither beaten nor tied: no evidence either way (trial 11, F9)
        return f"by the rule ({rule}) it beats {against}; it is named first by throughput, not as the winner"
    if through:  # not "every other": some were beaten by another variant (trial 26, T26-1)
        return f"by the rule ({rule}) it beats {against}"
    return f"{subject}beats every other ranked variant ({against}; {rule})"


def outside_words(ranking: Ranking, run: RunResult | None, under_budget: bool) -> str:
    """A tie set's pick: the variants outside its tie set, each counted and said, so that every
    variant of the run is accounted for (trial 9: a pick under a what-if budget with a tie set of
    4, and the other 4 of 8 variants, none with a level within the budget, said nowhere):
    ``"the 4 others outside the tie set: it beats 1 by the rule; 3 have no level within the budget:
    `a` (lowest p95 5.45 ms, at c=1), ..."`` (a p95 budget: the lowest latency at its percentile, :func:`lowest`); ``""`` when every other variant is in the tie set
    (or without a run). Those another variant beat in the pick's place are said apart (:func:`through_parts`)."""
    if run is None:
        return ""
    outside = len(run.variants) - len(ranking.tie_set) - len(ranking.other_sizes)
    if outside <= 0:
        return ""
    beaten = ranking.beaten()
    how = _tiers_by_level(ranking, beaten) if any(ranking.leader and c.a != ranking.leader.side for c in beaten) else ""
    parts = (
        ([f"it beats {len(beaten)} by the rule{how}"] if beaten else [])
        + through_parts(ranking)
        + rest_parts(ranking, run, under_budget)
    )
    return f"the {count(outside, 'other')} outside the tie set: " + "; ".join(parts)


def rest_parts(ranking: Ranking, run: RunResult, under_budget: bool) -> list[str]:
    """The run's variants the ranking has no operating point for, by why, each part counted and
    named: ``"2 have no level within the budget: `a` (lowest p95 5.45 ms, at c=1), `b` (...)"``
    (under a budget, with the lowest latency at the budget's percentile each reached, as the budget judges it:
    :func:`lowest`; here a p95 budget),
    ``"1 was not measured: cut for time: `c`"`` (a variant cut after it was measured is said with its numbers,
    ``"(measured in 1 round, then cut for time)"``: :func:`perf.analysis.recommendation.cuts.cut_variants`),
    ``"1 failed: `d`"``; first those ranked but never
    measured in the same round as the pick's level (:data:`perf.analysis.ranking.standing.NOT_COMPARED`): ``"1 not compared
    (never measured in the same round as the pick's level, c=2; it ranked at its best level): `e` at c=16"``, each at the level
    compared (:func:`perf.analysis.ranking.levels_said.rival`; trial 24, T24-15)."""
    never_measured, measured_before = cut_variants(run)  # the one rule of cut variants with and without numbers
    failed = [v.name for v in run.variants if v.status == "failed"]
    never = [n for n in ranking.unranked if n in never_measured]
    unranked = [n for n in ranking.unranked if n not in never_measured]  # trial 14, T14-5: a cut one with numbers is measured

    def cut_after(n: str) -> str:
        return f" (measured in {count(rounds_measured(run, n), 'round')}, then cut for time)" if n in measured_before else ""

    apart = uncompared(ranking)  # each at the level compared, the pick's said (trial 24, T24-15)
    best = "its best level" + (" within the budget" if under_budget else "")
    said = (
        [
            f"{len(apart)} not compared (never measured in the same round as the pick's level, {apart[0].a.level()}; "
            f"{'each' if len(apart) > 1 else 'it'} ranked at {best}): {cut_list(rivals(apart))}"
        ]
        if apart
        else []
    )
    if unranked and under_budget:
        shown = [f"`{n}`" + lowest(ranking, run, n) + cut_after(n) for n in unranked]
        said.append(f"{len(unranked)} {'has' if len(unranked) == 1 else 'have'} no level within the budget: {cut_list(shown)}")
    elif unranked:
        shown = [f"`{n}`{cut_after(n)}" for n in unranked]
        said.append(f"{len(unranked)} {'has' if len(unranked) == 1 else 'have'} no level to rank: {cut_list(shown)}")
    for names, one, many in (
        (never, "was not measured: cut for time", "were not measured: cut for time"),
        (failed, "failed", "failed"),
    ):
        if names:
            said.append(f"{len(names)} {one if len(names) == 1 else many}: {quoted_names(names)}")
    return said


def lowest(ranking: Ranking, run: RunResult, name: str) -> str:
    """``" (lowest p95 5.45 ms, at c=1)"`` under a p95 budget: the lowest latency at the ranking's (the budget's)
    percentile any level
    of ``name`` reached, as the budget judges it (:func:`perf.analysis.ranking.budget_latency.judged`: the
    median of its rounds, its quieter ones where enough were not host busy), and where this host
    cannot judge it, that it is not verified here; ``""`` without one."""
    vr = run.variant(name)
    if vr is None:
        return ""
    # the run's cores: the far-over rule needs them (trial 17, T17-3: without them a level the same report called far
    # over the budget, more than the host load explains, was "not verified here" in this line)
    cores = host_cores(run)
    got = [(j, s) for s in levels_of(vr) if (j := judged(records(vr, s), ranking.latency_metric, cores=cores)) is not None]
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
