"""The report's "Paired ranking" section: how a rounds sweep measured and what its paired rounds
show — the pick against each runner-up (median ratio, its min–max over rounds, rounds won, the
p-value of the rule, the latency difference, the verdict), the tie set, the time budget's
estimate and spending, and everything cut for time. Every number is read from the run
(:mod:`perf.records.rounds`) or derived from its per-round levels (:mod:`perf.analysis.ranking.rank`).
A run measured one variant after another has no such section."""

from __future__ import annotations

import statistics
from collections.abc import Collection, Sequence

from core.wording import count, sentence
from perf.analysis.build_checks import named
from perf.analysis.ranking.budget_latency import Judged, host_cores, judged, latency_metric, within
from perf.analysis.ranking.levels_said import rival
from perf.analysis.ranking.operating import MIN_ROUNDS, Comparison, Side, levels_of, per_round, records
from perf.analysis.ranking.rank import Ranking
from perf.analysis.ranking.standing import (
    FULL,
    SETTLED,
    SHORT,
    STEADY,
    common_rounds,
    consistent,
    kind,
    member_words,
    uncompared,
)
from perf.analysis.ranking.standing_words import beats_words, others_words, outside_words, rule_words, tie_words
from perf.analysis.recommendation.choice import Choice
from perf.analysis.recommendation.excluded import candidate
from perf.analysis.recommendation.recommend import Recommendation
from perf.analysis.saturation.peaks import peak_heading
from perf.analysis.stats.paired import ALPHA, FAR_GAP, GAP_ALPHA, GAP_MIN, GAP_ROUNDS, UNCALLED, p_cell
from perf.analysis.stats.points import Point
from perf.markdown import fmt, ratio_number, ratio_span, table
from perf.records.levels import HOST_BUSY, UNSTABLE
from perf.records.results import RunResult
from perf.report.sections.rounds_budget import budget_lines, design_lines, pick_workload

#: Runner-ups shown against the pick (the others are in the appendix and results.json).
SHOWN = 7


#: Marks a row whose numbers are another level's comparison with the runner-up (a drop, the pick's other level).
OTHER_SIDE = "‡"
#: What the section says of what its pick beats where the Recommendation says it of the same pick (one verdict, said
#: once: trial 26, T26-1; trial 19, T19-17).
VERDICT_ABOVE = "What it beats by its own paired rounds, by which test, and the others: said with the pick in Recommendation."


def _unranked_higher(run: RunResult | None, c: Comparison, budget_ms: float | None, metric: str) -> str:
    """``"; its c=4, 304.5 infer/s over 2 rounds, too few to compare"`` when the runner-up measured
    more at a level (within ``budget_ms``) with fewer rounds than a comparison rests on than at the
    level it is ranked at (:func:`perf.analysis.ranking.operating.operating_point`; trial 8: "the pick beats
    it" at c=1, 4.1x, beside its 304.5 infer/s at c=4, 2.3x the pick's), else ``""``."""
    vr = run.variant(c.b.variant) if run is not None else None
    if run is None or vr is None:
        return ""
    at = statistics.median(list(per_round(vr, c.b).values()) or [0.0])
    more = [
        (statistics.median(vals.values()), s, len(vals))
        for s in levels_of(vr)
        if (vals := per_round(vr, s))
        and len(vals) < GAP_ROUNDS
        and within(judged(records(vr, s), metric, cores=host_cores(run)), budget_ms)
    ]
    best = max((m for m in more if m[0] > at), key=lambda m: m[0], default=None)
    if best is None:
        return ""
    return f"; its c={best[1].concurrency}, {fmt(best[0])} infer/s over {count(best[2], 'round')}, too few to compare"


def _median_words(median: float, adjusted: float) -> str:
    """``"; their median, 365.9 infer/s, is what the Recommendation and the console give"`` where the two
    differ as written (trial 13, T13-12: 439.3 here and 365.9 there for one level, neither labelled)."""
    if fmt(median) == fmt(adjusted):
        return ""
    return f"; their median, {fmt(median)} infer/s, is what the Recommendation and the console give"


