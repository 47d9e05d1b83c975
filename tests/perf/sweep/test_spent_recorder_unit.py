"""A session's time on the run's time budget is recorded by one function (perf.sweep.budget_scope.spent_recorder),
which a fresh sweep's rounds (perf.sweep.run) and a resume's final group (perf.sweep.final) both use: each had its own
copy of the same closure over budget_spent_s."""

from __future__ import annotations

import inspect

from perf.records.rounds import BudgetRecord, RoundRecord, RoundsRecord, Visit
from perf.sweep import budget_scope, final, run


def _record(visits: bool) -> RoundsRecord:
    rr = RoundsRecord(seed=1, budget=BudgetRecord(120.0, 1.8, 5.0, 60.0, 3))
    rr.rounds.append(RoundRecord(0, 0, 1, "earlier", 2.0, [Visit("a", 1)]))  # a session before this one
    if visits:
        rr.rounds.append(RoundRecord(1, 0, 2, "now", 2.0, [Visit("a", 1)]))
    return rr


def test_the_session_s_time_adds_to_the_sessions_before_only_once_it_visited() -> None:
    now = [100.0]
    rr = _record(visits=True)
    budget_scope.spent_recorder(rr, (1, 1), lambda: now[0], 60.0, 30.0)()
    assert rr.budget is not None and (rr.budget.spent_s, rr.budget.session_spent_s) == (70.0, 40.0)
    idle = _record(visits=False)  # stopped in its loads: its time is not counted (T23-4)
    budget_scope.spent_recorder(idle, (1, 1), lambda: now[0], 60.0, 30.0)()
    assert idle.budget is not None and (idle.budget.spent_s, idle.budget.session_spent_s) == (30.0, 40.0)


def test_both_sessions_that_record_spent_time_use_the_one_function() -> None:
    for module in (run, final):
        source = inspect.getsource(module)
        assert "spent_recorder(" in source and "def record_spent" not in source, module.__name__
