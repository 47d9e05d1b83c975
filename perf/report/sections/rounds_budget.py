"""The Paired ranking section's account of a rounds sweep: how its rounds were run
(:func:`design_lines`), why each group's rounds ended (:func:`ended_words`), and the time budget's
estimate and spending (:func:`budget_lines`; the section: :mod:`perf.report.sections.ranking`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from core.wording import count, sentence
from perf.analysis.baseline_owed import baseline_owed
from perf.analysis.measured import has_numbers
from perf.analysis.ranking.operating import Side
from perf.analysis.ranking.standing import (
    contention,
    ranked_words,
    settled_recorded,
    uncompared,
)
from perf.analysis.recommendation.recommend import Recommendation
from perf.analysis.saturation.peaks import judged_cut, peak_title
from perf.analysis.stats.paired import RULE
from perf.markdown import LIST_LIMIT, capped, fmt
from perf.records.results import RunResult
from perf.records.rounds import BudgetRecord, Cut
from perf.records.workloads import workload
from perf.report.sections.said import SEE, cut_facts, cut_said, own
from perf.report.sections.servers import group_end_words
from perf.search.budget import LOAD_WORDS, not_measured
from perf.search.promise import CUT_ORDER
from perf.sweep.budget_scope import report_words

#: Words for each kind of cut.
CUT_WORDS = {
    "variant": "variant not measured",
    "levels": "levels not measured",
    "rounds": "rounds not measured",
    "ladder": "ladder stopped",
    "baseline": "in-process baseline",
}


#: What one cut of each kind is, counted (:func:`cut_count`): the "(N)" of the list says what it counts (trial 27, T27-6:
#: "Cut for time (7)" beside the console's "4 variants not measured" counted a level cap, a ladder stop, 4 variants and
#: the in-process baseline as one kind of thing).
CUT_NOUNS = {
    "variant": ("variant", None),
    "levels": ("level cap", None),
    "rounds": ("cut of the rounds", "cuts of the rounds"),  # "(1 rounds cut)" (trial 31, F14's nit)
    "ladder": ("ladder stop", None),
    "baseline": ("in-process baseline skip", None),
}


def cut_count(cuts: Sequence[Cut]) -> str:
    """How many ``cuts``, each kind counted on its own: ``"1 level cap"``, ``"7: 4 variants, 1 level cap, 1 ladder
    stop, 1 in-process baseline skip"`` (kinds in :data:`CUT_NOUNS`' order)."""
    kinds = [count(n, *CUT_NOUNS[k]) for k in CUT_NOUNS if (n := sum(1 for c in cuts if c.kind == k))]
    return kinds[0] if len(kinds) == 1 else f"{len(cuts)}: {', '.join(kinds)}"


#: The appendix's section of every cut for time (report.md's part of the cut list moves under it too).
CUT_SECTION = "Paired ranking: the variants and levels cut for time"


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
        f"flagged visit; the doubling levels next to a variant's best join once it has {r.min_rounds} rounds. A level the rule calls below the variant's best on {r.min_rounds} or more paired rounds (never the median alone), "
        "(a far gap too waits for the rule's rounds), or over the budget on 3 rounds not host busy (or far over what "
        "the host's load explains), is no longer measured, each "
        "client workload's levels judged on that workload's own numbers (a size or a batch size is the client's, never "
        "compared across workloads); a variant the pick beats by the rule, and that cannot climb, is dropped (pruning). Rounds end "
        f"when the ranking is decided, after {r.max_rounds} rounds of a group, or when the next round would not fit the budget.",
    ]
    seen: dict[frozenset[str], int] = {}
    for g in rr.groups:
        same = seen.setdefault(frozenset(g.variants), g.index) if g.variants else g.index
        who = (
            "no variant measured"  # T17-2: "Group 2 ()" for a final whose loads were not made, or undone (load_cuts.drop)
            if not g.variants
            else f"the same {count(len(g.variants), 'variant')} as group {same + 1}, in a later session of the run"
            if same != g.index
            else ", ".join(f"`{n}`" for n in g.variants)
        )
        if not own(run):  # an older toolkit's words on why it was loaded and ended: apart (issue 26)
            end = group_end_words(run, g.index) if not g.ended else None
            lines.append(
                f"- Group {g.index + 1} ({who}): loaded and prepared in {fmt(g.load_s, 1)} s; {_rounds_of(run, g.index)}"
                + (f"; {end}" if end else "")
                + f" (why it was loaded{' and why its rounds ended' if g.ended else ''}: {SEE})."
            )
            continue
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


def pick_workload(run: RunResult | None, lead: Side) -> str:
    """The label of the pick's client workload (its series', else its level's size)."""
    v = run.variant(lead.variant) if run is not None else None
    return (workload(v) if v is not None else None) or lead.shape or "workload"


def _nth(step: int) -> str:
    """``"every doubling"`` (1), ``"every other doubling"`` (2), ``"every 3th doubling"``... ."""
    return "every doubling" if step <= 1 else "every other doubling" if step == 2 else f"every {step}th doubling"


