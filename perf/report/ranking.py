"""The report's "Paired ranking" section: how a rounds sweep measured and what its paired rounds
show — the pick against each runner-up (median ratio, its min–max over rounds, rounds won, the
p-value of the rule, the latency difference, the verdict), the tie set, the time budget's
estimate and spending, and everything cut for time. Every number is read from the run
(:mod:`perf.records.rounds`) or derived from its per-round levels (:mod:`perf.analysis.ranking`).
A run measured one variant after another has no such section."""

from __future__ import annotations

import statistics
from collections.abc import Collection, Sequence

from core.wording import count, sentence
from perf.analysis.budget_latency import Judged, judged, latency_metric, within
from perf.analysis.cuts import has_numbers
from perf.analysis.paired import GAP_MIN, GAP_ROUNDS, RULE, p_cell
from perf.analysis.peaks import judged_cut, peak_title
from perf.analysis.ranking import MIN_ROUNDS, Comparison, Ranking, Side, levels_of, per_round, records
from perf.analysis.recommendation import Recommendation, candidate
from perf.analysis.standing import (
    FULL,
    SETTLED,
    SHORT,
    STEADY,
    contention,
    kind,
    member_words,
    others_words,
    outside_words,
    ranked_words,
    settled_recorded,
    tie_words,
    uncompared,
)
from perf.analysis.stats import Point
from perf.markdown import capped, fmt, table
from perf.records.levels import HOST_BUSY
from perf.records.results import RunResult
from perf.records.rounds import BudgetRecord, Cut
from perf.records.workloads import workload
from perf.report.servers import group_end_words
from perf.search.budget import not_measured

#: Runner-ups shown against the pick (the others are in the appendix and results.json).
SHOWN = 7
#: Words for each kind of cut.
CUT_WORDS = {
    "variant": "variant not measured",
    "levels": "levels not measured",
    "rounds": "rounds not measured",
    "ladder": "ladder stopped",
    "baseline": "in-process baseline",
}


def design_lines(run: RunResult, rec: Recommendation | None = None) -> list[str]:
    """How the rounds were run: groups, rounds, order, windows, the rule (bullets); each group's
    end as :func:`ended_words` says it (``rec``: which ranking it decided)."""
    rr = run.rounds
    if rr is None:
        return []
    r = rr.rules
    visits = sum(len(x.order) for x in rr.rounds)
    lines = [
        f"- **Design: interleaved rounds.** The variants in contention were loaded together and measured in "
        f"{count(len(rr.measured()), 'round')} ({count(visits, 'visit')}); each round measured every active (variant, level) once, in an "
        f"order shuffled with seed `{rr.seed}` + the round's index (recorded per round in `results.json`), each visit "
        f"one perf_analyzer run of 3 windows of {r.window_ms} ms. Load, cold start and warm-up happened before the "
        "rounds, outside every window.",
        f"- **The rule:** {sentence(RULE)} Each comparison is paired within a round: background load that changes between "
        "rounds moves both sides together and cancels in their ratio.",
        f"- **Levels:** an adaptive ladder starts with its first {r.first_levels} coarse levels ("
        f"{_nth(r.first_step)}) and adds coarse levels while fewer "
        f"than {r.flat_window} doublings at its top are flat (median paired gain below the search's minimum gain); it "
        f"ends after {r.flat_window} flat doublings judged on at least {r.min_rounds} paired rounds each, never on one "
        f"flagged visit; the doubling levels next to a variant's best join once it has {r.min_rounds} rounds. A level behind the variant's best in the median of {r.min_rounds} paired rounds is no longer "
        f"measured; a variant the pick beats by the rule, and that cannot climb, is dropped (pruning). Rounds end "
        f"when the ranking is decided, after {r.max_rounds} rounds of a group, or when the next round would not fit the budget.",
    ]
    seen: dict[frozenset[str], int] = {}
    for g in rr.groups:
        same = seen.setdefault(frozenset(g.variants), g.index)
        who = (
            f"the same {count(len(g.variants), 'variant')} as group {same + 1}, in a later session of the run"
            if same != g.index
            else ", ".join(f"`{n}`" for n in g.variants)
        )
        end = ended_words(run, rec, g.ended) if g.ended else group_end_words(run, g.index)
        lines.append(
            f"- Group {g.index + 1} ({who}): {g.reason}; loaded and prepared in {fmt(g.load_s, 1)} s"
            + (f"; {end}" if end else "")
            + "."
        )
    if len(seen) > 1:  # groups of other variants (a resumed run's sessions of the same ones share their rounds)
        lines.append(
            "- Variants of different groups never shared a round, so they are compared only through the final "
            "group of the groups' tie sets (when one ran)."
        )
    return lines


