"""Serving efficiency from hand-made records: the arithmetic of the ratio, the overhead and
the interpolation, the report section, and the conclusion's phrases (no server, no timing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from perf.analysis.efficiency import efficiency_row, efficiency_rows, in_process_at, other_shapes
from perf.analysis.stats.points import aggregate
from perf.records import results
from perf.records.baseline import NOT_RUN, BaselineKey, BaselinePoint, BaselineResult, BaselineSettings, BaselineTarget
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.report.sections.efficiency import PHRASES, OverheadFacts, efficiency_section
from perf.report.sections.efficiency_table import ratio_text
from perf.report.write import write_report

KEY = BaselineKey("mlp", "onnx", "fp32", "cpu", 2)
VARIANT = "mlp_onnx_cpu1_db500_mbs8"


def point(batch: int, median_ms: float | None, key: BaselineKey = KEY, status: str = "ok") -> BaselinePoint:
    thr = batch / median_ms * 1e3 if median_ms else None
    return BaselinePoint(
        key,
        batch,
        status=status,
        latency_median_ms=median_ms,
        latency_p50_ms=median_ms,
        throughput_infer_per_s=thr,  # type: ignore[arg-type]
    )


def baseline(points: list[BaselinePoint]) -> BaselineResult:
    settings = BaselineSettings("timer", 0.1, 0.05, 3, 100, "reference inputs", 2, "rule", {"torch": "2"})
    return BaselineResult("now", settings, [BaselineTarget(VARIANT, KEY, 1, [1, 4, 8], "python")], points)


def level(c: int, thr: float, batch: float, infer_us: float) -> LevelResult:
    return LevelResult(
        c,
        throughput_infer_per_s=thr,
        latency_p50_ms=1.0,
        latency_p99_ms=2.0,
        avg_server_batch_size=batch,
        server_compute_infer_us=infer_us,
        server_queue_us=300.0,
        client_send_us=10.0,
        network_server_us=100.0,
        client_recv_us=20.0,
        server_compute_input_us=5.0,
        server_compute_output_us=6.0,
    )


def test_in_process_at_measured_interpolated_nearest():
    pts = [point(1, 1.0), point(4, 2.5), point(8, 6.0), point(16, None, status=NOT_RUN)]
    m = in_process_at(pts, 4)
    assert (m.how, m.latency_ms, m.throughput_infer_per_s) == ("measured", 2.5, pytest.approx(1600.0))
    i = in_process_at(pts, 2)  # 1.0 + (2.5 - 1.0) * (2 - 1) / (4 - 1) = 1.5 ms
    assert i.how == "interpolated" and i.batches == (1, 4)
    assert i.latency_ms == pytest.approx(1.5) and i.throughput_infer_per_s == pytest.approx(2 / 1.5e-3)
    assert i.how_text == "interpolated between batches 1 and 4"
    n = in_process_at(pts, 12)  # beyond the last measured batch (16 was not run): the nearest, its own throughput
    assert n.how == "nearest" and n.batches == (8,) and n.throughput_infer_per_s == pytest.approx(8 / 6e-3)
    assert in_process_at([point(1, None, status=NOT_RUN)], 1) is None


def test_efficiency_row_arithmetic_from_recorded_numbers():
    bl = baseline([point(1, 1.0), point(4, 2.5)])
    p = aggregate([level(4, 1000.0, 2.0, 2000.0)], VARIANT)[0]
    r = efficiency_row(VARIANT, bl.targets[0], p, bl)
    inproc = 2 / 1.5e-3  # interpolated: 1.5 ms per call of 2
    assert r.ratio == pytest.approx(1000.0 / inproc)
    assert r.in_process_us == pytest.approx(1500.0)
    assert r.overhead_us == pytest.approx(500.0) and r.overhead_pct == pytest.approx(25.0)
    assert r.components["server_queue_us"] == 300.0


def make_run(with_baseline: bool = True) -> RunResult:
    run = RunResult("r1", "now", environment={"cpu_count": 2})  # type: ignore[typeddict-item]
    vr = VariantResult(VARIANT, status="ok", levels=[level(1, 400.0, 1.0, 1500.0), level(4, 1000.0, 2.0, 2000.0)])
    run.variants.append(vr)
    if with_baseline:
        trt = BaselineKey("mlp", "trt", "fp16", "cuda", None)
        run.baseline = baseline(
            [point(1, 1.0), point(4, 2.5), point(8, 6.0), BaselinePoint(trt, 1, status=NOT_RUN, reason="no GPU here")]
        )
    return run


def test_section_table_conclusion_and_not_run_rows(tmp_path: Path):
    run = make_run()
    rows = efficiency_rows(run)
    assert [(r.point.concurrency, round(r.ratio, 3)) for r in rows] == [(1, 0.4), (4, round(1000 / (2 / 1.5e-3), 3))]
    text = "\n".join(efficiency_section(run, tmp_path, tmp_path))
    assert "0.75×" in text and "0.40×" in text  # 1000 / 1333.3 and 400 / 1000, from the records
    assert "compute infer took 2,000 µs against 1,500 µs" in text  # the best level's split
    assert "500 µs of serving overhead" in text
    assert "not run on this host: no GPU here" in text  # never a 0
    assert "**What was compared.**" in text and "**When this holds.**" in text
    assert (tmp_path / "serving_efficiency.png").is_file()


def test_round_trip_and_report_without_baseline(tmp_path: Path):
    run = make_run()
    results.save(run, tmp_path)
    back = results.load(tmp_path)
    assert back.baseline == run.baseline
    assert back.baseline.points[-1].throughput_infer_per_s is None  # not run: null, not 0
    old = make_run(with_baseline=False)
    results.save(old, tmp_path)
    assert results.load(tmp_path).baseline is None
    report = write_report(tmp_path).read_text()
    assert "No in-process baseline in this run" in report and "triton-perf baseline" in report


@pytest.mark.parametrize(
    "facts, chosen",
    [
        (OverheadFacts(80.0, 0.3, 1), ["overhead_dominates"]),
        (OverheadFacts(10.0, 0.9, 1), ["compute_dominates"]),
        (OverheadFacts(-5.0, 1.2, 1), ["served_faster"]),
        (OverheadFacts(20.0, 1.4, 2), ["compute_dominates", "parallel_instances"]),
        (OverheadFacts(None, None, 2), []),
        # within the noise: neither "it dominates" nor "the computation dominates" beside "not significant"
        (OverheadFacts(80.0, 0.3, 1, significant=False), ["overhead_within_noise"]),
        (OverheadFacts(10.0, 0.9, 1, significant=False), ["overhead_within_noise"]),
        (OverheadFacts(80.0, 0.3, 1, significant=True), ["overhead_dominates"]),
    ],
)
def test_phrases_follow_the_numbers(facts: OverheadFacts, chosen: list[str]):
    assert [p.key for p in PHRASES if p.when(facts)] == chosen


def test_ratio_text():
    assert ratio_text(0.754) == "0.75×" and ratio_text(0.0024) == "0.0024×" and ratio_text(None) == "—"


def test_levels_at_another_swept_shape_are_not_compared():
    run = make_run()
    run.baseline.targets[0].shape = "seq=32"
    vr = run.variants[0]
    vr.levels = [level(1, 400.0, 1.0, 1500.0), level(4, 1000.0, 2.0, 2000.0)]
    vr.levels[0].shape, vr.levels[1].shape = "seq=32", "seq=64"
    assert [r.point.concurrency for r in efficiency_rows(run)] == [1]
    assert other_shapes(run) == [f"{VARIANT} at seq=64"]
