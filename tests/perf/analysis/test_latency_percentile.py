"""``--latency-percentile 95|99`` for the budget, as Model Analyzer users expect (issue 19, item 8)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from factories import level_result, run_result, variant_result

from clients.server import ServerOptions
from core.errors import PerfError
from perf.analysis.ranking.budget_latency import latency_metric
from perf.analysis.recommendation.recommend import recommend
from perf.cli.main import cli
from perf.records import results
from perf.records.levels import LevelResult
from perf.records.results import RunResult
from perf.sweep.options import SweepOptions
from perf.sweep.resuming import resumed_options


def _lv(c: int, tput: float, p95: float, p99: float) -> LevelResult:
    """A level whose p95 and p99 are given apart (the p50 and p90 follow the p95)."""
    return level_result(c, tput, p99, batch_size=1, latency_p50_ms=p95 / 2, latency_p90_ms=p95 * 0.9, latency_p95_ms=p95)


def _run(**settings) -> RunResult:
    # at c=8 the p95 is within 20 ms but the tail (p99) is not: a p95 budget admits it, a p99 budget does not
    a = variant_result("a", [_lv(1, 100, 5, 6), _lv(8, 700, 18, 35)])
    b = variant_result("b", [_lv(1, 90, 6, 7), _lv(8, 400, 15, 19)])
    return run_result([a, b], settings=settings)


def test_the_budget_is_on_the_percentile_asked_for() -> None:
    p99 = recommend(_run(), 20)
    assert (p99.best_under_budget.variant, p99.best_under_budget.concurrency) == ("b", 8)
    assert p99.latency_percentile == 99 and p99.budget_text == "p99 budget of 20.00 ms"
    p95 = recommend(_run(), 20, 95)
    assert (p95.best_under_budget.variant, p95.best_under_budget.concurrency) == ("a", 8)
    assert p95.budget_text == "p95 budget of 20.00 ms" and p95.budget_latency_ms == 18
    assert recommend(_run(latency_percentile=95), 20).latency_percentile == 95  # the run's own setting
    none = recommend(_run(), 4, 95)
    assert none.best_under_budget is None
    assert "No level meets the p95 budget of 4.00 ms; the lowest p95 measured is 5.00 ms" in " ".join(none.notes)
    with pytest.raises(PerfError, match="latency percentile 97"):
        latency_metric(97)


def test_report_and_cli_say_which_percentile(tmp_path: Path) -> None:
    run_dir = tmp_path / "r"
    results.save(_run(), run_dir)
    res = CliRunner().invoke(cli, ["report", str(run_dir), "--latency-budget-ms", "20", "--latency-percentile", "95"])
    assert res.exit_code == 0, res.output
    text = (run_dir / "report-budget20ms-p95" / "report.md").read_text()  # a what-if view: the run's report is kept
    assert "**Best under the p95 budget of 20.00 ms:** `a` at concurrency 8" in text and "infer/s, p95 18.00 ms, p99" in text
    assert "p95 budget of 20.00 ms" in " ".join(res.output.split())  # the summary table's title
    res = CliRunner().invoke(cli, ["report", str(run_dir), "--latency-percentile", "97"])
    assert res.exit_code == 2


def test_a_resumed_run_keeps_its_percentile_unless_given() -> None:
    opts = SweepOptions(ServerOptions(Path("model_repository")), resume=True, run_id="r", given=frozenset())
    saved = {"repository": "/x", "variants": ["a"], "concurrency": [1], "batch_sizes": [1], "trials": 1, "latency_percentile": 95}
    assert resumed_options(opts, saved).latency_percentile == 95
    given = SweepOptions(
        ServerOptions(Path("model_repository")),
        resume=True,
        run_id="r",
        latency_percentile=90,
        given=frozenset({"latency_percentile"}),
    )
    assert resumed_options(given, saved).latency_percentile == 90  # like the budget: it only affects the report