#: Marks a row whose numbers are another level's comparison with the runner-up (a drop, the pick's other level).
OTHER_SIDE = "‡"


def _unranked_higher(run: RunResult | None, c: Comparison, budget_ms: float | None, metric: str) -> str:
    """``"; its c=4, 304.5 infer/s over 2 rounds, too few to compare"`` when the runner-up measured
    more at a level (within ``budget_ms``) with fewer rounds than a comparison rests on than at the
    level it is ranked at (:func:`perf.analysis.ranking.operating_point`; trial 8: "the pick beats
    it" at c=1, 4.1x, beside its 304.5 infer/s at c=4, 2.3x the pick's), else ``""``."""
    vr = run.variant(c.b.variant) if run is not None else None
    if vr is None:
        return ""
    at = statistics.median(list(per_round(vr, c.b).values()) or [0.0])
    more = [
        (statistics.median(vals.values()), s, len(vals))
        for s in levels_of(vr)
        if (vals := per_round(vr, s)) and len(vals) < GAP_ROUNDS and within(judged(records(vr, s), metric), budget_ms)
    ]
    best = max((m for m in more if m[0] > at), key=lambda m: m[0], default=None)
    if best is None:
        return ""
    return f"; its c={best[1].concurrency}, {fmt(best[0])} infer/s over {count(best[2], 'round')}, too few to compare"


def _row(c: Comparison, lead: Side, higher: str = "") -> list[str]:
    r = c.result
    if r is None:
        return [f"`{c.b.variant}`", str(c.b.concurrency), "—", "—", "0", "—", "—", member_words(c)]
    diff = c.median_latency_diff_ms
    return [
        f"`{c.b.variant}`",
        str(c.b.concurrency),
        f"{r.median:.3f}" + (f" {OTHER_SIDE}" if c.a != lead else ""),
        f"{r.low:.3f}–{r.high:.3f}" if r.rounds > 1 else "(one round)",  # no range of one value (trial 9: "2.374–2.374")
        f"{r.wins} of {r.rounds}",
        p_cell(r.decided_p, r.tier),
        "—" if diff is None else f"{diff:+.2f}",
        _verdict(c, lead) + higher,
    ]


def _verdict(c: Comparison, lead: Side) -> str:
    """The row's verdict; a comparison the search dropped the runner-up on names its sides."""
    if c.verdict == "a" and c.a.variant == lead.variant and c.a != lead:  # perf.analysis.ranking: the pick's other levels
        return f"the pick at c={c.a.concurrency} beats it"
    if c.verdict == "a" and c.a != lead:
        return f"`{c.a.variant}` at c={c.a.concurrency} beats it (the search dropped it)"
    return {"a": "the pick beats it", "b": "it beats the pick"}.get(c.verdict) or member_words(c, with_ratios=False)


def _judged(lat: Judged | None, percentile: int, budget_ms: float | None) -> str:
    """How the pick's latency was judged against the budget, when only its quieter rounds are
    within it (:mod:`perf.analysis.budget_latency`)."""
    said = lat.picked_on(percentile, budget_ms) if lat is not None and budget_ms is not None else None
    return f"; {said}" if said else ""