def _row(c: Comparison, lead: Side, higher: str = "", run: RunResult | None = None, rounds_said: bool = False) -> list[str]:
    """A runner-up's row; ``rounds_said``: the rounds its verdict would name are said under the table (common_rounds)."""
    r, name = c.result, named(run, c.b.variant)  # with its build's verdict when not ok (issue 26)
    if r is None:
        return [name, str(c.b.concurrency), "—", "—", "0", "—", "—", member_words(c)]
    diff = c.median_latency_diff_ms
    return [
        name,
        str(c.b.concurrency),
        ratio_number(r.median, 3) + (f" {OTHER_SIDE}" if c.a != lead else ""),
        ratio_span(r.low, r.high, 3) if r.rounds > 1 else "(one round)",  # no range of one value (trial 9: "2.374–2.374")
        f"{r.wins} of {r.rounds}",
        p_cell(r.decided_p, r.tier),
        "—" if diff is None else f"{diff:+.2f}",
        _verdict(c, lead, rounds_said) + higher,
    ]


def _verdict(c: Comparison, lead: Side, rounds_said: bool = False) -> str:
    """The row's verdict; a comparison the search dropped the runner-up on names its sides."""
    if c.verdict == "a" and c.a.variant == lead.variant and c.a != lead:  # perf.analysis.ranking.rank: the pick's other levels
        return f"the pick at c={c.a.concurrency} beats it"
    if c.verdict == "a" and c.a != lead:
        return f"`{c.a.variant}` at c={c.a.concurrency} beats it (the search dropped it)"
    return {"a": "the pick beats it", "b": "it beats the pick"}.get(c.verdict) or member_words(c, False, rounds_said)


def _judged(lat: Judged | None, percentile: int, budget_ms: float | None) -> str:
    """How the pick's latency was judged against the budget, when only its quieter rounds are
    within it (:mod:`perf.analysis.ranking.budget_latency`)."""
    said = lat.picked_on(percentile, budget_ms) if lat is not None and budget_ms is not None else None
    return f"; {said}" if said else ""


def tie_set_words(ranking: Ranking, pruned: Collection[str] = (), run: RunResult | None = None, said_above: bool = False) -> str:
    """The tie set in words (:func:`perf.analysis.ranking.standing_words.tie_words`, the recommendation line's
    words): the members that shared the rule's rounds with the pick are *not distinguishable from it at this
    noise*, never "as good a choice" (trial 22, F-tie-words: said of a member 1.75x behind the pick in the median
    of 6 shared rounds, the sign test not calling it); those that shared fewer (a large gap aside) are *not
    separated for lack of rounds*, which is no evidence that they are as good (``pruned``: variants the search stopped measuring,
    whose early rounds are all this ranking has); then the variants outside the tie set
    (:func:`perf.analysis.ranking.standing_words.outside_words`: every one of ``run``'s variants accounted for);
    ``said_above``: the Recommendation lists the members and the others (its pick's
    :meth:`~perf.analysis.recommendation.choice.Choice.listed`), so this bullet points to it and says only what
    the members' rounds are evidence of (trial 19, T19-17: the same words said twice)."""
    tied = [c for c in ranking.comparisons if c.b.variant in ranking.names[1:]]
    at = f" at {tied[0].a.level()}" if tied else ""  # the pick's level, beside each member's
    short = [c for c in tied if kind(c) in (STEADY, SHORT)]
    full = [rival(c) for c in tied if kind(c) == FULL]  # each at the level compared (trial 24, T24-15)
    done = [rival(c) for c in tied if kind(c) == SETTLED]
    text = "- **Tie set** (what the pick does not beat by the rule): " + (
        f"{count(len(tied), 'member')} besides the pick, each with its rounds, and the others: see Recommendation."
        if said_above
        else sentence(tie_words(ranking, run))
    )
    if full:
        text += (
            f" {', '.join(full)} shared at least {MIN_ROUNDS} rounds with it{at}: not distinguishable from it at this noise "
            "(more rounds, or a quieter host, may separate them)."
        )
    if done:  # the search stopped because more rounds could not separate them (trial 9, F37)
        text += (
            f" {', '.join(done)}: not distinguishable from it at this noise (the rounds left to the group could not have "
            "separated them; a quieter host may)."
        )
    for way in ("behind", "ahead"):  # named: counted above, then left out (trial 23, T23-13: "5 members", 4 names)
        if said_above and (steady := [rival(c) for c in short if consistent(c) == way]):
            text += f" {', '.join(steady)}: {way} {'of ' if way == 'ahead' else ''}it in every round they shared, not called by the rule."
    if said_above and (rest := [rival(c) for c in short if consistent(c) is None]):
        text += f" {', '.join(rest)}: fewer rounds shared with it than the rule needs."
    if short:
        dropped = [f"`{c.b.variant}`" for c in short if c.b.variant in pruned]
        text += (
            f" {'That is' if len(short) == 1 else 'Those are'} no evidence that {'it is' if len(short) == 1 else 'they are'} as good"
            + (
                f"; the search stopped measuring {', '.join(dropped)}, so this ranking has only their early rounds"
                if dropped
                else ""
            )
            + "."
        )
    if not said_above and (outside := outside_words(ranking, run, ranking.budget_ms is not None)):
        text += f" {sentence(outside, capital=True)}"
    return text


