"""A co-location run recorded before what its search ran was (b2001ec), re-rendered: report.md's heading "The time
budget's plan, fitted again to the times measured, and what ran" stood over the old prediction alone (re-check 20,
NEW-8). Such a record says what ran was not recorded by the toolkit that ran it, naming that toolkit, or that the
toolkit was not recorded either (before dbcde0b); a run today's code ran records what ran whenever its plan was fitted
again, so it never needs the line. colocation.json of the old shape, written and read back as a report reads it."""

from __future__ import annotations

import json
from pathlib import Path

import colocation_source as cs

from perf.colocate import outcome, plan
from perf.colocate.search import CoordinateSearch
from perf.records import colocation
from perf.records.colocation import ColocationRecord
from perf.records.provenance import SAID_MARK, TOOLKIT_KEY, code_id
from perf.report.colocation import report_lines

OLD = "sha256:0123456789abcdef"
HEAD = "The time budget's plan, fitted again to the times measured, and what ran:"


class _Slow(cs.TimedLoads):
    """Loads slower than the plan assumed (12 s, not 5 s): the plan is fitted again once they are timed."""

    load_s: float = 12.0
    unload_s: float = 4.0


def _searched(budget_s: float) -> ColocationRecord:
    src, rec = _Slow(1), cs.record(1)
    src.visit_s = plan.prices(rec).visit_s
    CoordinateSearch(rec, src, clock=src.clock, time_budget_s=budget_s).run()
    return rec


def _old_shape(tmp_path: Path, toolkit: list[str] | None) -> ColocationRecord:
    """colocation.json as a toolkit before b2001ec wrote it: its fittings again, no line of what ran, its toolkit
    ``toolkit`` (``None``: no key, as before dbcde0b)."""
    rec = _searched(300.0)
    assert rec.refits and rec.refits[-1].startswith("what ran in ")  # today's code records it
    colocation.save(rec, tmp_path)
    data = json.loads((tmp_path / colocation.COLOCATION_FILE).read_text())
    data["refits"] = [r for r in data["refits"] if not r.startswith("what ran")]
    data["environment"].pop(TOOLKIT_KEY, None)
    if toolkit is not None:
        data["environment"][TOOLKIT_KEY] = toolkit
    (tmp_path / colocation.COLOCATION_FILE).write_text(json.dumps(data))
    return colocation.load(tmp_path)


def _section(rec: ColocationRecord) -> list[str]:
    lines = report_lines(rec)
    start = lines.index(HEAD) + 2
    return lines[start : lines.index("", start)]


def test_an_old_record_says_what_ran_was_not_recorded_by_the_toolkit_that_ran_it(tmp_path: Path) -> None:
    rec = _old_shape(tmp_path, [OLD])
    section = _section(rec)
    assert section[-1] == f"- what ran: not recorded by the toolkit that ran it (toolkit {OLD})", section
    assert all(line.endswith(SAID_MARK) for line in section[:-1]) and len(section) == len(rec.refits) + 1


def test_a_record_saved_before_runs_recorded_their_toolkit_says_so(tmp_path: Path) -> None:
    rec = _old_shape(tmp_path, None)
    assert _section(rec)[-1] == (
        "- what ran: not recorded by the toolkit that ran it (its toolkit not recorded either: the run was saved before "
        "runs recorded it)"
    )


def test_a_run_todays_code_ran_says_what_ran_and_no_such_line() -> None:
    rec = _searched(300.0)
    rec.environment[TOOLKIT_KEY] = [code_id()]
    section = _section(rec)
    assert section[-1].startswith("- what ran in ") and "not recorded" not in " ".join(section)


def test_a_session_whose_plan_was_fitted_again_records_what_ran_even_as_predicted() -> None:
    """Nothing cut and nothing predicted cut: the console's plan line alone says nothing more (as before); a fitting
    again is recorded, so what ran is recorded beside it (else the report could not tell it from an old record)."""
    assert outcome.ran_words([(outcome.BEFORE, "whole")], "whole", 10.0) is None
    fitted = outcome.ran_words([(outcome.BEFORE, "whole"), ("step 1's fitting again", "whole")], "whole", 10.4)
    assert fitted == (
        "what ran in 10 s of the search (the server's stop after it not counted): every step of the pass, the final rounds "
        "included (nothing cut); the plan before the run and "
        "step 1's fitting again said the time budget covers the pass: as it ran"
    )
    rec = _searched(3000.0)  # a budget that covers everything: the fitting again predicts no cut
    assert not rec.cuts and rec.refits[0].startswith("step 1: ") and rec.refits[-1].startswith("what ran in "), rec.refits
