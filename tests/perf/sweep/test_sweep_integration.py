"""Real sweeps: the bundled tritonserver and the real perf_analyzer on the tiny model."""

from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path

import pytest
from python_models import EASY_RATE_PER_S

from clients.server import ServerOptions
from perf.records import results
from perf.records.settings import MeasureSettings
from perf.sweep.run import SweepOptions, run_sweep

pytestmark = pytest.mark.integration

FAST = MeasureSettings(measurement_interval_ms=500, max_trials=6, unstable_retries=1)


@pytest.fixture
def repo_with_broken_variant(tiny_repo: Path, tmp_path: Path) -> Path:
    """A copy of the tiny repository plus one variant whose artifact file is missing."""
    repo = tmp_path / "repo"
    shutil.copytree(tiny_repo, repo)
    broken = repo / "broken_onnx_cpu1_nodb_mbs8"
    shutil.copytree(repo / "tiny_onnx_cpu1_nodb_mbs8", broken)
    (broken / "1" / "model.onnx").unlink()
    cfg = (broken / "config.pbtxt").read_text().replace("tiny_onnx_cpu1_nodb_mbs8", broken.name)
    (broken / "config.pbtxt").write_text(cfg)
    return repo


def test_sweep_measures_levels_survives_a_broken_variant_and_resumes(repo_with_broken_variant: Path, tmp_path: Path):
    repo = repo_with_broken_variant
    variants = ("tiny_onnx_cpu1_nodb_mbs8", "broken_onnx_cpu1_nodb_mbs8", "tiny_ts_cpu2_db500_mbs8")
    opts = SweepOptions(
        ServerOptions(repo, runtime="bundled"),
        variants=variants,
        concurrency=(1,),
        measure=FAST,
        results_dir=tmp_path / "results",
        run_id="r1",
        warmup_requests=5,
        design="sequential",
    )
    run, run_dir = run_sweep(opts)

    ok = run.variant("tiny_onnx_cpu1_nodb_mbs8")
    assert ok.status == "ok"
    lv = ok.level(1)
    assert lv.throughput_infer_per_s > 0
    assert 0 < lv.latency_p50_ms <= lv.latency_p90_ms <= lv.latency_p99_ms
    assert lv.server_compute_infer_us > 0
    assert lv.avg_server_batch_size == pytest.approx(1.0)  # no dynamic batching, batch 1 requests
    assert lv.cpu_utilization_pct is not None and 0 <= lv.cpu_utilization_pct <= 100
    # the server's own processes (tritonserver + python-backend stub) worked, within the host's cores
    assert lv.server_cpu_cores is not None and 0 < lv.server_cpu_cores <= (os.cpu_count() or 1) + 0.5
    assert lv.gpu_utilization_pct is None  # no GPU here: absent, never 0
    assert (run_dir / lv.csv).is_file()

    cold = ok.cold_start  # measured right after the load, before the sweep's warm-up (issue 17)
    assert cold is not None and cold.load_s > 0 and cold.load_log_s > 0
    assert cold.first_request.first_ms > 0 and cold.first_request.batch_size == 1

    broken = run.variant("broken_onnx_cpu1_nodb_mbs8")
    assert broken.status == "failed" and "broken_onnx_cpu1_nodb_mbs8" in broken.error
    assert broken.cold_start.not_measured.startswith("not measured: the load failed")
    assert run.variant("tiny_ts_cpu2_db500_mbs8").status == "ok"  # the sweep went on
    assert "perf_analyzer" in (run_dir / results.COMMANDS_FILE).read_text()
    assert "tritonserver" in (run_dir / results.COMMANDS_FILE).read_text()

    # an interrupted run: drop the last variant's levels and the finish mark, then resume with
    # other flags: the saved settings win, finished levels stay as they were, the rest is measured
    saved = results.load(run_dir)
    saved.variant("tiny_ts_cpu2_db500_mbs8").levels.clear()
    saved.variant("tiny_ts_cpu2_db500_mbs8").status = "pending"
    saved.finished = None
    results.save(saved, run_dir)
    before = dataclasses.asdict(lv)
    resumed, _ = run_sweep(dataclasses.replace(opts, variants=("nothing_*",), concurrency=(1, 2, 4), resume=True))
    assert dataclasses.asdict(resumed.variant("tiny_onnx_cpu1_nodb_mbs8").level(1)) == before
    again = resumed.variant("tiny_ts_cpu2_db500_mbs8")
    assert again.status == "ok" and [x.concurrency for x in again.levels] == [1]  # the saved levels, not (1, 2, 4)
    assert resumed.finished is not None and results.load(run_dir).variant("tiny_ts_cpu2_db500_mbs8").level(1).ok


