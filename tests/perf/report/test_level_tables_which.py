"""report.md's "Results per concurrency level" says which levels it shows and why, true of them (trial 23, T23-8: "c=1
(the picks' levels, ...)" while the best peak's level, c=4, was in no table of the report)."""

from __future__ import annotations

from factories import level_result, run_result, variant_result

from perf.analysis.stats.points import run_points
from perf.report.sections.tables import level_tables, pick_levels


def _points() -> dict:
    def levels(scale: float) -> list:
        return [level_result(c, scale * 100.0 * c, 2.0 * c, trial=r) for c in (1, 2, 4) for r in range(3)]

    return run_points(run_result([variant_result(n, levels(s)) for n, s in (("a", 1.0), ("b", 0.9), ("c", 0.8))]))


def _said(lines: list[str]) -> str:
    return next(ln for ln in lines if "levels measured here" in ln)


def test_a_picks_level_left_out_is_named_not_called_shown() -> None:
    picks = pick_levels([("the best under the budget", (1, 1)), ("the best peak", (1, 4))])
    lines = level_tables(_points(), picks=picks, budget=8)  # room for one level's table
    said = _said(lines)
    assert "c=1: the best under the budget's level" in said
    assert "the best peak's level, c=4, did not fit" in said
    assert "the picks' levels" not in said
    assert "### Concurrency 4" not in "\n".join(lines)


def test_both_picks_at_one_level_and_the_others_by_rule() -> None:
    picks = pick_levels([("the best under the budget", (1, 2)), ("the best peak", (1, 2))])
    said = _said(level_tables(_points(), picks=picks, budget=16))
    assert "c=2: the best under the budget and the best peak's level" in said
    assert "the others: the lowest, then those most variants reached" in said
