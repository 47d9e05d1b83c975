"""``triton-perf baseline RUN`` (and ``--trace``/``--precision``) keeps what the run has measured (issue 26;
trial 14, T14-8's kind: ``coldstart --into`` replaced the sweep's own cold starts, and ``baseline RUN``
replaced the baseline the sweep took right after its levels): refused before anything is measured,
unless ``--replace``, which keeps the earlier one in results.json (and the trace files in traces/replaced-N/)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from core.errors import PerfError
from perf.cli.main import cli
from perf.profile import baseline as api
from perf.profile import run as profile_run
from perf.profile.baseline import BaselineOptions, baseline_settings
from perf.records.baseline import BaselineKey, BaselinePoint, BaselineResult
from perf.records.levels import LevelResult
from perf.records.profile import PrecisionRow, ProfileRecord, TraceRecord
from perf.records.results import RESULTS_FILE, RunResult, VariantResult, load, save

NAME = "cnn_onnx_cpu1_db500_mbs8"


def _baseline(created: str, infer_per_s: float) -> BaselineResult:
    point = BaselinePoint(BaselineKey("cnn", "onnx", threads=1), 1, throughput_infer_per_s=infer_per_s, latency_p50_ms=1.0)
    return BaselineResult(created, baseline_settings(BaselineOptions(Path("."))), [], [point])


@pytest.fixture
def swept(tmp_path: Path) -> tuple[Path, Path]:
    """A run with its sweep's own baseline and a trace (its file written), and a repository holding its variant."""
    repo = tmp_path / "repo"
    (repo / NAME).mkdir(parents=True)
    (repo / NAME / "config.pbtxt").write_text(f'name: "{NAME}"\n')
    levels = [LevelResult(4, throughput_infer_per_s=100.0, avg_server_batch_size=3.4, latency_p99_ms=2.0)]
    run = RunResult("t14", "now", settings={"repository": str(repo), "concurrency": [4]})
    run.variants = [VariantResult(NAME, {"model": "cnn"}, status="ok", levels=levels)]
    run.baseline = _baseline("2026-12-03T14:30:12.5", 812.0)
    trace = TraceRecord("onnx", "onnxruntime", "cpu", 4, threads=1, file="traces/cnn_onnx_fp32_cpu_b4.json")
    run.profile = ProfileRecord(traces=[trace], precision=[PrecisionRow("eager PyTorch", "cpu", "fp16", "cast")])
    run_dir = tmp_path / "run"
    save(run, run_dir)
    (run_dir / "traces").mkdir()
    (run_dir / trace.file).write_text("the sweep's trace")
    return run_dir, repo


def _refused(args: list[str], run_dir: Path) -> str:
    before = (run_dir / RESULTS_FILE).read_bytes()
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 1 and isinstance(res.exception, PerfError), res.output
    assert (run_dir / RESULTS_FILE).read_bytes() == before and "baseline: stored" not in res.output
    return " ".join(f"{res.exception.message} -> {res.exception.hint}".split())


def test_a_runs_baseline_traces_and_study_are_not_measured_over_unasked(swept):
    run_dir, repo = swept
    text = _refused(["baseline", str(run_dir)], run_dir)
    assert "run t14 has its in-process baseline (measured 2026-12-03 14:30:12: 1 of 1 points)" in text
    assert "`--replace` measures again and keeps the earlier one in results.json (replaced_baselines" in text
    assert "`--profile-only --trace/--precision` keeps it" in text
    text = _refused(["baseline", str(run_dir), "--trace", "--precision", "fp16"], run_dir)  # one error for all parts
    assert "its in-process baseline" in text and "1 trace (onnx)" in text and "a precision study (1 measured row: fp16)" in text
    text = _refused(["baseline", str(run_dir), "--profile-only", "--trace"], run_dir)
    assert "run t14 has 1 trace (onnx)" in text and "baseline" not in text.split("->")[0]
    assert (run_dir / "traces" / "cnn_onnx_fp32_cpu_b4.json").read_text() == "the sweep's trace"


def test_replace_keeps_the_earlier_baseline_beside_the_new(swept, monkeypatch):
    run_dir, _repo = swept
    old = load(run_dir).baseline
    new = _baseline("2026-12-03T15:01:00", 301.0)
    monkeypatch.setattr(api, "run_baseline", lambda *a, **k: new)  # the measurement itself: tests/perf/profile/test_baseline.py
    res = CliRunner().invoke(cli, ["baseline", str(run_dir), "--replace"])
    assert res.exit_code == 0, res.output
    saved = load(run_dir)
    assert saved.baseline == new and saved.replaced_baselines == [old]
    replaced = [line for line in res.output.splitlines() if line.startswith("replaced ")]  # re-check 14, NEW-5: unsaid
    assert replaced == [
        "replaced the run's in-process baseline (measured 2026-12-03 14:30:12: 1 of 1 points; kept in results.json as its "
        "replaced_baselines)"
    ]


