"""The in-process baseline without a server: thread rules, timing, planning, points the host
cannot run, and ``triton-perf baseline REPOSITORY`` on the tiny build."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from tritonclient.grpc import model_config_pb2 as mc

from builders.backends import BACKENDS
from builders.serving.runners import instance_threads
from builders.serving.tensorrt_env import missing_requirements
from perf.cli.main import cli
from perf.profile.plan import BaselineOptions, formed_batches, plan_targets
from perf.profile.points import measure_key
from perf.profile.timing import MIN_SINGLE_RUNS, TimingSettings, time_call
from perf.records.baseline import NOT_RUN, BaselineKey
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult

QUICK = TimingSettings(min_run_time_s=0.01, warmup_s=0.0, warmup_runs=1)


def test_instance_threads_rule_of_each_backend():
    assert instance_threads(None, 2, 8) == 4 and instance_threads("3", 2, 8) == 3 and instance_threads("", 16, 8) == 1
    cfg = mc.ModelConfig(backend="python")
    cfg.instance_group.add(count=2)
    assert BACKENDS["python"].instance_threads(cfg, 8) == 4
    cfg.parameters["intra_op_threads"].string_value = "3"
    assert BACKENDS["python"].instance_threads(cfg, 8) == 3
    ort = mc.ModelConfig(platform="onnxruntime_onnx")
    assert BACKENDS["onnxruntime"].instance_threads(ort, 8) is None  # onnxruntime's default
    ort.parameters["intra_op_thread_count"].string_value = "2"
    assert BACKENDS["onnxruntime"].instance_threads(ort, 8) == 2
    pt = mc.ModelConfig(platform="pytorch_libtorch")
    pt.parameters["INTRA_OP_THREAD_COUNT"].string_value = "6"
    assert BACKENDS["pytorch"].instance_threads(pt, 8) == 6


def test_time_call_numbers_are_positive_and_consistent():
    t = time_call(lambda: sum(range(200)), 1, QUICK)
    assert 0 < t.p50_s <= t.p99_s and t.median_s > 0 and t.iqr_s >= 0
    assert t.runs >= MIN_SINGLE_RUNS and t.blocks >= 1 and t.runs_per_block >= 1 and t.warmup_runs >= 1


def test_formed_batches_rounds_the_usable_levels():
    vr = VariantResult(
        "v",
        levels=[
            LevelResult(1, throughput_infer_per_s=10, avg_server_batch_size=1.0),
            LevelResult(2, throughput_infer_per_s=10, avg_server_batch_size=2.4),
            LevelResult(4, throughput_infer_per_s=10, avg_server_batch_size=2.6),
            LevelResult(8, throughput_infer_per_s=10, avg_server_batch_size=5.5),
            LevelResult(16, error="failed", avg_server_batch_size=9.0),  # a failed level formed nothing we trust
        ],
    )
    run = RunResult("r", "now", variants=[vr])
    assert formed_batches(run, "v") == [1, 2, 3, 6] and formed_batches(run, "other") == []


@pytest.mark.skipif(not missing_requirements(), reason="this host has a GPU and TensorRT: the plan runs here")
def test_tensorrt_and_gpu_points_are_not_run_here_never_zero():
    for key in (BaselineKey("mlp", "trt", "fp16", "cuda", None), BaselineKey("mlp", "onnx", "fp32", "cuda", None)):
        pts = list(measure_key(key, None, "model.plan", [1, 8], QUICK))  # type: ignore[arg-type]
        assert [(p.batch_size, p.status) for p in pts] == [(1, NOT_RUN), (8, NOT_RUN)]
        assert all(p.reason and p.throughput_infer_per_s is None and p.latency_p50_ms is None for p in pts)


@pytest.mark.slow  # the session's real tiny build
def test_plan_targets_take_threads_and_batches_from_the_configs(tiny_repo: Path):
    vr = VariantResult(
        "tiny_ts_cpu2_db500_mbs8", status="ok", levels=[LevelResult(4, throughput_infer_per_s=1, avg_server_batch_size=3.2)]
    )
    run = RunResult("r", "now", variants=[vr])
    planned, notes = plan_targets(BaselineOptions(tiny_repo, run=run, cpu_count=8))
    assert notes == []
    (target, _rv, fmt, file) = planned[0]
    assert (target.variant, fmt, file) == ("tiny_ts_cpu2_db500_mbs8", "torchscript", "model.pt")
    assert target.key == BaselineKey("tiny", "torchscript", "fp32", "cpu", 4)  # 8 cores / 2 instances
    assert target.instances == 2 and target.batch_sizes == [1, 3, 8]  # 1, formed, max_batch_size


@pytest.mark.slow  # the session's real tiny build
def test_perf_baseline_on_a_repository_writes_baseline_json(tiny_repo: Path, tmp_path: Path):
    out = tmp_path / "bl"
    res = CliRunner().invoke(
        cli,
        [
            "baseline",
            str(tiny_repo),
            "--variants",
            "tiny_onnx_cpu1_nodb_mbs8",
            "--min-run-time",
            "0.01",
            "--warmup",
            "0",
            "--out",
            str(out),
        ],
    )
    assert res.exit_code == 0, res.output
    data = json.loads((out / "baseline.json").read_text())
    assert data["schema"] == 1 and data["settings"]["versions"]["onnxruntime"]
    pts = {(p["key"]["format"], p["batch_size"]): p for p in data["points"]}
    assert set(pts) == {("onnx", 1), ("onnx", 8), ("eager", 1), ("eager", 8)}
    for p in pts.values():
        assert p["status"] == "ok" and p["throughput_infer_per_s"] > 0 and 0 < p["latency_p50_ms"] <= p["latency_p99_ms"]
        assert p["key"]["threads"] >= 1


@pytest.mark.slow  # the session's real tiny build
def test_a_baseline_whose_deadline_fits_no_round_times_nothing(tiny_repo: Path):
    """Trial 13, T13-16: with 10 s of the budget left a round of 21 s started; now no round starts that
    would end after the deadline, and the model is noted not measured instead."""
    import time

    from perf.profile.baseline import run_baseline

    long = TimingSettings(min_run_time_s=400.0, warmup_s=0.0, warmup_runs=1)  # a round of 4 points x 2 x 50 s
    opts = BaselineOptions(tiny_repo, variants=["tiny_onnx_cpu1_nodb_mbs8"], timing=long, deadline=time.monotonic() + 30.0)
    result = run_baseline(opts)
    assert not result.points
    # found from the first key's calls, before the eager model's load (trial 22, F-baseline-waste)
    start = "`tiny`: not measured: its loads, warm-up and first round, an estimated "
    assert [n for n in result.notes if n.startswith(start) and "(1 of 2 keys loaded)" in n], result.notes
