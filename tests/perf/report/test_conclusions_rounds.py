"""The conclusions of a rounds sweep reason from paired rounds (perf.report.conclusions)."""

from __future__ import annotations

from factories import params

from perf.analysis.effects import main_effects
from perf.analysis.recommendation import recommend
from perf.analysis.stats import run_points
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundsRecord
from perf.report import conclusions


def _levels(c: int, thr: float, rounds) -> list[LevelResult]:
    return [LevelResult(c, 1, r, throughput_infer_per_s=thr + r, latency_p99_ms=c * 2.0) for r in rounds]


def test_a_higher_level_measured_in_few_rounds_is_explained_by_the_paired_ranking() -> None:
    a = VariantResult(params(1, True)["name"], params(1, True), "ok", None, _levels(4, 1000.0, range(6)))
    b_levels = _levels(4, 600.0, range(6)) + _levels(8, 1200.0, range(4, 6))  # c=8 joined late: 2 rounds
    b = VariantResult(params(2, True)["name"], params(2, True), "ok", None, b_levels)
    run = RunResult("r", "now", {}, {}, [a, b])
    run.rounds = RoundsRecord(seed=1)
    rec = recommend(run)
    assert rec.best_peak is not None and rec.best_peak.variant == a.name
    text = " ".join(conclusions.conclusions(run, rec, main_effects(run, run_points(run))))
    # the change is the Paired ranking's own comparison (the same pair, levels and rounds), not a second one
    assert "peaked at 1,204.5 infer/s (concurrency 8): -39.9 % (paired over 6 rounds, the pick at c=4 vs c=4: the pick" in text
    assert "the paired ranking over the rounds they shared does not put it ahead" in text
    assert "its own spread" not in text


def test_a_pick_among_a_grid_partly_cut_for_time_says_so() -> None:
    from perf.records.rounds import Cut

    a = VariantResult(params(1, True)["name"], params(1, True), "ok", None, _levels(4, 1000.0, range(6)))
    b = VariantResult(params(2, True)["name"], params(2, True), "skipped", "cut for time")
    run = RunResult("r", "now", {}, {}, [a, b])
    run.rounds = RoundsRecord(seed=1, cuts=[Cut("variant", "not measured: ...", b.name)])
    notes = " ".join(recommend(run).notes)
    assert f"1 of the 2 variants were not measured (cut for time: `{b.name}`)" in notes
