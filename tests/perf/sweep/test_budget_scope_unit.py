"""What a sweep's --time-budget covers, said and measured (trial 17, T17-14: a ``--time-budget 20s`` sweep took
43 s of wall time; its start-up before the budget's clock and its report and plots after it were in no line)."""

from __future__ import annotations

import time

import pytest
from factories import levels
from plan_sweep import PlanOnlySweep

from perf.records.results import RunResult, Session, VariantResult
from perf.records.rounds import BudgetRecord, RoundRules, RoundsRecord
from perf.records.search import SearchRecord
from perf.report.sections.rounds_budget import budget_lines
from perf.sweep import run as sweep_run
from perf.sweep.budget_scope import COVERS, end_line, process_started


def test_the_plan_line_says_what_the_budget_covers_and_the_start_up_outside_it(monkeypatch: pytest.MonkeyPatch) -> None:
    vrs = [VariantResult(n, levels=levels([100.0, 200.0, 300.0], [4.0, 5.0, 8.0]), status="pending") for n in "ab"]
    run = RunResult("t17", "now", variants=vrs)
    run.search = SearchRecord("brute", False, order=["a", "b"])
    run.rounds = RoundsRecord(seed=1, rules=RoundRules())
    monkeypatch.setattr(sweep_run.time, "monotonic", lambda: 1e6 - 120.0)
    sw = PlanOnlySweep(run, 120.0)
    sw.invoked_at, sw.clock_started = 100.0, 108.2  # 8.2 s of start-up before the clock, measured
    sw._rounds(0.0, 1e6)
    (plan,) = [e["text"] for e in sw.events if e["event"] == "plan"]
    assert plan.endswith(
        f"; the time budget covers {COVERS}, not the 8 s of start-up before it nor the report and plots after it"
    )


def test_the_reports_time_budget_line_says_the_clock_and_what_lay_outside_it() -> None:
    run = RunResult("t17", "now", variants=[])
    run.rounds = RoundsRecord(seed=1, budget=BudgetRecord(20.0, 0.5, 5.0, 16.0, 7, spent_s=16.8))
    run.sessions = [Session("now", "finished", startup_s=8.0, budget_clock_s=17.3, report_s=18.0)]
    (line,) = [x for x in budget_lines(run) if x.startswith("- **Time budget:**")]
    assert (
        f"; the budget's clock ran 17 s ({COVERS}); outside it: 8 s of start-up before it, and 18 s for the report and "
        "plots the sweep wrote after it" in line
    )
    run.sessions = [Session("now", "finished")]  # a run recorded before they were timed: nothing made up
    assert "clock" not in budget_lines(run)[0]


def test_an_end_line_without_a_budget_or_report_and_the_process_start() -> None:
    session = Session("now", "finished", startup_s=3.0, budget_clock_s=40.0)
    line = end_line(session, None, None, 44.0)
    assert line == f"time: 44 s in all: 40 s on the clock of the sweep (no time budget) ({COVERS}); outside it 4 s: " + (
        "3 s of start-up before it, 1 s for the summary after it"
    )
    assert end_line(Session("now"), 20.0, None, 5.0) == "time: 5 s in all"  # the clock never started
    assert process_started() <= time.monotonic() - 0.01  # this test process started before now


def test_a_resumes_end_line_says_the_budget_left_of_the_runs_own() -> None:
    """T24-12: a resume of a 150 s run that had spent 139 s said "0 s on the clock of the 11 s time budget": the 11 s
    is what was left of the run's 150 s, said as such; a resume with the whole budget left says it once."""
    session = Session("now", "finished", startup_s=3.0, budget_clock_s=0.0)
    line = end_line(session, 11.0, None, 4.0, 150.0)
    assert "0 s on the clock of the 11 s left of the run's 150 s time budget after the 139 s spent before this resume (" in line
    assert "of the 150 s time budget (" in end_line(session, 150.0, None, 4.0, 150.0)