def comparison_lines(
    ranking: Ranking | None,
    what: str,
    percentile: int,
    budget_ms: float | None = None,
    pruned: Collection[str] = (),
    run: RunResult | None = None,
    said_above: bool = False,
    verdict_above: bool = False,
) -> list[str]:
    """The pick against each runner-up as a table, and its tie set in words (:func:`tie_set_words`; ``said_above``:
    the Recommendation lists its members); what it beats is counted against ``run``'s variants
    (:func:`perf.analysis.ranking.standing_words.others_words`) in the Recommendation's words
    (:func:`perf.analysis.ranking.standing_words.beats_words`), or, where the Recommendation says them of this pick
    (``verdict_above``), pointed to: said once (trial 19, T19-17). The rule for fewer rounds is said by
    :func:`ranking_lines`, once."""
    if ranking is None or ranking.leader is None:
        return [f"- {what}: no variant has a level {'within the budget' if budget_ms is not None else 'to rank'}."]
    lead = ranking.leader.side
    lines = [
        f"- **{what}:** {named(run, lead.variant)} at concurrency {lead.concurrency} (round-adjusted "
        f"{fmt(ranking.leader.adjusted_infer_per_s)} infer/s over {count(ranking.leader.rounds, 'round')}"
        + _median_words(ranking.leader.throughput_infer_per_s, ranking.leader.adjusted_infer_per_s)
        + (f"; within the budget in {ranking.leader.within_budget} of them" if ranking.leader.within_budget is not None else "")
        + (_judged(ranking.leader.latency, percentile, budget_ms) if ranking.leader.within_budget is not None else "")
        + ").",
    ]
    if len(ranking.tie_set) > 1:
        lines.append(tie_set_words(ranking, pruned, run, said_above))
    elif ranking.comparisons:  # the Recommendation's words of the same pick (trial 26, T26-1: "beats every other" here)
        said = beats_words(
            others_words(ranking, run, budget_ms is not None),
            rule_words(ALPHA),
            uncompared=bool(uncompared(ranking)),
            through=bool(ranking.beaten_through()),
            subject="It ",
        )
        lines.append(f"- {VERDICT_ABOVE}" if verdict_above else f"- {sentence(said, capital=True)}")
    if ranking.comparisons:
        head = ["runner-up", "at c", "ratio (median)", "min–max", "pick ahead", "p", f"Δ p{percentile} ms", "verdict"]
        metric = latency_metric(percentile)
        common = common_rounds(ranking.comparisons[:SHOWN])  # said once, not on each row
        shown = ranking.comparisons[:SHOWN]
        rows = [_row(c, lead, _unranked_higher(run, c, budget_ms, metric), run, common is not None) for c in shown]
        lines += ["", *table(head, rows, ["left", "right", "right", "right", "right", "right", "right", "left"]), ""]
        lines += [f"- The runner-ups above without a verdict: {common}."] if common else []
        if len(ranking.comparisons) > SHOWN:
            lines.append(f"- {len(ranking.comparisons) - SHOWN} more runner-ups in `results.json` (every round's number).")
        if any(c.a != lead and c.result is not None for c in ranking.comparisons[:SHOWN]):  # trial 8: read as the pick's
            lines.append(
                f"- {OTHER_SIDE}: this row's numbers (ratio, min–max, rounds ahead, p, Δ) are of the comparison its verdict "
                f"names, that level against the runner-up, not of the pick at c={lead.concurrency}."
            )
    if ranking.other_sizes:
        lines.append(
            f"- Client workloads: the pick is compared only with series of its own workload ({pick_workload(run, lead)}); "
            f"{count(len(ranking.other_sizes), 'series', 'series')} at other workloads are not its rivals "
            "(an input size or a client batch size is the client's, not a setting to pick)."
        )
    return lines