def tie_set_words(ranking: Ranking, pruned: Collection[str] = (), run: RunResult | None = None) -> str:
    """The tie set in words (:func:`perf.analysis.standing.tie_words`, the recommendation line's
    words): the members that shared the rule's rounds with the pick are as good a choice on this
    evidence; those that shared fewer (a large gap aside) are *not separated for lack of rounds*,
    which is no evidence that they are as good (``pruned``: variants the search stopped measuring,
    whose early rounds are all this ranking has); then the variants outside the tie set
    (:func:`perf.analysis.standing.outside_words`: every one of ``run``'s variants accounted for)."""
    tied = [c for c in ranking.comparisons if c.b.variant in ranking.names[1:]]
    short = [c for c in tied if kind(c) in (STEADY, SHORT)]
    full = [f"`{c.b.variant}`" for c in tied if kind(c) == FULL]
    done = [f"`{c.b.variant}`" for c in tied if kind(c) == SETTLED]
    text = f"- **Tie set** (what the pick does not beat by the rule): {sentence(tie_words(ranking))}"
    if full:
        text += (
            f" {', '.join(full)} shared at least {MIN_ROUNDS} rounds with it: as good a choice on this evidence (more "
            "rounds, or a quieter host, may separate them)."
        )
    if done:  # the search stopped because more rounds could not separate them (trial 9, F37)
        text += (
            f" {', '.join(done)}: as good a choice on this evidence (the rounds left to the group could not have "
            "separated them; a quieter host may)."
        )
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
    if outside := outside_words(ranking, run, ranking.budget_ms is not None):
        text += f" {sentence(outside, capital=True)}"
    return text


def comparison_lines(
    ranking: Ranking | None,
    what: str,
    percentile: int,
    budget_ms: float | None = None,
    pruned: Collection[str] = (),
    run: RunResult | None = None,
) -> list[str]:
    """The pick against each runner-up as a table, and its tie set in words (:func:`tie_set_words`);
    what it beats is counted against ``run``'s variants (:func:`perf.analysis.standing.others_words`)."""
    if ranking is None or ranking.leader is None:
        return [f"- {what}: no variant has a level {'within the budget' if budget_ms is not None else 'to rank'}."]
    lead = ranking.leader.side
    lines = [
        f"- **{what}:** `{lead.variant}` at concurrency {lead.concurrency} (round-adjusted "
        f"{fmt(ranking.leader.adjusted_infer_per_s)} infer/s over {count(ranking.leader.rounds, 'round')}"
        + (f"; within the budget in {ranking.leader.within_budget} of them" if ranking.leader.within_budget is not None else "")
        + (_judged(ranking.leader.latency, percentile, budget_ms) if ranking.leader.within_budget is not None else "")
        + ").",
    ]
    if len(ranking.tie_set) > 1:
        lines.append(tie_set_words(ranking, pruned, run))
    elif uncompared(ranking):  # neither beaten nor tied (trial 11, F9)
        lines.append(
            f"- It beats {others_words(ranking, run, budget_ms is not None)} by the rule; it is named first by "
            "throughput (round-adjusted), not as the winner."
        )
    elif ranking.comparisons:
        lines.append(f"- It beats every other ranked variant by the rule ({others_words(ranking, run, budget_ms is not None)}).")
    if ranking.comparisons:
        head = ["runner-up", "at c", "ratio (median)", "min–max", "pick ahead", "p", f"Δ p{percentile} ms", "verdict"]
        metric = latency_metric(percentile)
        rows = [_row(c, lead, _unranked_higher(run, c, budget_ms, metric)) for c in ranking.comparisons[:SHOWN]]
        lines += ["", *table(head, rows, ["left", "right", "right", "right", "right", "right", "right", "left"]), ""]
        if len(ranking.comparisons) > SHOWN:
            lines.append(f"- {len(ranking.comparisons) - SHOWN} more runner-ups in `results.json` (every round's number).")
        if any(c.a != lead and c.result is not None for c in ranking.comparisons[:SHOWN]):  # trial 8: read as the pick's
            lines.append(
                f"- {OTHER_SIDE}: this row's numbers (ratio, min–max, rounds ahead, p, Δ) are of the comparison its verdict "
                f"names, that level against the runner-up, not of the pick at c={lead.concurrency}."
            )
    if ranking.other_sizes:
        lines.append(
            f"- Client workloads: the pick is compared only with series of its own workload ({_workload(run, lead)}); "
            f"{count(len(ranking.other_sizes), 'series', 'series')} at other workloads are not its rivals "
            "(an input size or a client batch size is the client's, not a setting to pick)."
        )
    if any(
        c.result is not None and len(c.rounds) < MIN_ROUNDS and c.verdict == "not distinguishable" for c in ranking.comparisons
    ):
        lines.append(
            f"- A comparison with fewer than {MIN_ROUNDS} common rounds is called only on a large, consistent gap "
            f"({GAP_ROUNDS} rounds or more, every one {GAP_MIN:g}× or more the same way): else not distinguishable."
        )
    return lines


