"""The sentences a sweep saved as it ran, said apart when today's code did not write them (issue 26); a co-location
run's, marked where they stand (:func:`colocation_note`).

A sweep saves its verdicts of the moment as sentences: why each group was loaded and why its rounds
ended, why the rounds ended, why a variant or levels were cut, why a ladder stopped. A report of a run
that an older toolkit ran (:func:`perf.records.provenance.written_by_today` false) re-derives what it can
from the measurements, keeps the numbers recorded beside those sentences (a load's time, a cut's need),
and says the sentences only here, under :data:`TITLE` with the toolkit and date that said them
(:func:`perf.records.provenance.said_by`), so they are never read as today's verdict (trial 17: "not
verified here", a tie set and "group 0" beside a ranking that said otherwise).
"""

from __future__ import annotations

from core.wording import sentence
from perf.markdown import LIST_LIMIT, capped
from perf.records.colocation import ColocationRecord
from perf.records.provenance import SAID_MARK, said_by, written_by_today
from perf.records.results import RunResult
from perf.records.rounds import Cut
from perf.records.workloads import decision_name

#: The section's title, and what the lines that moved here point to.
TITLE = "Said by the sweep when it ran"
#: Where a moved sentence is, in the line it left.
SEE = f"the sweep's words: in {TITLE!r}"


#: The phrases a cut's reason may open with, the longest first: said once, in its label (trial 25, T25-10: "variant
#: not measured further in this session (`x`): not measured further in this session: after the rounds ...").
CUT_OPENINGS = ("not measured further in this session", "not measured")


def cut_said(label: str, variant: str | None, reason: str) -> str:
    """A cut in words, ``"LABEL (`VARIANT`): REASON"``, its "not measured" said once: where ``reason`` opens with one
    of :data:`CUT_OPENINGS` and ``label`` ends "not measured", the label takes the reason's opening (the reason's
    words kept, word for word, after it): ``"variant not measured further in this session (`x`): after the rounds
    ..."``."""
    opening = next((o for o in CUT_OPENINGS if reason.startswith(f"{o}: ")), None)
    if opening is not None and label.endswith(CUT_OPENINGS[-1]):
        label, reason = label.removesuffix(CUT_OPENINGS[-1]) + opening, reason.removeprefix(f"{opening}: ")
    return f"{label}" + (f" (`{variant}`)" if variant else "") + f": {reason}"


def own(run: RunResult) -> bool:
    """The run's saved sentences are today's (every session run by this code): print them in place."""
    return written_by_today(run)


def cut_facts(c: Cut) -> str:
    """A cut said from its numbers alone: ``"about 109 s needed; the sweep's words: ..."``."""
    at = {"levels": f"from concurrency {c.concurrency}; ", "ladder": f"at concurrency {c.concurrency}; "}
    need = f"about {c.need_s:.0f} s needed; " if c.need_s is not None else ""
    return f"{at.get(c.kind, '') if c.concurrency is not None else ''}{need}{SEE}"


def said_lines(run: RunResult, cut_label: dict[str, str], limit: int | None = LIST_LIMIT) -> list[str]:
    """The ``## Said by the sweep when it ran`` section (a blank line ends it); none when the run's
    sentences are today's (:func:`own`) or it saved none. ``cut_label``: each :class:`Cut` kind's words;
    ``limit``: sentences shown, then how many more are in the appendix (``None``: every one)."""
    if own(run):
        return []
    lines: list[str] = []
    rr = run.rounds
    for g in rr.groups if rr is not None else []:
        end = f"; its rounds ended: {g.ended}" if g.ended else ""
        lines.append(f"Group {g.index + 1}: {g.reason}{end}.")
    if rr is not None and rr.ended:
        lines.append(f"The rounds ended: {sentence(rr.ended)}")
    for c in rr.cuts if rr is not None else []:
        lines.append(sentence(cut_said(cut_label.get(c.kind, c.kind), c.variant, c.reason)))
    for d in run.search.decisions if run.search is not None else []:
        lines.append(f"`{decision_name(run, d)}`: {sentence(d.words())}")
    if not lines:
        return []
    head = (
        f"> These sentences were {said_by(run)}: its verdicts at that time, by the rules of the code that ran "
        "it, kept word for word and not re-derived. Where they differ from the sections above (today's rules, "
        "re-derived from the same measurements), the sections above hold."
    )
    shown = capped(lines, limit) if limit is not None else [f"- {x}" for x in lines]
    return [f"## {TITLE}", "", head, "", *shown, ""]


def said_note(run: RunResult) -> str | None:
    """The console's line for a run whose saved sentences are not today's (``None`` when they are, or it
    saved none): where they are, and that every verdict printed is re-derived by today's rules."""
    if not said_lines(run, {}):
        return None
    return (
        f"this run's saved sentences (why groups were loaded and ended, cuts, ladder stops) were {said_by(run)}: "
        f"report.md says them apart, in {TITLE!r}; every verdict printed here is re-derived by today's rules "
        "from its measurements"
    )


def colocation_note(record: ColocationRecord) -> list[str]:
    """The note on the sentences the run saved as it ran (decisions, steps' outcomes, the pick's reason, cuts, the plan
    fitted again, each model's start), where today's code did not write them: each is marked
    :data:`~perf.records.provenance.SAID_MARK` where it stands (:func:`~perf.records.provenance.as_said`; re-check 19,
    NEW-1: "1× the budget" saved in "Every decision" beside today's "1.5× the budget" of the same level)."""
    if written_by_today(record):
        return []
    return [
        f"> Sentences marked {SAID_MARK} were {said_by(record, 'colocate')}: its verdicts at that time, by the rules "
        "of the code that ran it, kept word for word and not re-derived. The tables' numbers and targets are re-derived "
        "by today's rules from the same measurements; where they differ, those hold.",
        "",
    ]
