"""The console summary says what report.md's Recommendation says of the latency budget when no level
of any variant meets it, in the report's words (one source: ``Recommendation.notes``): it said nothing
of the budget, and only report.md named the lowest latency reached. Both designs word it (rounds: how
the budget judged a level; sequential: the lowest measured)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from factories import level_result, run_result, variant_result

from perf.analysis.recommendation.recommend import recommend
from perf.cli.main import cli
from perf.records import results
from perf.records.rounds import RoundsRecord
from perf.records.workloads import split_by_workload

BUDGET_MS = 5.0


def _run(rounds: bool):
    """Two variants whose every level is over a 5 ms p99 budget (c=1 and c=4, 3 rounds or trials each)."""
    variants = [
        variant_result(
            name,
            [level_result(c, thr * c, p99 * c, trial=r, spread=True) for c in (1, 4) for r in range(3)],
        )
        for name, thr, p99 in (("fast", 600.0, 7.0), ("slow", 300.0, 9.0))
    ]
    design = {"design": "rounds"} if rounds else {}
    return run_result(
        variants,
        settings={"latency_budget_ms": BUDGET_MS, **design},
        rounds=RoundsRecord(seed=1) if rounds else None,
        finished="now",
    )


@pytest.mark.parametrize("rounds", [True, False], ids=["rounds", "sequential"])
def test_the_console_says_no_level_met_the_budget_in_the_reports_words(tmp_path: Path, rounds: bool) -> None:
    run = _run(rounds)
    rec = recommend(split_by_workload(run), BUDGET_MS)
    assert rec.best_under_budget is None
    (said,) = [n for n in rec.notes if n.startswith("No level meets the p99 budget of 5")]
    assert "the lowest p99 measured is 7.00 ms (`fast` at concurrency 1)" in said  # where it came closest
    results.save(run, tmp_path)
    res = CliRunner().invoke(cli, ["report", str(tmp_path)], env={"COLUMNS": "120"})
    assert res.exit_code == 0, res.output
    report = (tmp_path / "report.md").read_text().splitlines()
    assert f"- {said}" in report  # the report's line ...
    assert said in res.output.splitlines()  # ... on the console, one line, once
    assert res.output.count("No level meets") == 1


def test_a_run_with_a_level_within_its_budget_gets_no_such_line(tmp_path: Path) -> None:
    run = _run(True)
    for v in run.variants:
        for lv in v.levels:
            lv.latency_p99_ms = 1.0
    assert recommend(split_by_workload(run), BUDGET_MS).best_under_budget is not None
    results.save(run, tmp_path)
    res = CliRunner().invoke(cli, ["report", str(tmp_path)], env={"COLUMNS": "120"})
    assert res.exit_code == 0, res.output
    assert "No level meets" not in res.output and "No level meets" not in (tmp_path / "report.md").read_text()