def test_resuming_a_run_that_does_not_exist_is_refused(tiny_repo: Path, tmp_path: Path):
    from core.errors import PerfError

    opts = SweepOptions(
        ServerOptions(tiny_repo, runtime="bundled"), results_dir=tmp_path, run_id="nosuch", resume=True, design="sequential"
    )
    with pytest.raises(PerfError, match="no run 'nosuch' to resume"):
        run_sweep(opts)
    assert not (tmp_path / "nosuch").exists()


def test_a_variant_with_an_unreadable_config_fails_alone(tiny_repo: Path, tmp_path: Path):
    repo = tmp_path / "repo"
    shutil.copytree(tiny_repo, repo)
    (repo / "tiny_onnx_cpu1_db500_mbs8" / "config.pbtxt").write_text("name: [broken\n")
    opts = SweepOptions(
        ServerOptions(repo, runtime="bundled"),
        variants=("tiny_onnx_cpu1_db500_mbs8", "tiny_onnx_cpu1_nodb_mbs8"),
        concurrency=(1,),
        measure=FAST,
        results_dir=tmp_path,
        run_id="bad",
        warmup_requests=0,
        design="sequential",
    )
    run, _ = run_sweep(opts)
    assert run.variant("tiny_onnx_cpu1_db500_mbs8").status == "failed"
    assert "not a valid Triton ModelConfig" in run.variant("tiny_onnx_cpu1_db500_mbs8").error
    assert run.variant("tiny_onnx_cpu1_nodb_mbs8").status == "ok" and run.finished is not None


def test_an_unstable_level_is_kept_and_flagged(tiny_repo: Path, tmp_path: Path):
    # a 0.001 % stability criterion cannot be met in 3 windows: the level must still have numbers
    impossible = MeasureSettings(measurement_interval_ms=300, stability_pct=0.001, max_trials=3, unstable_retries=0)
    opts = SweepOptions(
        ServerOptions(tiny_repo, runtime="bundled"),
        variants=("tiny_onnx_cpu1_db500_mbs8",),
        concurrency=(2,),
        measure=impossible,
        results_dir=tmp_path,
        run_id="u",
        warmup_requests=0,
        host_busy_threshold_pct=1e9,
        design="sequential",
    )  # about instability: no re-measurement for a busy host
    run, _ = run_sweep(opts)
    lv = run.variant("tiny_onnx_cpu1_db500_mbs8").level(2)
    assert lv.ok and lv.stable is False and lv.attempts == 2
    assert lv.throughput_infer_per_s > 0


def test_request_rate_levels_are_measured_and_reported(tiny_repo: Path, tmp_path: Path):
    from perf.report.write import write_report

    opts = SweepOptions(
        ServerOptions(tiny_repo, runtime="bundled"),
        variants=("tiny_onnx_cpu1_nodb_mbs8",),
        concurrency=(1,),
        request_rates=(EASY_RATE_PER_S,),
        measure=FAST,
        results_dir=tmp_path,
        run_id="rr",
        warmup_requests=0,
        design="sequential",
    )
    run, run_dir = run_sweep(opts)
    v = run.variant("tiny_onnx_cpu1_nodb_mbs8")
    rate = v.level(0, request_rate=EASY_RATE_PER_S)
    assert rate is not None and rate.ok and rate.request_rate == EASY_RATE_PER_S
    # a rate the tiny model keeps up with on any host (python_models.EASY_RATE_PER_S), so the achieved rate is the
    # offered one (100/s, offered before, was not achieved on a busy host)
    assert rate.rate_achieved is True and 0.7 * EASY_RATE_PER_S < rate.throughput_infer_per_s < 1.3 * EASY_RATE_PER_S
    assert v.level(1).ok and v.level(1).request_rate is None
    text = write_report(run_dir).read_text()
    assert "## Request-rate levels" in text and "### Concurrency 0" not in text
    assert "## Cold start" in text and "**Cold start.** 1 variant was" in text  # numbers from this run's records
