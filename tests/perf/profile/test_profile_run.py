"""``triton-perf baseline --trace --precision`` on the tiny build (no server): one trace per format
(files that parse as JSON, linked from the report), the precision study's rows, stored in a
run's results.json or a repository's profile.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from core.records import load_record
from perf.cli.main import cli
from perf.profile import run as profile_run
from perf.profile.baseline import BaselineOptions
from perf.profile.timing import TimingSettings
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult, load, save
from perf.report.write import write_report

pytestmark = pytest.mark.slow  # they use the session's real tiny build: `make test`, not `make test-unit`

QUICK = TimingSettings(min_run_time_s=0.01, warmup_s=0.0, warmup_runs=1)
VARIANTS = ("tiny_onnx_cpu1_db500_mbs8", "tiny_ts_cpu1_db500_mbs8")


def _check_traces(record, folder: Path, batch: int) -> None:
    assert {(t.format, t.device) for t in record.traces} == {("onnx", "cpu"), ("torchscript", "cpu"), ("eager", "cpu")}
    for t in record.traces:
        assert t.status == "measured" and t.batch_size == batch and t.file and t.file.startswith("traces/")
        data = json.loads((folder / t.file).read_text())
        assert data["traceEvents"] if isinstance(data, dict) else data  # a Chrome trace / ORT's event list
        assert 0 < len(t.top_operators) <= 10 and t.top_operators[0].self_us > 0
        assert t.host_busy_pct is not None and t.host_busy == (t.host_busy_pct > 10.0)  # the load it was traced under


def test_a_run_gets_traces_and_the_study_in_results_json_and_the_report(tiny_repo: Path, tmp_path: Path):
    levels = [LevelResult(4, throughput_infer_per_s=100.0, avg_server_batch_size=3.4, latency_p99_ms=2.0)]
    run = RunResult(
        "r1",
        "now",
        settings={"repository": str(tiny_repo), "concurrency": [4]},
        variants=[VariantResult(n, status="ok", levels=list(levels)) for n in VARIANTS],
    )
    save(run, tmp_path)
    (tmp_path / "commands.txt").write_text("perf_analyzer -m x\n")
    record, stored = profile_run.profile_target(
        tmp_path, BaselineOptions(tiny_repo, timing=QUICK), None, trace=True, precisions=("bf16",)
    )
    assert stored == tmp_path / "results.json" and load(tmp_path).profile == record
    _check_traces(record, tmp_path, batch=3)  # the batch the dynamic batcher formed
    rows = {(r.device, r.precision): r for r in record.precision}
    assert set(rows) == {("cpu", "fp32"), ("cpu", "bf16"), ("cuda", "fp32"), ("cuda", "bf16")}  # one model: studied once
    assert rows[("cpu", "fp32")].status == "measured" and rows[("cpu", "fp32")].batch_size == 3
    for r in rows.values():
        assert (r.status == "measured") == (r.latency_median_ms is not None and r.latency_median_ms > 0)
    text = write_report(tmp_path).read_text()
    for t in record.traces:
        assert f"]({t.file})" in text
    assert "## Precision study" in text


def test_cli_on_a_repository_writes_profile_json(tiny_repo: Path, tmp_path: Path):
    out = tmp_path / "out"
    res = CliRunner().invoke(
        cli,
        ["baseline", str(tiny_repo), "--variants", ",".join(VARIANTS), "--no-eager", "--trace", "--min-run-time", "0.01"]
        + ["--warmup", "0", "--out", str(out)],
    )
    assert res.exit_code == 0, res.output
    record = load_record(out / "profile.json", profile_run.PROFILE_KIND)
    assert {t.format for t in record.traces} == {"onnx", "torchscript"} and record.precision == []
    for t in record.traces:
        assert t.file and json.loads((out / t.file).read_text())
    assert "## Profiler traces" in res.output and "## Precision study" not in res.output


def test_profile_only_keeps_the_runs_baseline(tiny_repo: Path, tmp_path: Path):
    """The demo's step 3b: traces and the precision study added to a run, the baseline measured
    right after its sweep kept (re-measuring it later on a loaded host gave 2.5x ratios)."""
    levels = [LevelResult(4, throughput_infer_per_s=100.0, avg_server_batch_size=3.4, latency_p99_ms=2.0)]
    run = RunResult(
        "r1", "now", settings={"repository": str(tiny_repo), "concurrency": [4]},
        variants=[VariantResult(n, status="ok", levels=list(levels)) for n in VARIANTS],
    )  # fmt: skip
    save(run, tmp_path)
    before = load(tmp_path).baseline
    res = CliRunner().invoke(cli, ["baseline", str(tmp_path), "--profile-only"])
    assert res.exit_code == 2 and "--trace / --precision" in res.output
    res = CliRunner().invoke(
        cli, ["baseline", str(tmp_path), "--profile-only", "--trace", "--no-eager"]
    )  # --min-run-time and --warmup time only the baseline (and the study): with --profile-only they are refused
    assert res.exit_code == 0, res.output
    after = load(tmp_path)
    assert after.baseline == before and after.profile is not None and after.profile.traces
    assert "baseline: stored" not in res.output
