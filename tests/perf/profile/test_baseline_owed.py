"""The in-process baseline is owed per variant (trial 29, T29-1): a resume that measured two more variants skipped
the baseline for them, and the report said the skip "was measured since", the resume said its baseline "is not owed",
and ``triton-perf baseline RUN`` (the command the skip named) was refused as the run "has its in-process baseline",
each asking only whether any point was measured. Now one answer, :func:`perf.analysis.baseline_owed.baseline_owed`:
the report counts the skip as a cut, and ``baseline RUN`` measures the variants that lack it, keeping the rest."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from core.errors import PerfError
from perf.analysis.baseline_owed import baseline_owed
from perf.cli.main import cli
from perf.profile import baseline as api
from perf.profile.baseline import BaselineOptions, baseline_settings
from perf.profile.replacing import add_owed, owed_only
from perf.profile.stopped import BaselineInterrupted
from perf.records.baseline import BaselineKey, BaselinePoint, BaselineResult, BaselineTarget
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult, load, save
from perf.records.workloads import split_by_workload
from perf.report.sections.rounds_budget import baseline_measured
from perf.sweep.resuming import baseline_missing

OLD, NEW = "cnn_onnx_cpu1_nodb_mbs8", "cnn_ts_cpu1_nodb_mbs8"


def RUNS_ALL(run: RunResult, owed: list[str], repo: Path) -> list[str]:  # noqa: N802
    """perf.profile.baseline.measurable as if every owed variant ran in-process (this fake repository's runs none)."""
    return owed


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
    monkeypatch.setattr(api, "measurable", RUNS_ALL, raising=False)
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


#: Review s23r (M6, M5, M3, m1, m2) of the per-variant rule above.


def test_a_variant_the_baseline_cannot_run_owes_no_baseline(tmp_path):
    """M6: a variant plan_targets gives no target (here: its config names no artifact the toolkit runs) was owed
    forever: every resume measured the whole baseline again, and `baseline RUN` failed "nothing measured"."""
    run_dir, run = _run(tmp_path)
    measured = api.run_baseline(BaselineOptions(Path(run.settings["repository"]), run=run))
    assert set(measured.unmeasurable) == {OLD, NEW} and not measured.targets  # the plan's one rule, recorded
    assert any(n.startswith(f"{NEW}: not measurable in-process: ") for n in measured.notes)
    assert run.baseline is not None
    run.baseline.unmeasurable = {NEW: "no build record or no artifact the toolkit runs"}
    assert baseline_owed(run) == [] and baseline_measured(run)

    class Opts:
        baseline = True

    assert not baseline_missing(run, Opts())  # a resume of the finished run measures nothing more
    # a record from before `unmeasurable` (NEW: no target, only its note): `baseline RUN` plans it, says so, refuses
    res = CliRunner().invoke(cli, ["baseline", str(run_dir)])
    assert res.exit_code == 1 and "has its in-process baseline" in str(res.exception), res.output


def test_baseline_run_variants_of_a_variant_that_cannot_be_measured_says_why(tmp_path):
    """s23s (left alone): `--variants B` of a variant recorded as not measurable in-process was refused as "has the
    in-process baseline of `B`", which it has not; it says B cannot be measured in-process, and why."""
    run_dir, run = _run(tmp_path)
    assert run.baseline is not None
    run.baseline.unmeasurable = {NEW: "no build record or no artifact the toolkit runs"}
    save(run, run_dir)
    res = CliRunner().invoke(cli, ["baseline", str(run_dir), "--variants", NEW])
    assert res.exit_code == 1, res.output
    text = " ".join(f"{res.exception.message} -> {res.exception.hint}".split())
    assert "has the in-process baseline" not in text, text
    assert f"`{NEW}` cannot be measured in-process (`{NEW}`: no build record or no artifact the toolkit runs)" in text
    assert f"drop `{NEW}` from --variants" in text
    third = "cnn_ts_cpu2_nodb_mbs8"  # another variant owes its baseline: refused in owed_only's path, in the same words
    (tmp_path / "repo" / third).mkdir()
    (tmp_path / "repo" / third / "config.pbtxt").write_text(f'name: "{third}"\n')
    run.variants.append(VariantResult(third, {"model": "cnn"}, status="ok", levels=list(run.variants[0].levels)))
    save(run, run_dir)
    res = CliRunner().invoke(cli, ["baseline", str(run_dir), "--variants", NEW])
    assert res.exit_code == 1, res.output
    text = " ".join(f"{res.exception.message} -> {res.exception.hint}".split())
    assert "has the in-process baseline" not in text and f"`{NEW}` cannot be measured in-process" in text, text
    assert f"drop `{NEW}` from --variants; the variants that lack the baseline: `{third}`" in text
    with pytest.raises(PerfError, match="cannot be measured in-process"):
        owed_only(load(run_dir), [NEW])


def _split_run(tmp_path: Path) -> RunResult:
    _dir, run = _run(tmp_path)
    for v in run.variants:
        v.levels = [LevelResult(4, batch_size=b, throughput_infer_per_s=100.0, latency_p99_ms=2.0) for b in (1, 4)]
    return run


def test_report_mds_split_run_finds_each_series_variants_baseline(tmp_path):
    """M5: report.md reads the run split per client workload, whose series (`VARIANT [b=4]`) are no target's name:
    every series was owed, and a baseline skip made good stayed a cut."""
    run = _split_run(tmp_path)
    assert run.baseline is not None
    run.baseline.targets.append(BaselineTarget(NEW, BaselineKey("cnn", "onnx", threads=1)))
    split = split_by_workload(run)
    assert f"{NEW} [b=4]" in [v.name for v in split.variants]
    assert baseline_owed(split) == [] and baseline_measured(split)
    run.baseline.targets.pop()
    assert baseline_owed(split_by_workload(run)) == [NEW]


def test_a_ctrl_c_in_the_owed_path_adds_what_it_measured(tmp_path, monkeypatch):
    """M3: a Ctrl-C filed the partial baseline of the owed variants over the run's whole one (the others owed again)."""
    run_dir, _run_ = _run(tmp_path)

    def stopped(opts: BaselineOptions, *_a: Any, **_k: Any) -> BaselineResult:
        raise BaselineInterrupted(_baseline("2026-12-05T10:50:00", NEW, "torchscript"))

    monkeypatch.setattr(api, "run_baseline", stopped)
    monkeypatch.setattr(api, "measurable", RUNS_ALL, raising=False)
    res = CliRunner().invoke(cli, ["baseline", str(run_dir)])
    assert res.exit_code == 130, res.output
    saved = load(run_dir)
    assert saved.baseline is not None and [t.variant for t in saved.baseline.targets] == [OLD, NEW]
    assert saved.baseline.created == "2026-12-05T10:37:07" and not saved.replaced_baselines
    assert baseline_owed(saved) == []


def test_a_ctrl_c_in_the_owed_path_advises_the_same_command_not_replace(tmp_path, monkeypatch):
    """s23s (left alone): after a Ctrl-C in the owed path the closing words advised `--replace` (every variant measured
    again); the variants it cut are still owed, and the same command without it measures them."""
    run_dir, run = _run(tmp_path)
    third = "cnn_trt_cpu1_nodb_mbs8"
    run.variants.append(VariantResult(third, {"model": "cnn"}, status="ok", levels=list(run.variants[0].levels)))
    (Path(run.settings["repository"]) / third).mkdir()
    (Path(run.settings["repository"]) / third / "config.pbtxt").write_text(f'name: "{third}"\n')
    save(run, run_dir)

    def stopped(opts: BaselineOptions, *_a: Any, **_k: Any) -> BaselineResult:
        part = _baseline("2026-12-05T10:50:00", NEW, "torchscript")
        part.targets.append(BaselineTarget(third, BaselineKey("cnn", "trt", threads=1)))
        part.notes.append(f"`{third}`: not measured: interrupted (Ctrl-C)")
        raise BaselineInterrupted(part)

    monkeypatch.setattr(api, "run_baseline", stopped)
    monkeypatch.setattr(api, "measurable", RUNS_ALL, raising=False)
    res = CliRunner().invoke(cli, ["baseline", str(run_dir)])
    assert res.exit_code == 130, res.output
    assert baseline_owed(load(run_dir)) == [third]
    said = " ".join(res.output.split())
    assert "--replace" not in said, said
    assert f"`triton-perf baseline {run_dir}` measures the baseline the run lacks (`{third}`), keeping the rest" in said


def test_baseline_run_variants_measures_only_the_owed_variants_it_names(tmp_path, monkeypatch):
    """m1: `--variants X` measured every owed variant."""
    run_dir, run = _run(tmp_path)
    third = "cnn_ts_cpu2_nodb_mbs8"
    (tmp_path / "repo" / third).mkdir()
    (tmp_path / "repo" / third / "config.pbtxt").write_text(f'name: "{third}"\n')
    run.variants.append(VariantResult(third, {"model": "cnn"}, status="ok", levels=list(run.variants[0].levels)))
    save(run, run_dir)
    asked: list[Any] = []

    def measured(opts: BaselineOptions, *_a: Any, **_k: Any) -> BaselineResult:
        asked.append(list(opts.variants))
        return _baseline("2026-12-05T10:50:00", NEW, "torchscript")

    monkeypatch.setattr(api, "run_baseline", measured)
    monkeypatch.setattr(api, "measurable", RUNS_ALL, raising=False)
    res = CliRunner().invoke(cli, ["baseline", str(run_dir), "--variants", NEW])
    assert res.exit_code == 0, res.output
    assert asked == [[NEW]]
    assert baseline_owed(load(run_dir)) == [third]


def test_a_measured_owed_variant_takes_its_new_target(tmp_path):
    """m2: add_owed kept a variant's earlier target whose key was never timed, and the variant stayed owed."""
    _dir, run = _run(tmp_path)
    assert run.baseline is not None
    run.baseline.targets.append(BaselineTarget(NEW, BaselineKey("cnn", "torchscript", threads=4)))  # never timed
    assert baseline_owed(run) == [NEW]
    add_owed(run, _baseline("2026-12-05T10:50:00", NEW, "torchscript"))  # timed at threads=1
    assert baseline_owed(run) == [] and [t.variant for t in run.baseline.targets] == [OLD, NEW]
