"""What a co-location session's search ran, beside what its plan said it would (trial 20, T20-3: the plan said "its
final rounds ... will be cut", they ran in full and no line said the prediction did not hold): each prediction of the
session (the plan line before the run, each fitting again: :mod:`perf.colocate.plan`) and, at the search's end, what
ran (:func:`ran_words`), recorded with the fittings again in :attr:`perf.records.colocation.ColocationRecord.refits`
(moved from :mod:`perf.colocate.plan`).
"""

from __future__ import annotations

from collections.abc import Sequence

from perf.colocate.plan import Estimate
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
    """What ``est`` says the time budget does to the pass (:data:`Forecast`), as :func:`perf.colocate.plan._covers` words it."""
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
    return f"{RAN_HEAD} in {spent_s:.0f} s: {_RAN[ran]}; " + "; ".join(parts)


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
