"""Colocate's pass estimate and its resume advice price the moves the search takes (trial 21, T21-4): "one pass of
the search needs about 179 s" for a 180 s budget said nothing of being at the edge, on load and visit times assumed;
each resume's "--time-budget 2m (the rest of one pass needs about 81 s ...; more if a model moves ...)" was priced
without the move step the search then took, and the same 2m was advised again after it ended without a pick. The
synthetic host (tests/support/colocation_source.py); no server."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import colocation_source as cs

from perf.colocate import plan, verdict
from perf.colocate.search import CoordinateSearch
from perf.records.colocation import ColocationRecord


def _searched() -> ColocationRecord:
    """A whole search (no budget): big moves (step 2), mid moves (step 3), then small and big are tried again and
    keep theirs (steps 4, 5), then the final step."""
    src, rec = cs.TimedLoads(1), cs.record(1)
    CoordinateSearch(rec, src, clock=src.clock).run()
    assert [(s.kind, s.model, "moved" in s.outcome) for s in rec.steps[1:5]] == [
        ("move", "big", True),
        ("move", "mid", True),
        ("move", "small", False),
        ("move", "big", False),
    ]
    return rec


def _cut_after(rec: ColocationRecord, last: int) -> ColocationRecord:
    """``rec`` as it stood when step ``last`` (0-based) had ended: a run cut there, to be resumed."""
    out = dataclasses.replace(rec)
    out.steps = [dataclasses.replace(s) for s in rec.steps[: last + 1]]
    out.visits = [v for v in rec.visits if v.step <= last]
    out.decisions = [d for d in rec.decisions if d.step <= last]
    out.pick = None
    return out


def test_the_rest_of_the_pass_holds_the_moves_the_search_takes_after_a_model_moved() -> None:
    rec = _searched()
    cut = _cut_after(rec, 2)  # mid moved in step 3: small, then big, are tried again beside it
    rest = plan.planned_steps(cut)
    assert [s.label for s in rest] == ["move small", "move big", "final"], [s.label for s in rest]
    moves, held = plan.moves_left(cut, {}, ["big", "mid", "small"])
    assert [m for m, _h in moves] == ["small", "big"] and held == rec.pick  # the held one the search ended on
    assert [s.label for s in plan.planned_steps(_cut_after(rec, 4))] == ["final"]  # every model settled


def test_a_resume_advice_prices_a_move_and_never_repeats_the_budget_that_fell_short(tmp_path: Path) -> None:
    cut = _cut_after(_searched(), 2)
    p = plan.prices(cut)
    est = plan.estimate(plan.planned_steps(cut), p, None)
    move = plan.move_s(cut, p)
    assert move > 0
    whole = plan.suggested_s(est.total_s + move)
    said = verdict.finish_words(cut, tmp_path)
    assert f"--time-budget {plan.budget_flag(whole)}`" in said, said
    assert f"a model that moves adds about {math.ceil(move)} s" in said, said
    cut.session_budgets_s = [float(whole)]  # the run's first session: its own budget, not an advice
    assert f"--time-budget {plan.budget_flag(whole)}`" in verdict.finish_words(cut, tmp_path)
    cut.session_budgets_s = [999.0, float(whole)]  # a resume given that budget ended without a pick
    again = verdict.finish_words(cut, tmp_path)
    assert f"--time-budget {plan.budget_flag(whole + 60)}`" in again, again
    assert f"and is above this session's {whole} s, which did not cover the rest of the pass" in again, again
    cut.session_budgets_s = [999.0, float(whole + 120)]  # one that fell short though larger: never advised less (review)
    assert f"--time-budget {plan.budget_flag(whole + 180)}`" in verdict.finish_words(cut, tmp_path)
    final_only = _cut_after(_searched(), 4)  # no move left: nothing added for one
    assert "a model that moves" not in verdict.finish_words(final_only, tmp_path)


def test_an_opening_estimate_at_the_edge_of_the_budget_says_so() -> None:
    rec = cs.record(1)
    p = plan.prices(rec)  # nothing timed: a load and a visit assumed
    steps = plan.planned_steps(rec)
    total = plan.estimate(steps, p, None).total_s
    move = plan.move_s(rec, p)
    edge = math.ceil(total) + 1.0  # covers the pass, by a second
    said = plan.plan_words(plan.estimate(steps, p, edge), p, edge, move=move)
    assert f"at the edge of the time budget of {edge:g} s" in said, said
    assert "times assumed, not measured yet (a load and a visit)" in said, said
    assert f"--time-budget {plan.budget_flag(plan.suggested_s(total + move))} covers the pass, a move and 20%" in said
    roomy = total * 1.5
    assert "at the edge" not in plan.plan_words(plan.estimate(steps, p, roomy), p, roomy, move=move)