def test_a_repositorys_baseline_json_in_out_is_not_written_over_unasked(swept, monkeypatch):
    _run_dir, repo = swept
    out = repo.parent / "bl"
    api.write_baseline(_baseline("2026-12-03T14:30:12", 812.0), out)
    before = (out / api.BASELINE_FILE).read_bytes()
    res = CliRunner().invoke(cli, ["baseline", str(repo), "--out", str(out)])
    assert res.exit_code == 1 and isinstance(res.exception, PerfError), res.output
    assert f"{out} holds baseline.json of an earlier measurement" in res.exception.message
    assert "--replace" in (res.exception.hint or "") and (out / api.BASELINE_FILE).read_bytes() == before
    new = _baseline("2026-12-03T15:01:00", 301.0)
    monkeypatch.setattr(api, "run_baseline", lambda *a, **k: new)
    res = CliRunner().invoke(cli, ["baseline", str(repo), "--out", str(out), "--replace"])
    assert res.exit_code == 0, res.output
    assert (out / "baseline.previous-1.json").read_bytes() == before and (out / api.BASELINE_FILE).read_bytes() != before


def test_replaced_traces_are_kept_with_their_files_and_put_back_when_nothing_is_measured(swept, monkeypatch):
    run_dir, repo = swept
    earlier = load(run_dir).profile
    name = "cnn_onnx_fp32_cpu_b4.json"

    def traced(status: str) -> Any:
        def profile_variants(opts: Any, out_dir: Path, **k: Any) -> ProfileRecord:
            (out_dir / "traces" / name).write_text("the new trace")  # written over the old one's name
            t = TraceRecord("onnx", "onnxruntime", "cpu", 4, threads=1, file=f"traces/{name}", status=status, reason="boom")
            return ProfileRecord(traces=[t])

        return profile_variants

    monkeypatch.setattr(profile_run, "profile_variants", traced("failed"))
    with pytest.raises(PerfError, match="no trace or precision row was measured"):
        profile_run.profile_target(run_dir, BaselineOptions(repo), None, trace=True, replace=True)
    assert load(run_dir).profile == earlier and (run_dir / "traces" / name).read_text() == "the sweep's trace"
    assert not (run_dir / "traces" / "replaced-1").exists()

    monkeypatch.setattr(profile_run, "profile_variants", traced("measured"))
    record, _ = profile_run.profile_target(run_dir, BaselineOptions(repo), None, trace=True, replace=True)
    saved = load(run_dir).profile
    assert saved == record and saved.precision == earlier.precision and not saved.replaced_precision
    assert [t.file for t in saved.replaced_traces] == [f"traces/replaced-1/{name}"]
    assert (run_dir / "traces" / "replaced-1" / name).read_text() == "the sweep's trace"
    assert (run_dir / "traces" / name).read_text() == "the new trace"


def _said(run_dir: Path, monkeypatch: Any) -> tuple[str, list[Path]]:
    """What `baseline RUN --trace --replace` says on stderr before it measures, and each read of a results.json."""
    from perf.records import results

    reads: list[Path] = []
    real = results.load
    monkeypatch.setattr(results, "load", lambda d, *a, **k: reads.append(Path(d)) or real(d, *a, **k))
    monkeypatch.setattr(api, "baseline_for_run", lambda *a, **k: _baseline("2026-12-03T15:01:00", 301.0))
    monkeypatch.setattr(profile_run, "profile_target", lambda *a, **k: (_ for _ in ()).throw(SystemExit(0)))
    res = CliRunner().invoke(cli, ["baseline", str(run_dir), "--trace", "--replace"])
    assert res.exit_code == 0, res.output
    return " ".join(res.stderr.split()), reads


def test_a_runs_estimates_are_made_from_one_read_of_it(swept, monkeypatch):
    """Both estimates, the baseline's and the traces', are made from one read of the run's results.json (each read it)."""
    run_dir, _repo = swept
    assert _said(run_dir, monkeypatch)[1] == [run_dir]


def test_an_estimate_of_nothing_planned_is_not_said(swept, monkeypatch):
    """A run none of whose variants the repository plans (no build record here) said "an estimated 0 s
    (0 variants, 0 points)" and "traces and precision study: : at most about 0 s" before refusing."""
    run_dir, _repo = swept
    said, _ = _said(run_dir, monkeypatch)
    assert "an estimated 0 s" not in said and ": :" not in said and "at most about 0 s" not in said