def _workload(run: RunResult | None, lead: Side) -> str:
    """The label of the pick's client workload (its series', else its level's size)."""
    v = run.variant(lead.variant) if run is not None else None
    return (workload(v) if v is not None else None) or lead.shape or "workload"


def _nth(step: int) -> str:
    """``"every doubling"`` (1), ``"every other doubling"`` (2), ``"every 3th doubling"``... ."""
    return "every doubling" if step <= 1 else "every other doubling" if step == 2 else f"every {step}th doubling"


def ended_words(run: RunResult, rec: Recommendation | None, ended: str, whole: bool = False) -> str:
    """Why the rounds ended, saying which ranking was decided (:func:`perf.analysis.standing.ranked_words`:
    the engine names it; a run recorded before it did says "ranking decided", and with the run's own
    latency budget that was the ranking under it, or the peak ranking where no variant has a level
    within it, :meth:`perf.search.rounds.Rounds.ranked`); ``whole`` (the run's end): when the ranking
    under the budget was decided, also that the peak ranking was not, and the time budget left unused
    (trial 6: "ranking decided" beside 7 peak runner-ups not distinguishable and 48 s of the budget unused)."""
    ended = settled_recorded(ended)
    own = run.settings.get("latency_budget_ms")
    if own is None:
        return ended
    if ended.startswith(("ranking decided", "ranking settled")):  # recorded before the engine named its ranking
        under = rec.ranking_under_budget if rec is not None else None
        met = rec is None or (under is not None and under.leader is not None)
        pct = run.settings.get("latency_percentile") or 99
        ended = f"{ranked_words(float(own), pct, met)} {ended.removeprefix('ranking ')}"
    if not ended.startswith("ranking under the"):
        return ended
    text = f"the {ended}"
    if rec is not None and (rec.ranking_under_budget is None or rec.ranking_under_budget.leader is None):
        return f"{text}, as the release that ran it judged the budget (no level is within it by today's rule: see the Recommendation)"
    peak = rec.ranking if rec is not None else None
    if whole and peak is not None and len(contention(peak)) > 1:
        apart = len(uncompared(peak))
        why = [f"not separated by the rule from {count(len(peak.tie_set) - 1, 'other')}"] if len(peak.tie_set) > 1 else []
        why += [f"never compared with {count(apart, 'other')}"] if apart else []
        text += (
            f"; the peak ranking was not decided (its pick {' and '.join(why)}: "
            f"{peak_title(rec.best_peak if rec else None).split(' (')[0]} below)"
        )
        b = run.rounds.budget if run.rounds else None
        left = None if b is None or b.budget_s is None or b.spent_s is None else b.budget_s - b.spent_s - (b.baseline_s or 0.0)
        if b is not None and left is not None and left >= 0.1 * (b.budget_s or 0.0):
            text += f", with {fmt(left, 0)} s of the {fmt(b.budget_s, 0)} s time budget unused"
    return text