def ended_words(run: RunResult, rec: Recommendation | None, ended: str, whole: bool = False) -> str:
    """Why the rounds ended, saying which ranking was decided (:func:`perf.analysis.ranking.standing.ranked_words`:
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
        f"{fmt(b.visit_s, 2)} s, {fmt(b.load_s, 1)} s per variant {LOAD_WORDS})"
        + (
            f"; fitted again after the loads took {fmt(b.refit_load_s, 1)} s a variant {LOAD_WORDS}: about "
            f"{count(b.refit_rounds, 'round')}, estimated {fmt(b.refit_estimate_s, 0)} s for the rounds"
            if b.refit_rounds is not None and b.refit_load_s is not None
            else ""
        )
        + (f"; spent {fmt(b.spent_s, 0)} s on the sweep" if b.spent_s is not None and b.sessions == 1 else "")
        + (f"; the run in all: {fmt(b.spent_s, 0)} s over {count(b.sessions, 'session')}" if b.sessions > 1 else "")
        + (f" and {fmt(b.baseline_s, 0)} s on the in-process baseline" if b.baseline_s is not None else "")
        + report_words(run.sessions[-1] if run.sessions else None, b.sessions)
        + (f"; rounds ended: {ended_words(run, rec, rr.ended, whole=True) if own(run) else SEE}" if rr.ended else "")
        + ".",
    ]
    judged = [j for c in rr.in_force() if (j := judged_cut(run, c)) is not None]  # "still rose" by the one rule (peaks.rise)
    made_good = [c for c in judged if c.kind == "baseline" and baseline_measured(run)]
    judged = [c for c in judged if c not in made_good]
    if judged:
        order = f" ({CUT_ORDER})" if any(c.kind == "variant" for c in judged) else ""  # said once, not a cut's reason
        lines += [f"- **Cut for time** ({cut_count(judged)}){order}:"] + capped(cut_items(run), indent="  ")
    else:
        lines.append("- Nothing was cut for time.")
    if made_good:  # trial 21, T21-7: "skipped ... `triton-perf baseline RUN` measures it" of a run that has it
        lines.append(
            f"- The in-process baseline, skipped for time in {count(len(made_good), 'earlier session')}, was measured "
            "since (Serving efficiency)."
        )
    return lines


def cut_items(run: RunResult) -> list[str]:
    """Each cut for time in force, in words (:func:`budget_lines` lists the first few, :func:`cut_details` all)."""
    rr = run.rounds
    if rr is None or rr.budget is None:
        return []
    judged = [j for c in rr.in_force() if (j := judged_cut(run, c)) is not None]
    return [_cut_line(run, c) for c in judged if not (c.kind == "baseline" and baseline_measured(run))]


def cut_details(run: RunResult) -> list[str]:
    """The appendix's full list of the cuts for time where report.md's is capped (:data:`CUT_SECTION`): the "… N more in
    appendix.md" of report.md's list points to it (trial 27, T27-6: the appendix's copy said "… 2 more in its full list
    above", and there was none)."""
    items = cut_items(run)
    return [f"## {CUT_SECTION}", "", *[f"- {x}" for x in items], ""] if len(items) > LIST_LIMIT else []


def baseline_measured(run: RunResult) -> bool:
    """Whether ``run``'s in-process baseline stands beside every variant it ranks
    (:func:`perf.analysis.baseline_owed.baseline_owed`, one answer per variant): a skip of it recorded by a session (a
    ``baseline`` :class:`~perf.records.rounds.Cut`) was made good by a later one (``triton-perf baseline RUN``), and is
    no cut of the run. Any point timed is not enough (trial 29, T29-1: a resume skipped it for the two variants it
    added, and the report said the skip "was measured since")."""
    return run.baseline is not None and not baseline_owed(run)


def _cut_line(run: RunResult, c: Cut) -> str:
    """One cut in words; a variant with numbers (from an earlier session) is "not measured
    further in this session", in the label and in a reason recorded before that wording; an older
    toolkit's reason is said apart (:mod:`perf.report.sections.said`), its numbers here."""
    further = c.kind == "variant" and bool(c.variant) and has_numbers(run, c.variant or "")
    label = f"variant {not_measured(True)}" if further else CUT_WORDS[c.kind]
    if not own(run):
        return cut_said(label, c.variant, cut_facts(c))
    if c.kind == "variant":  # a run recorded before the order was said once carries it in each reason
        c = dataclasses.replace(c, reason=c.reason.split(" (cut in this order: ")[0])
    if further:  # said once, in the label (trial 25, T25-10: "... (`x`): not measured further in this session: ...")
        return cut_said(label, c.variant, c.reason.removeprefix(f"{not_measured(True)}: ").removeprefix("not measured: "))
    return cut_said(label, c.variant, c.reason)


def _rounds_of(run: RunResult, group: int) -> str:
    """``"3 rounds measured"``: the rounds recorded for ``group`` (re-derived, not the saved words)."""
    n = sum(1 for r in run.rounds.measured() if r.group == group) if run.rounds else 0
    return f"{count(n, 'round')} measured"


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