def delta_words(percentile: int) -> str:
    """What the ranking table's ``Δ p<N> ms`` column is (trial 23, T23-7: explained nowhere, and unlike the difference
    of the medians the other tables show, "+1.22" beside medians 0.22 ms apart): the one wording, report.md's and
    README's."""
    return (
        f"Δ p{percentile} ms: the pick's p{percentile} minus the runner-up's, the median of their per-round differences "
        f"over the rounds both were measured in (negative: the pick's is lower); not the difference of the medians "
        "over all rounds the other tables show"
    ) + "."


def fewer_rounds_lines(rankings: Sequence[Ranking | None]) -> list[str]:
    """The rule for a comparison on fewer than a verdict's rounds, once under the rankings' tables where one of them
    has such a comparison not called (trial 19, T19-17: said under each table, word for word)."""
    if not any(
        c.result is not None and len(c.rounds) < MIN_ROUNDS and c.verdict == "not distinguishable"
        for r in rankings
        if r is not None
        for c in r.comparisons
    ):
        return []
    return [
        f"- A comparison with fewer than {MIN_ROUNDS} common rounds is called only on a large, consistent gap "
        f"({GAP_ROUNDS} rounds or more, every one {GAP_MIN:g}× or more the same way, a t-test on the log ratios at "
        f'p ≤ {GAP_ALPHA:g}, or every one more than {FAR_GAP:g}× apart the same way: p cell "each >{FAR_GAP:g}×"); '
        f"{UNCALLED}."
    ]


def flagged_counts(cands: list[Point], rates: Sequence[str] = ()) -> str:
    """``"32 of 32 host busy"``, ``"30 of 32 host busy, 2 unstable"``: the flagged levels by status, each status named
    only when some level has it; a level host busy in a round and unstable in another counted under both, as its table
    cell says it (:attr:`perf.analysis.stats.points.Point.flags`; trial 26, T26-11): ``"30 of 32 host busy (3 of them
    unstable too), 2 unstable"``, ``"12 of 12 host busy and unstable"``. ``rates``: the statuses of the request-rate levels
    (:func:`perf.analysis.recommendation.excluded.rate_statuses`), counted with them."""
    flags = [p.flags.split("; ") for p in cands] + [[s] for s in rates]
    busy = sum(HOST_BUSY in f for f in flags)
    both = sum(HOST_BUSY in f and UNSTABLE in f for f in flags)
    rest = len(flags) - busy
    if not busy:
        return f"{rest} of {len(flags)} unstable"
    return (
        f"{busy} of {len(flags)} host busy"
        + (f" and {UNSTABLE}" if both == busy else f" ({both} of them {UNSTABLE} too)" if both else "")
        + (f", {rest} unstable" if rest else "")
    )


