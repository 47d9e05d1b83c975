"""A pick resting on fewer rounds than a verdict needs says so wherever it is named (trial 7, F20:
a 3 m budget planned 6 rounds, measured 2, and the console, report.md's Recommendation, the
bundle's README and export-deployment's console named "best under the budget" with no word of it)."""

from __future__ import annotations

from factories import run_result, variant_result
from rich.console import Console

from perf.analysis.ranking.operating import MIN_ROUNDS
from perf.analysis.recommendation.recommend import recommend
from perf.analysis.stats.points import run_points
from perf.cli.summary import summary_table
from perf.deploy.choose import choose_variant
from perf.records.levels import LevelResult
from perf.records.rounds import RoundsRecord
from perf.report.write import recommendation_section

A, B = "t_onnx_cpu2_db500_mbs64", "t_ts_cpu1_db0_mbs64"
SHORT = f"measured in 2 rounds, fewer than the {MIN_ROUNDS} a verdict needs"


def _run(rounds: int):
    def levels(thr: float, p99: float) -> list[LevelResult]:
        return [
            LevelResult(c, 1, r, throughput_infer_per_s=thr * c * (1 + r / 100), latency_p99_ms=p99 * c)
            for c in (1, 4)
            for r in range(rounds)
        ]

    run = run_result(
        [variant_result(A, levels(300.0, 5.0), params={"name": A}), variant_result(B, levels(290.0, 5.2), params={"name": B})],
        settings={"latency_budget_ms": 25.0, "latency_percentile": 99},
        finished="x",
    )
    run.rounds = RoundsRecord(seed=1)
    return run


def test_a_pick_on_two_rounds_says_so_in_every_place_it_is_named():
    run = _run(2)
    rec = recommend(run, 25.0)
    assert rec.best_under_budget is not None and rec.best_peak is not None
    assert SHORT in rec.best_under_budget.describe() and SHORT in rec.best_peak.describe()
    section = "\n".join(recommendation_section(rec, run_points(run)))
    same = (rec.best_under_budget.variant, rec.best_under_budget.concurrency) == (
        rec.best_peak.variant,
        rec.best_peak.concurrency,
    )
    # report.md's Recommendation: both picks; one level that is both is said once, the best peak pointing to it (fe94cf2)
    assert section.count(SHORT) == (1 if same else 2)
    assert not same or "the same level as the best under the budget above, said there with its verdicts" in section
    console = Console(width=400, record=True)
    console.print(summary_table(run, 25.0))
    assert SHORT in console.export_text()  # the sweep's and report's console table
    chosen = choose_variant(run)  # the bundle's README and export-deployment print chosen.level.describe()
    assert SHORT in chosen.level.describe()
    named = choose_variant(run, B).level.describe()  # a named variant: 2 rounds too, said as named (trial 22)
    assert "measured in 2 rounds (named with --variant: not judged against the run's other variants)" in named


def test_a_pick_on_the_rounds_a_verdict_needs_says_nothing_of_them():
    run = _run(MIN_ROUNDS)
    rec = recommend(run, 25.0)
    assert rec.best_under_budget is not None and "a verdict needs" not in rec.best_under_budget.describe()
    console = Console(width=400, record=True)
    console.print(summary_table(run, 25.0))
    assert "fewer than the" not in console.export_text()
