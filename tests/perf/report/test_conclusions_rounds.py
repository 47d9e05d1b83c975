"""The conclusions of a rounds sweep reason from paired rounds (perf.report.conclusions.written)."""

from __future__ import annotations

from factories import params

from perf.analysis.effects.main_effects import main_effects
from perf.analysis.recommendation.recommend import recommend
from perf.analysis.stats.points import run_points
from perf.markdown import times
from perf.records.build_check import BuildCheck
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundsRecord
from perf.report.conclusions import written as conclusions


def _levels(c: int, thr: float, rounds) -> list[LevelResult]:
    return [LevelResult(c, 1, r, throughput_infer_per_s=thr + r, latency_p99_ms=c * 2.0) for r in rounds]


def test_a_higher_level_measured_in_few_rounds_is_explained_by_the_paired_ranking() -> None:
    a = VariantResult(
        params(1, True)["name"], params(1, True), "ok", None, _levels(4, 1000.0, range(6)), build_check=BuildCheck()
    )
    b_levels = _levels(4, 600.0, range(6)) + _levels(8, 1200.0, range(4, 6))  # c=8 joined late: 2 rounds
    b = VariantResult(params(2, True)["name"], params(2, True), "ok", None, b_levels, build_check=BuildCheck())
    run = RunResult("r", "now", {}, {}, [a, b])
    run.rounds = RoundsRecord(seed=1)
    rec = recommend(run)
    assert rec.best_peak is not None and rec.best_peak.variant == a.name
    text = " ".join(conclusions.conclusions(run, rec, main_effects(run, run_points(run))))
    # the change is the Paired ranking's own comparison (the same pair, levels and rounds), not a second one
    # the % is the median of the per-round ratios, said as such, with the levels it compares and their
    # medians (the trial read "+8.4 %" beside two peaks 2.4 % apart: the peak at c=8 is another level)
    assert (
        "measured up to 1,204.5 infer/s (concurrency 8; the median of its 2 rounds): against the best, the median of the "
        "paired per-round ratios is "
        "-39.9 % over 6 rounds (it at c=4 vs the pick at c=4; their medians over those rounds 602.5 vs 1,002.5 infer/s): "
        "the pick beats it" in text
    )
    assert "(paired over" not in text
    assert "the paired ranking over the rounds they shared does not put it ahead" in text
    assert "its own spread" not in text


def test_a_comparison_over_two_rounds_says_the_rounds_ratios_not_an_inverted_mean() -> None:
    """Trial 8 (F7): "measured at most 357.1 infer/s" beside "their medians 548.9 vs 674.4", and
    "-46.1 %" (1 / the mean of two ratios, 0.822 and 2.886) beside those medians (-19 %)."""

    def lv(r: int, t: float) -> LevelResult:
        return LevelResult(8, 1, r, throughput_infer_per_s=t, latency_p99_ms=16.0)

    a = VariantResult(
        params(1, True)["name"], params(1, True), "ok", None, [lv(0, 1000.0), lv(1, 1010.0)], build_check=BuildCheck()
    )
    b = VariantResult(
        params(2, True)["name"], params(2, True), "ok", None, [lv(0, 1217.0), lv(1, 350.0)], build_check=BuildCheck()
    )
    run = RunResult("r", "now", {}, {}, [a, b])
    run.rounds = RoundsRecord(seed=1)
    rec = recommend(run)
    text = " ".join(conclusions.conclusions(run, rec, main_effects(run, run_points(run))))
    assert f"The runner-up by highest throughput measured, `{b.name}`, " in text and "; the median of its 2 rounds)" in text, text
    assert "the paired per-round ratios are " in text and " over 2 rounds (" in text, text
    assert "the median of the paired per-round ratios is" not in text.split(f"`{b.name}`, measured up to")[1].split(".")[0]


def test_a_pick_among_a_grid_partly_cut_for_time_says_so() -> None:
    from perf.records.rounds import Cut

    a = VariantResult(
        params(1, True)["name"], params(1, True), "ok", None, _levels(4, 1000.0, range(6)), build_check=BuildCheck()
    )
    b = VariantResult(params(2, True)["name"], params(2, True), "skipped", "cut for time")
    run = RunResult("r", "now", {}, {}, [a, b])
    run.rounds = RoundsRecord(seed=1, cuts=[Cut("variant", "not measured: ...", b.name)])
    notes = " ".join(recommend(run).notes)
    assert f"The pick is the best of 1 of the 2 variants; not measured (cut for time): `{b.name}`;" in notes


def test_the_baseline_sentence_says_what_its_percentage_is_and_shows_the_medians_it_compares() -> None:
    a = VariantResult(
        params(2, True)["name"], params(2, True), "ok", None, _levels(4, 1000.0, range(6)), build_check=BuildCheck()
    )
    base_levels = _levels(1, 900.0, range(6)) + _levels(4, 800.0, range(6))
    base = VariantResult(params(1, False)["name"], params(1, False), "ok", None, base_levels, build_check=BuildCheck())
    run = RunResult("r", "now", {}, {}, [a, base])
    run.rounds = RoundsRecord(seed=1)
    rec = recommend(run)
    text = " ".join(conclusions.conclusions(run, rec, main_effects(run, run_points(run))))
    assert f"Against the 1-instance, no-batching baseline `{base.name}` (peak 902.5 infer/s at concurrency 1)" in text
    assert "the median of the paired per-round ratios is +11.1 % over 6 rounds (the pick at c=4 vs it at c=1; " in text
    assert "their medians over those rounds 1,002.5 vs 902.5 infer/s): the pick beats it." in text
    assert "That is +" not in text  # a bare % beside two peaks read as their ratio


def test_a_paired_ratio_shown_beside_two_medians_says_it_is_the_median_of_the_per_round_ratios() -> None:
    """The co-location table and the deployment README put ``spread_text`` beside the alone and
    co-located medians; a bare "1.2×" read as their ratio."""
    from perf.analysis.stats.paired import paired

    r = paired([120.0, 100.0, 130.0, 90.0], [100.0, 100.0, 100.0, 100.0])
    assert r is not None and r.spread_text().startswith(f"{times(r.median, 3)} median of the per-round ratios (min–max")
