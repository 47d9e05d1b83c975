"""What a co-location session's search ran, beside what its plan said it would (trial 20, T20-3: the plan said "its
final rounds ... will be cut", they ran in full and no line said the prediction did not hold): each prediction of the
session (the plan line before the run, each fitting again: :mod:`perf.colocate.plan`) and, at the search's end, what
ran (:func:`ran_words`), recorded with the fittings again in :attr:`perf.records.colocation.ColocationRecord.refits`;
the plan fitted again itself (:func:`refit_words`) and the console's seconds of a session (:func:`spent_words`). Moved
from :mod:`perf.colocate.plan` (the fitting again and the seconds as that module passed 400 lines, trial 21, T21-4).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

from core.wording import count
from perf.analysis.recommendation.cuts import suggested_s
from perf.colocate.plan import Estimate, PlannedStep, Prices, covers_words, estimate, priced_words
from perf.markdown import apart
from perf.records.colocation import ColocationRecord
from perf.records.provenance import as_said, toolkits, written_by_today

#: Who the plan line before the run is, beside each fitting again (``"step 2's fitting again"``).
BEFORE = "the plan before the run"
#: How the sentence of what a session's search ran starts (:func:`ran_words`; :func:`ran_lines` looks for it).
RAN_HEAD = "what ran"

#: What a plan can say the time budget does to one pass, and what a session's search did (:func:`forecast`,
#: :func:`ran_words`): ``"whole"`` every step ran (nothing cut), ``"final"`` the final rounds cut (a pick without its
#: final numbers), ``"undecided"`` a step before the pick cut (no pick decided).
Forecast = str
_SAID = {
    "whole": "the time budget covers the pass",
    "final": "its final rounds (the pick alone and together) would be cut",
    "undecided": "steps before a pick would be cut",
}
_RAN = {
    "whole": "every step of the pass, the final rounds included (nothing cut)",
    "final": "the moves, then the final rounds cut (the pick without its final numbers)",
    "undecided": "cut before the moves ended (no pick decided)",
}


def forecast(est: Estimate) -> Forecast:
    """What ``est`` says the time budget does to the pass (:data:`Forecast`), as :func:`perf.colocate.plan.covers_words` words it."""
    if est.covered == len(est.steps):
        return "whole"
    return "final" if all(s.label == "final" for s, _c in est.steps[est.covered :]) else "undecided"


def ran_words(said: Sequence[tuple[str, Forecast]], ran: Forecast, spent_s: float) -> str | None:
    """What a session's search did beside what its plan said it would (trial 20, T20-3: the plan said "its final
    rounds ... will be cut", they ran in full and no line said the prediction did not hold): one rule for every plan
    prediction colocate makes (the plan line before the run, each fitting again: ``said``, ``(who, forecast)``), each
    said to hold or not against ``ran`` (the session's :data:`Forecast`, ``spent_s`` its seconds). ``None`` where
    nothing was predicted (a search given no plan), or only the plan before the run (:data:`BEFORE`) predicted, no
    cut, and nothing was cut; a session whose plan was fitted again (recorded) records what ran whatever it was, so
    that a record without it is one whose toolkit did not record it (:func:`ran_lines`)."""
    if not said or (ran == "whole" and all(f == "whole" and w == BEFORE for w, f in said)):
        return None
    parts = []
    for f in dict.fromkeys(f for _w, f in said):  # each prediction once, with every one who said it
        who = " and ".join(w for w, g in said if g == f)
        held = "as it ran" if f == ran else ("the cut predicted did not happen" if ran == "whole" else "not as it ran")
        parts.append(f"{who} said {_SAID[f]}: {held}")
    # the search's seconds, said at its end: the server's stop comes after (trial 21, T21-4 K2: "what ran in 173 s" beside
    # "52 visits in 179 s", the session's, in the same console)
    return f"{RAN_HEAD} in {spent_s:.0f} s of the search (the server's stop after it not counted): {_RAN[ran]}; " + "; ".join(
        parts
    )


def ran_lines(record: ColocationRecord) -> list[str]:
    """The report's lines of the plan fitted again and what ran (:attr:`ColocationRecord.refits`), each as saved or
    marked (:func:`perf.records.provenance.as_said`); where none of them says what ran and an older toolkit ran the
    run (the same rule: not :func:`perf.records.provenance.written_by_today`), one more that says so, with that toolkit
    (re-check 20, NEW-8: a run recorded before what ran was (b2001ec), re-rendered, showed the heading "... and what
    ran" over its prediction alone). A run saved before runs recorded their toolkit (dbcde0b) says that too."""
    lines = [as_said(record, r) for r in record.refits]
    if not record.refits or written_by_today(record) or any(r.startswith(RAN_HEAD) for r in record.refits):
        return lines
    ids = toolkits(record)
    which = f"toolkit {', '.join(ids)}" if ids else "its toolkit not recorded either: the run was saved before runs recorded it"
    return [*lines, f"{RAN_HEAD}: not recorded by the toolkit that ran it ({which})"]


def _beside(now_s: float, planned_s: float) -> tuple[str, str]:
    """A price timed and the one planned, at two significant digits of the first (whole seconds from 10 s, never
    ``"1.2e+02"``), more where they would print equal (:func:`perf.markdown.apart`: "a visit about 3 s (planned at 3 s)"
    for 3.01 against 3.0)."""
    d = apart(now_s, planned_s, max(0, 1 - math.floor(math.log10(now_s))) if now_s > 0 else 0)
    return f"{now_s:.{d}f}", f"{planned_s:.{d}f}"


def refit_estimate(rest: Sequence[PlannedStep], now: Prices, left_s: float | None) -> Estimate:
    """The rest of the pass (``rest``) at the prices ``now`` against the ``left_s`` of the budget left, the session's
    server started already: what :func:`refit_words` says and :func:`perf.colocate.outcome.forecast` reads."""
    return estimate(rest, dataclasses.replace(now, start_s=0.0), left_s)


def refit_words(rest: Sequence[PlannedStep], planned: Prices, now: Prices, elapsed_s: float, left_s: float | None) -> str | None:
    """The plan fitted again once loads are timed (module docstring): the rest of the pass (``rest``, from the step
    whose loads are done) at the prices ``now`` against the prices it was planned at (``planned``), with ``elapsed_s``
    spent and ``left_s`` of the time budget left (``None``: no budget); ``None`` where the estimate and what the
    budget covers are the same at both (nothing to say)."""
    now = dataclasses.replace(now, start_s=0.0)  # the session's server started already
    before = estimate(rest, dataclasses.replace(planned, start_s=0.0), left_s)
    after = refit_estimate(rest, now, left_s)
    if math.ceil(before.total_s) == math.ceil(after.total_s) and before.covered == after.covered:
        return None
    timed = []
    if now.loads_timed:
        a, b = _beside(now.load_s, planned.load_s)
        timed.append(f"{count(now.loads_timed, 'load')} timed, about {a} s each (planned at {b} s)")
    if now.unloads_timed:  # their mean, as the sweep prices them (perf.sweep.load_cuts.unload_s)
        a, b = _beside(now.unload_s, planned.unload_s)
        timed.append(f"{count(now.unloads_timed, 'unload')} timed, priced at {a} s each (planned at {b} s)")
    if now.visits_timed:
        a, b = _beside(now.visit_s, planned.visit_s)
        timed.append(f"a visit about {a} s (planned at {b} s)")
    else:  # the first loads come before the first visit: the estimate rests on the window's until one is timed
        timed.append(f"no visit timed yet: each at the {now.visit_s:.2g} s the window gives")
    # the need and the time left with the decimals that tell them apart (trial 19, T19-8: "86 s ... 86 s")
    # and the estimate beside the one planned, by the same rule ("needs about 61 s ..., not the 61 s planned")
    d = (
        apart(after.total_s, before.total_s)
        if left_s is None
        else max(apart(after.total_s, max(0.0, left_s)), apart(after.total_s, before.total_s))
    )
    said = (
        f"the plan fitted again to the times measured ({'; '.join(timed)}): the rest of one pass needs about "
        f"{after.total_s:.{d}f} s ({priced_words(after, now)}), not the {before.total_s:.{d}f} s planned"
    )
    if left_s is None or after.covered == len(after.steps):
        return said + ("" if left_s is None else f"; the {max(0.0, left_s):.{d}f} s left of the time budget cover it")
    return f"{said}; " + covers_words(
        after, f"the {max(0.0, left_s):.{d}f} s left of the time budget cover", suggested_s(elapsed_s + after.total_s)
    )


def spent_words(record: ColocationRecord, session: tuple[int, float] | None, budget_s: float | None, resumed: bool) -> str:
    """The console's "N visits in S s" clause of a run's end: what ``record`` holds in all and, for a resumed run,
    what this session measured apart (re-check 19, NEW-5: a resume of an ended run printed "66 visits in 162 s in
    all (102 s over this session's 60 s time budget)", the run's two earlier sessions' seconds set against a
    session that measured nothing).

    Args:
        record: The run's record (every session's visits, :attr:`ColocationRecord.spent_s` their seconds).
        session: This session's (visits measured, seconds spent); ``None``: it measured nothing (the run had ended).
        budget_s: This session's ``--time-budget`` (s; ``None``: none). "Over" is said of this session's own
            seconds only, against it.
        resumed: The run was resumed (earlier sessions' visits and seconds are in ``record``).
    """
    spent = f"{count(len(record.visits), 'visit')} in {record.spent_s or 0.0:.0f} s"
    if session is None:
        sessions = max(len(record.session_budgets_s), len(record.resumed) + 1)
        return f"this session measured nothing; the run in all: {spent}, in {count(sessions, 'earlier session')}"
    visits, seconds = session
    over = seconds - budget_s if budget_s is not None else 0.0
    whose = "this session's" if resumed else "its"
    over_words = f" ({over:.0f} s over {whose} {budget_s:g} s time budget)" if over >= 1 else ""
    if not resumed:
        return spent + over_words
    return f"{spent} in all; this session: {count(visits, 'visit')} in {seconds:.0f} s{over_words}"
