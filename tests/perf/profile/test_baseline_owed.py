"""The in-process baseline is owed per variant (trial 29, T29-1): a resume that measured two more variants skipped
the baseline for them, and the report said the skip "was measured since", the resume said its baseline "is not owed",
and ``triton-perf baseline RUN`` (the command the skip named) was refused as the run "has its in-process baseline",
each asking only whether any point was measured. Now one answer, :func:`perf.analysis.baseline_owed.baseline_owed`:
the report counts the skip as a cut, and ``baseline RUN`` measures the variants that lack it, keeping the rest."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from click.testing import CliRunner

from perf.analysis.baseline_owed import baseline_owed
from perf.cli.main import cli
from perf.profile import baseline as api
from perf.profile.baseline import BaselineOptions, baseline_settings
from perf.records.baseline import BaselineKey, BaselinePoint, BaselineResult, BaselineTarget
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult, load, save
from perf.report.sections.rounds_budget import baseline_measured
from perf.sweep.resuming import baseline_missing

OLD, NEW = "cnn_onnx_cpu1_nodb_mbs8", "cnn_ts_cpu1_nodb_mbs8"


def _baseline(created: str, variant: str, fmt: str) -> BaselineResult:
    key = BaselineKey("cnn", fmt, threads=1)
    point = BaselinePoint(key, 1, throughput_infer_per_s=800.0, latency_p50_ms=1.0)
    return BaselineResult(created, baseline_settings(BaselineOptions(Path("."))), [BaselineTarget(variant, key)], [point])


def _run(tmp_path: Path) -> tuple[Path, RunResult]:
    """Session 1 measured OLD and its baseline; the resume measured NEW and skipped the baseline for time."""
    repo = tmp_path / "repo"
    for name in (OLD, NEW):
        (repo / name).mkdir(parents=True)
        (repo / name / "config.pbtxt").write_text(f'name: "{name}"\n')
    levels = [LevelResult(4, throughput_infer_per_s=100.0, avg_server_batch_size=3.4, latency_p99_ms=2.0)]
    run = RunResult("t29", "now", settings={"repository": str(repo), "concurrency": [4]})
    run.variants = [VariantResult(n, {"model": "cnn"}, status="ok", levels=list(levels)) for n in (OLD, NEW)]
    run.baseline = _baseline("2026-12-05T10:37:07", OLD, "onnx")
    save(run, tmp_path / "run")
    return tmp_path / "run", run


def test_a_baseline_of_some_variants_is_owed_for_the_others(tmp_path):
    _dir, run = _run(tmp_path)
    assert baseline_owed(run) == [NEW]
    assert not baseline_measured(run)  # the report: a cut for time, not "measured since"

    class Opts:
        baseline = True

    assert baseline_missing(run, Opts())  # a resume owes it (not "not owed")


def test_baseline_run_measures_the_variants_that_lack_it_and_keeps_the_rest(tmp_path, monkeypatch):
    run_dir, _run_ = _run(tmp_path)
    asked: list[Any] = []

    def measured(opts: BaselineOptions, *_a: Any, **_k: Any) -> BaselineResult:
        asked.append(list(opts.variants))
        return _baseline("2026-12-05T10:50:00", NEW, "torchscript")

    monkeypatch.setattr(api, "run_baseline", measured)  # the measurement itself: tests/perf/profile/test_baseline.py
    res = CliRunner().invoke(cli, ["baseline", str(run_dir)])
    assert res.exit_code == 0, res.output
    assert asked == [[NEW]]
    saved = load(run_dir)
    assert saved.baseline is not None and [t.variant for t in saved.baseline.targets] == [OLD, NEW]
    assert saved.baseline.created == "2026-12-05T10:37:07" and not saved.replaced_baselines
    assert baseline_owed(saved) == [] and baseline_measured(saved)
    res = CliRunner().invoke(cli, ["baseline", str(run_dir)])  # now whole: refused as before
    assert res.exit_code == 1 and "has its in-process baseline" in str(res.exception)


def test_baseline_run_refuses_variants_whose_baseline_the_run_has(tmp_path):
    run_dir, _run_ = _run(tmp_path)
    res = CliRunner().invoke(cli, ["baseline", str(run_dir), "--variants", OLD])
    assert res.exit_code == 1, res.output
    text = " ".join(f"{res.exception.message} -> {res.exception.hint}".split())
    assert (
        f"has the in-process baseline of `{OLD}`" in text
        and f"drop --variants to measure the variants that lack it (`{NEW}`)" in text
    )
