"""The time budget a resume given none goes on with is what the session it continues had left, as the resume
command the sweep prints at Ctrl-C (no --time-budget) says it goes on: a run of 120 s spent 100 s, its resume was
given --time-budget 4m and interrupted after 30 s, and the printed command then resumed it under 110 s (the new
240 s less all 130 s its sessions spent), not the 210 s that session had left."""

from __future__ import annotations

import pytest

from perf.records.resumed import resumed_budget
from perf.records.rounds import BudgetRecord


def test_a_resume_given_none_goes_on_with_what_the_session_it_continues_left() -> None:
    first = BudgetRecord(120.0, 1.25, 5.0, 84.0, 7, spent_s=100.0, sessions=1, session_budget_s=120.0, session_spent_s=100.0)
    left, run_s, words = resumed_budget(240.0, True, first, {"time_budget_s": 120.0})
    assert left == 240.0 and words == "a time budget of 240 s"  # what this session may spend
    assert run_s == pytest.approx(340.0)  # the run's own: what it spent and this session's
    stopped = BudgetRecord(run_s, 1.25, 5.0, 84.0, 7, spent_s=130.0, sessions=2, session_budget_s=240.0, session_spent_s=30.0)
    left, again, words = resumed_budget(360.0, False, stopped, {"time_budget_s": run_s})
    assert left == pytest.approx(210.0) and again == pytest.approx(340.0), words
    assert "210 s after the 130 s it spent" in words


def test_a_budget_given_again_before_the_first_round_or_none_is_the_run_s_own() -> None:
    assert resumed_budget(60.0, True, None, {"time_budget_s": 120.0})[:2] == (60.0, 60.0)
    assert resumed_budget(None, True, None, {"time_budget_s": 120.0})[:2] == (None, None)


def test_every_sentence_on_an_unfinished_run_says_the_budget_its_resume_goes_on_with(tmp_path) -> None:
    """report.md, compare and export-deployment named the resume command alone, as the Ctrl-C line did: whether it
    runs without a budget, on a fresh default or on the rest was not said."""
    from factories import level_result, run_result, variant_result

    from perf.records.rounds import RoundsRecord
    from perf.records.unfinished import unfinished_text

    run = run_result([variant_result("a", [level_result(1, 100.0, 2.0)], status="pending")], run_id="u")
    run.finished = None
    run.rounds = RoundsRecord(seed=1, budget=BudgetRecord(120.0, 1.25, 5.0, 84.0, 7, spent_s=49.0))
    said = unfinished_text(run, results_dir=tmp_path) or ""
    assert said.endswith(
        f"--resume u --results-dir {tmp_path}`, within what is left of the run's own 120 s time budget: 71 s after "
        "the 49 s it spent (--time-budget gives a new one)"
    ), said
    run.rounds = None  # a sequential run: its budget times only the baseline
    assert (unfinished_text(run, results_dir=tmp_path) or "").endswith(f"--resume u --results-dir {tmp_path}`")
