"""A real sweep (bundled tritonserver, real perf_analyzer) ends with the in-process baseline:
recorded in results.json, positive, and the report's efficiency ratio is the recorded
served throughput over the recorded in-process one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clients.server import ServerOptions
from perf.analysis.efficiency import efficiency_rows, in_process_at
from perf.records.baseline import BaselineKey
from perf.records.settings import MeasureSettings
from perf.report.write import write_report
from perf.sweep.run import SweepOptions, run_sweep

pytestmark = pytest.mark.integration

VARIANT = "tiny_onnx_cpu1_db500_mbs8"


def test_sweep_records_the_baseline_and_the_report_computes_the_ratio(tiny_repo: Path, tmp_path: Path):
    opts = SweepOptions(
        ServerOptions(tiny_repo, runtime="bundled"),
        variants=(VARIANT,),
        concurrency=(1, 4),
        measure=MeasureSettings(measurement_interval_ms=500, max_trials=4, unstable_retries=0),
        results_dir=tmp_path,
        run_id="r",
        warmup_requests=5,
        design="sequential",
    )
    run, run_dir = run_sweep(opts)
    bl = run.baseline
    assert bl is not None and bl.target(VARIANT) is not None
    target = bl.target(VARIANT)
    assert target.key == BaselineKey("tiny", "onnx", "fp32", "cpu", target.key.threads) and target.key.threads >= 1
    formed = {max(1, int(lv.avg_server_batch_size + 0.5)) for lv in run.variant(VARIANT).levels if lv.usable}
    assert set(target.batch_sizes) == {1, 8} | formed  # batch 1, the batches formed, max_batch_size
    for key in (target.key, BaselineKey("tiny", "eager", "fp32", "cpu", target.key.threads)):
        pts = bl.points_of(key)
        assert [p.batch_size for p in pts] == target.batch_sizes
        for p in pts:
            assert p.status == "ok" and p.throughput_infer_per_s > 0 and p.latency_median_ms > 0
            assert 0 < p.latency_p50_ms <= p.latency_p99_ms and p.runs >= 20 and p.warmup_runs >= 1
    saved = json.loads((run_dir / "results.json").read_text())["baseline"]
    assert saved["settings"]["versions"]["torch"] and saved["settings"]["cpu_count"]

    rows = efficiency_rows(run)
    assert [r.point.concurrency for r in rows] == [1, 4]
    for r in rows:  # the ratio from the recorded numbers, by hand
        lv = run.variant(VARIANT).level(r.point.concurrency)
        inproc = in_process_at(bl.points_of(target.key), lv.avg_server_batch_size)
        assert r.ratio == pytest.approx(lv.throughput_infer_per_s / inproc.throughput_infer_per_s)
        assert r.overhead_us == pytest.approx(lv.server_compute_infer_us - inproc.latency_ms * 1e3)
    report = write_report(run_dir).read_text()
    assert "## Serving efficiency" in report and "### In-process baseline" in report
    assert "served ÷ in-process" in report and (run_dir / "serving_efficiency.png").is_file()
