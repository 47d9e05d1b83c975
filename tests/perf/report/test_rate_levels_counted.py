"""Request-rate levels are counted as levels, not visits, and the host-busy banner counts them
(trial 7, F24: "6 request-rate level(s), not ranked" for 2 rates over 3 rounds; "Every level of
this run is flagged (1 of 1 host busy)" beside 2 host-busy rate levels)."""

from __future__ import annotations

from factories import run_result, variant_result

from perf.analysis.recommendation.excluded import rate_statuses
from perf.analysis.recommendation.recommend import recommend
from perf.analysis.stats.points import run_points
from perf.records.levels import LevelResult
from perf.records.rounds import RoundsRecord
from perf.report.sections.ranking import busy_note

NAME = "t_onnx_cpu2_db500_mbs64"


def _run(rate_busy: bool = True):
    levels = [LevelResult(1, 4, r, throughput_infer_per_s=400.0, latency_p99_ms=9.0, host_busy=True) for r in range(3)]
    levels += [
        LevelResult(0, 4, r, throughput_infer_per_s=rate * 4, latency_p99_ms=8.0, request_rate=rate, host_busy=rate_busy)
        for rate in (100.0, 200.0)
        for r in range(3)
    ]
    run = run_result([variant_result(NAME, levels, params={"name": NAME})], finished="x")
    run.rounds = RoundsRecord(seed=1)
    return run


def test_two_rates_over_three_rounds_are_two_request_rate_levels():
    run = _run()
    (said,) = [e for e in recommend(run).excluded if "request-rate" in e]
    assert said.startswith(f"`{NAME}`: 2 request-rate levels, not ranked")


def test_the_every_level_flagged_banner_counts_the_request_rate_levels():
    run = _run()
    assert rate_statuses(run) == ["host busy", "host busy"]
    (banner, _) = busy_note(run_points(run), rate_statuses(run))
    assert "(3 of 3 host busy)" in banner
    assert (
        busy_note(run_points(_run(rate_busy=False)), rate_statuses(_run(rate_busy=False))) == []
    )  # a quiet rate level: not every level


def test_the_request_rate_table_has_one_row_per_level_with_its_median_over_rounds():
    """Trial 9 F35: one row per (variant, batch, round), rounds numbered from 0, and no level's median."""
    from perf.report.sections.tables import request_rate_table

    run = _run()
    run.variants[0].levels[3].throughput_infer_per_s = 500.0  # rate 100, round 0: an outlier the median ignores
    lines = request_rate_table(run)
    rows = [ln for ln in lines if ln.startswith(f"| `{NAME}`")]
    assert len(rows) == 2  # 2 rates over 3 rounds: 2 levels
    cells = [c.strip() for c in rows[0].split("|")[1:-1]]
    assert cells[1:4] == ["100", "4", "3"]  # offered, batch, rounds measured
    assert cells[7] == "400.0 [400.0–500.0]"  # the median over the 3 rounds, [min–max]
    assert "| round " not in lines[4] and "median over its rounds" in "\n".join(lines)