def busy_note(points: dict[str, list[Point]], rates: Sequence[str] = ()) -> list[str]:
    """A note at the top of a rounds run's report when every level was flagged, the request-rate
    levels' ``rates`` statuses among them: its absolute numbers carry the flag, its ranking does
    not need a quiet host (empty otherwise)."""
    cands = [p for ps in points.values() for p in ps if candidate(p)]
    if not cands or any(p.status == "ok" for p in cands) or "ok" in rates:
        return []
    return [
        f"> **Every level of this run is flagged** ({flagged_counts(cands, rates)}): its "
        "throughputs and latencies are what the variants did on this host under that load, marked in every table. "
        "The ranking compares the variants within rounds in which they shared that load (Paired ranking); where it "
        "could not separate them it names a tie set.",
        "",
    ]


def same_leader(under: Ranking | None, peak: Ranking | None) -> bool:
    """Whether both rankings lead with one level (its :class:`perf.analysis.ranking.operating.Side`: variant,
    concurrency, client batch size and shape), as :func:`perf.report.sections.recommendation.peak_lines` compares
    its two picks."""
    return (
        under is not None
        and peak is not None
        and under.leader is not None
        and peak.leader is not None
        and (under.leader.side == peak.leader.side)
    )


def same_ranking(under: list[str], peak: list[str], title: str, same: bool) -> list[str]:
    """The best peak's ranking (``peak``, :func:`comparison_lines`), or, where its pick is the level the best under the
    budget's (``under``) names (``same``: :func:`same_leader`), one line pointing to it where everything below that
    heading is the same, word for word (its tie set, table and notes), else a heading without the level's numbers over
    its own runner-ups: both were said in full for one level that is both picks (re-check 20, NEW-4; the
    Recommendation says it as one line too: :func:`perf.report.sections.recommendation.peak_lines`)."""
    if not same or not under or not peak:
        return peak
    if under[1:] != peak[1:]:  # its own runner-ups: its numbers are the ones above
        return [f"- **{title}:** the same level as the best under the budget above, ranked against its own runner-ups:"] + peak[
            1:
        ]
    return [f"- **{title}:** the same level as the best under the budget above, with the same runner-ups, verdicts and notes."]


def _names(pick: Choice | None, ranking: Ranking | None) -> bool:
    """The Recommendation's ``pick`` is ``ranking``'s leader: it says what that level beats (its verdict)."""
    lead = ranking.leader.side if ranking is not None and ranking.leader is not None else None
    return pick is not None and lead is not None and pick.variant == lead.variant and pick.at(lead.concurrency, lead.batch_size)


def ranking_lines(run: RunResult, rec: Recommendation) -> list[str]:
    """The ``## Paired ranking`` section (module docstring); none for a sequential run."""
    if run.rounds is None:
        return []
    lines = ["## Paired ranking", ""]
    lines += design_lines(run, rec)
    pruned = {d.variant for d in run.search.decisions if d.rule == "pruned"} if run.search else set()
    tied = lambda c: c is not None and c.tied  # noqa: E731  # the Recommendation lists its tie set (Choice.listed)
    under: list[str] = []
    if rec.latency_budget_ms is not None:
        under = comparison_lines(
            rec.ranking_under_budget,
            f"Best under the {rec.budget_text}",
            rec.latency_percentile,
            rec.latency_budget_ms,
            pruned,
            run,
            tied(rec.best_under_budget),
            _names(rec.best_under_budget, rec.ranking_under_budget),
        )
    peak = peak_heading(rec.best_peak)
    lines += under + same_ranking(
        under,
        comparison_lines(
            rec.ranking,
            peak,
            rec.latency_percentile,
            pruned=pruned,
            run=run,
            said_above=tied(rec.best_peak),
            verdict_above=_names(rec.best_peak, rec.ranking),
        ),
        peak,
        rec.latency_budget_ms is not None and same_leader(rec.ranking_under_budget, rec.ranking),
    )
    shown = [rec.ranking_under_budget if rec.latency_budget_ms is not None else None, rec.ranking]
    lines += fewer_rounds_lines(shown)
    if any(r is not None and r.comparisons for r in shown):  # its column, once under the tables (trial 23, T23-7)
        lines.append(f"- {delta_words(rec.latency_percentile)}")
    lines += budget_lines(run, rec)
    return [*lines, ""]
