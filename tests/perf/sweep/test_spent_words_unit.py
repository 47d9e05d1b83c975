"""The line after the rounds says how many rounds and visits, and why they ended (trial 9, F2:
"rounds: 165 s spent (estimated 338 s)" said neither; the report said "after 6 rounds ... decided")."""

from __future__ import annotations

from perf.records.rounds import LoadGroup, RoundRecord, RoundsRecord, Visit
from perf.sweep.budget_scope import spent_words

DECIDED = "ranking under the p99 budget of 25.00 ms decided (after 6 rounds)"


def _rounds(groups: list[int], ended: str | None = DECIDED) -> RoundsRecord:
    rec = RoundsRecord(seed=1)
    rec.groups = [LoadGroup(g, ["a", "b"], "fits", ended=ended) for g in sorted(set(groups))]
    rec.rounds = [RoundRecord(i, g, i, "t", order=[Visit("a", 1)] * 15) for i, g in enumerate(groups)]
    return rec


def test_the_rounds_line_counts_rounds_and_visits_and_says_why_they_ended():
    line = spent_words(_rounds([0] * 6), (0, 0), 165.0, 338.0, None)
    assert line == f"rounds: 6 rounds (90 visits); 165 s of the budget's clock so far (estimated 338 s); ended: {DECIDED}"
    two = spent_words(_rounds([0] * 4 + [1] * 4), (0, 0), 114.0, 164.0, None)
    assert two.startswith(
        "rounds: 8 rounds (120 visits), in 2 groups; 114 s of the budget's clock so far (estimated 164 s); the last group ended: "
    )


def test_a_resumed_session_counts_its_own_rounds_and_an_interrupted_one_no_reason():
    rec = _rounds([0] * 2 + [1] * 3)
    line = spent_words(rec, (2, 1), 60.0, 100.0, 40.0)
    # the run's rounds said too, as the ending's "after N rounds" counts them (trial 17, T17-5: "9 rounds" beside
    # "after 10 rounds")
    assert line == (
        f"rounds: 3 rounds (45 visits) this session, 5 in the run; 60 s of the budget's clock so far (estimated 100 s; 40 s "
        "of the run's time budget "
        f"spent before this resume); "
        f"ended: {DECIDED}"
    )
    assert (
        spent_words(_rounds([0] * 2, ended=None), (0, 0), 20.0, 100.0, None)
        == "rounds: 2 rounds (30 visits); 20 s of the budget's clock so far (estimated 100 s)"
    )


def test_a_group_that_loaded_no_variant_is_not_counted():
    """Trial 17, T17-2: "5 rounds (22 visits) in 2 groups" where the second group loaded nothing (its variants
    were measured together already): one group measured, so no "in 2 groups" and no "the last group"."""
    rec = _rounds([0] * 5)
    rec.groups.append(LoadGroup(1, [], "not loaded: a, b were measured together in group 1 already"))
    assert (
        spent_words(rec, (0, 0), 102.0, 164.0, None)
        == f"rounds: 5 rounds (75 visits); 102 s of the budget's clock so far (estimated 164 s); ended: {DECIDED}"
    )


def test_the_time_spent_before_a_resume_is_one_number_on_the_rounds_line_and_the_end_line():
    """s22z, Z-10: "57 s (estimated 54 s; 84 s before this resume)" (rounds only) beside "61 s on the clock of the 120 s
    left of the run's 208 s time budget" (88 s spent: rounds and the in-process baseline), no word saying which."""
    from perf.records.results import Session
    from perf.records.rounds import BudgetRecord
    from perf.sweep.budget_scope import end_line

    rec = _rounds([0] * 5 + [1] * 6)
    rec.budget = BudgetRecord(208.0, 1.5, 5.0, 54.0, 6, baseline_s=4.0)
    line = spent_words(rec, (5, 1), 57.0, 54.0, 84.0)
    assert (
        "57 s of the budget's clock so far (estimated 54 s; 88 s of the run's time budget spent before this resume (84 s of "
        in line
    )
    assert "4 s of the in-process baseline)); ended: " in line
    end = end_line(Session("t", budget_clock_s=61.0, startup_s=2.0), 120.0, None, 66.0, 208.0)
    assert "61 s on the clock of the 120 s left of the run's 208 s time budget after the 88 s spent before this resume" in end


def test_the_rounds_own_time_is_said_apart_from_the_budgets_clock():
    """Trial 28, T28-4: "rounds: 8 rounds (44 visits), 95 s (estimated 118 s)" read as the rounds' time; the 95 s were
    the budget's clock (server start, 31 s of loads, rounds), the rounds' own 54 s (their wall_s, as recorded)."""
    rec = _rounds([0] * 8)
    for r, wall in zip(rec.rounds, [9.559, 7.163, 7.188, 7.753, 7.273, 7.375, 3.65, 3.792]):  # trial 28's t28a
        r.wall_s = wall
    line = spent_words(rec, (0, 0), 95.0, 118.0, None)
    assert line.startswith("rounds: 8 rounds (120 visits) in 54 s; 95 s of the budget's clock so far (estimated 118 s); ")
    rec.rounds[-1].wall_s = None  # interrupted: the rounds that have a length
    assert "(120 visits) in 50 s; 95 s of the budget's clock so far" in spent_words(rec, (0, 0), 95.0, 118.0, None)
