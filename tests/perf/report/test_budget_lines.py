"""The report's time-budget line of a resumed rounds run says each session's budget and spend apart
from the run's total (the trial: "Time budget: 75 s ... spent 76 s" summed two sessions' times)."""

from __future__ import annotations

from factories import run_result

from perf.records.rounds import BudgetRecord, RoundsRecord
from perf.report.sections.rounds_budget import budget_lines


def _line(budget: BudgetRecord) -> str:
    run = run_result([], run_id="r")
    run.rounds = RoundsRecord(seed=1, budget=budget, ended="ranking decided")
    return budget_lines(run)[0]


def test_a_resumed_runs_budget_line_says_this_session_and_the_run_in_all() -> None:
    resumed = BudgetRecord(75.0, 1.25, 5.0, 68.0, 7, spent_s=111.0, sessions=2, session_budget_s=75.0, session_spent_s=41.0)
    line = _line(resumed)
    assert line.startswith("- **Time budget:** this session: 75 s budget, 41 s spent; estimated 68 s")
    assert "the run in all: 111 s over 2 sessions" in line and "spent 111 s" not in line
    kept = BudgetRecord(120.0, 1.25, 5.0, 40.0, 3, spent_s=118.0, sessions=2, session_budget_s=40.0, session_spent_s=38.0)
    assert "this session: 40 s budget, 38 s spent (the run's own: 120 s)" in _line(kept)
    once = _line(BudgetRecord(75.0, 1.25, 5.0, 68.0, 7, spent_s=70.0))
    assert once.startswith("- **Time budget:** 75 s; estimated 68 s") and "spent 70 s on the sweep" in once
    assert "session" not in once
