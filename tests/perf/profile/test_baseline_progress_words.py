"""The in-process baseline says its rounds as they start (trial 6: a 2-minute silence after the
sweep, then all 40 point lines in the same second: the points of a model are timed together,
interleaved in rounds, so none has a number before the last round), and the report's "What was
run" names the baseline's end beside the measurements' (trial 6: "finished 04:50:12", the baseline
ran until 04:52:08)."""

from __future__ import annotations

from pathlib import Path

from factories import level_result, run_result, variant_result

from perf.cli.baseline import describe_event
from perf.profile.timing import TimingSettings, time_interleaved
from perf.records import results
from perf.records.baseline import BaselineResult, BaselineSettings
from perf.report.write import write_report


def test_each_round_is_said_as_it_starts_before_any_number() -> None:
    said: list[tuple[int, int, int]] = []
    calls = [lambda: None, lambda: sum(range(10))]
    settings = TimingSettings(min_run_time_s=0.02, warmup_s=0.001, warmup_runs=1, max_runs=20, rounds=3)
    timed = time_interleaved(calls, [None, None], settings, on_round=lambda r, n: said.append((r, n, len(said))))
    assert [(r, n) for r, n, _ in said] == [(0, 3), (1, 3), (2, 3)] and len(timed) == 2
    line = describe_event({"event": "baseline_rounds", "model": "mlp", "round": 0, "rounds": 3, "points": 40})
    assert line == "mlp: round 1 of 3 of its 40 points timed together (each point's line follows the last round)"


def test_what_was_run_names_the_baselines_end(tmp_path: Path) -> None:
    run = run_result(
        [variant_result("v", [level_result(1, 100.0, 2.0)])],
        created="2026-12-02T04:46:33+0000",
        finished="2026-12-02T04:50:12+0000",
    )
    settings = BaselineSettings("timer", 0.1, 0.05, 3, 100, "inputs", 2, "rule", {}, rounds=8, host_busy_threshold_pct=10.0)
    run.baseline = BaselineResult("2026-12-02T04:52:08+0000", settings)
    results.save(run, tmp_path)
    text = write_report(tmp_path).read_text()
    assert (
        "finished 2026-12-02T04:50:12+0000 (the measurements; the in-process baseline after them until 2026-12-02T04:52:08+0000)."
    ) in text


def test_the_baseline_tables_legend_names_the_mark_only_when_a_point_carries_it() -> None:
    """Trial 9, F3's kind: a legend lists only what its table shows (the † host busy line was always there)."""
    from perf.cli.baseline import baseline_table
    from perf.records.baseline import BaselineKey, BaselinePoint

    settings = BaselineSettings("timer", 0.1, 0.05, 3, 100, "inputs", 2, "rule", {}, rounds=8, host_busy_threshold_pct=10.0)
    key = BaselineKey("m", "onnx", "fp32", "cpu", 1)
    quiet = BaselinePoint(key, 1, latency_p50_ms=1.0, throughput_infer_per_s=1000.0, host_busy_pct=1.0)
    busy = BaselinePoint(key, 2, latency_p50_ms=1.0, throughput_infer_per_s=2000.0, host_busy_pct=50.0, host_busy=True)
    assert "†" not in str(baseline_table(BaselineResult("now", settings, [], [quiet])).caption)
    assert "† host busy" in str(baseline_table(BaselineResult("now", settings, [], [quiet, busy])).caption)