def budget_lines(run: RunResult, rec: Recommendation | None = None) -> list[str]:
    """The time budget: estimate, real time, and every cut (``rec``: for :func:`ended_words`)."""
    rr = run.rounds
    if rr is None or rr.budget is None:
        return []
    b = rr.budget
    lines = [
        "- **Time budget:** "
        + (_session_words(b) if b.sessions > 1 else f"{fmt(b.budget_s, 0)} s" if b.budget_s is not None else "none")
        + f"; estimated {fmt(b.estimate_s, 0)} s before the start ({count(b.planned_rounds, 'round')} of visits of about "
        f"{fmt(b.visit_s, 2)} s, {fmt(b.load_s, 1)} s per variant to load)"
        + (
            f"; fitted again after the loads took {fmt(b.refit_load_s, 1)} s a variant: about "
            f"{count(b.refit_rounds, 'round')}, estimated {fmt(b.refit_estimate_s, 0)} s for the rounds"
            if b.refit_rounds is not None and b.refit_load_s is not None
            else ""
        )
        + (f"; spent {fmt(b.spent_s, 0)} s on the sweep" if b.spent_s is not None and b.sessions == 1 else "")
        + (f"; the run in all: {fmt(b.spent_s, 0)} s over {count(b.sessions, 'session')}" if b.sessions > 1 else "")
        + (f" and {fmt(b.baseline_s, 0)} s on the in-process baseline" if b.baseline_s is not None else "")
        + (f"; rounds ended: {ended_words(run, rec, rr.ended, whole=True)}" if rr.ended else "")
        + ".",
    ]
    judged = [j for c in rr.cuts if (j := judged_cut(run, c)) is not None]  # "still rose" by the one rule (peaks.rise)
    if judged:
        cuts = [_cut_line(run, c) for c in judged]
        lines += [f"- **Cut for time** ({len(judged)}):"] + capped(cuts, indent="  ")
    else:
        lines.append("- Nothing was cut for time.")
    return lines


def _cut_line(run: RunResult, c: Cut) -> str:
    """One cut in words; a variant with numbers (from an earlier session) is "not measured
    further in this session", in the label and in a reason recorded before that wording."""
    if c.kind == "variant" and c.variant and has_numbers(run, c.variant):
        further = not_measured(True)
        return f"variant {further} (`{c.variant}`): {further}: {c.reason.removeprefix(further + ': ').removeprefix('not measured: ')}"
    return f"{CUT_WORDS[c.kind]}" + (f" (`{c.variant}`)" if c.variant else "") + f": {c.reason}"


def _session_words(b: BudgetRecord) -> str:
    """A resumed run's last session apart from the run: ``"this session: 75 s budget, 41 s spent"``
    (and the run's own budget when it differs), then the caller's ``"the run in all: 111 s over 2
    sessions"`` (the sum beside one session's budget read as overspent: "75 s ... spent 76 s")."""
    budget = f"{fmt(b.session_budget_s, 0)} s budget" if b.session_budget_s is not None else "no budget"
    spent = f", {fmt(b.session_spent_s, 0)} s spent" if b.session_spent_s is not None else ""
    own = (
        f" (the run's own: {fmt(b.budget_s, 0)} s)"
        if b.budget_s is not None and b.session_budget_s is not None and round(b.budget_s) != round(b.session_budget_s)
        else ""
    )
    return f"this session: {budget}{spent}{own}"


def flagged_counts(cands: list[Point], rates: Sequence[str] = ()) -> str:
    """``"32 of 32 host busy"``, ``"30 of 32 host busy, 2 unstable"``: the flagged levels by status,
    each status named only when some level has it; ``rates``: the statuses of the request-rate
    levels (:func:`perf.analysis.excluded.rate_statuses`), counted with them."""
    statuses = [p.status for p in cands] + list(rates)
    busy = sum(s == HOST_BUSY for s in statuses)
    rest = len(statuses) - busy
    if not busy:
        return f"{rest} of {len(statuses)} unstable"
    return f"{busy} of {len(statuses)} host busy" + (f", {rest} unstable" if rest else "")


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


def ranking_lines(run: RunResult, rec: Recommendation) -> list[str]:
    """The ``## Paired ranking`` section (module docstring); none for a sequential run."""
    if run.rounds is None:
        return []
    lines = ["## Paired ranking", ""]
    lines += design_lines(run, rec)
    pruned = {d.variant for d in run.search.decisions if d.rule == "pruned"} if run.search else set()
    if rec.latency_budget_ms is not None:
        under = f"Best under the {rec.budget_text}"
        lines += comparison_lines(rec.ranking_under_budget, under, rec.latency_percentile, rec.latency_budget_ms, pruned, run)
    lines += comparison_lines(rec.ranking, peak_title(rec.best_peak), rec.latency_percentile, pruned=pruned, run=run)
    lines += budget_lines(run, rec)
    return [*lines, ""]
