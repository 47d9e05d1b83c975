"""Commands that act on a run's variants by name refuse when the variants are not in the repository
(trial 8, F21: after `make clean`, `triton-perf baseline RUN` measured nothing, printed an empty
table, exited 0 and stored an empty record over the run's "skipped for time" note). Each refuses
with one error naming the missing variants, the folder and what to do (rebuild, or -r), and the
run's results.json is left byte for byte as it was. A result that measured nothing is never stored."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from core.errors import PerfError
from perf.cli.main import cli
from perf.coldstart.measure import file_into
from perf.profile import run as profile_run
from perf.profile.baseline import BaselineOptions, baseline_settings
from perf.profile.checks import acted_on, refuse_nothing_measured
from perf.records.baseline import BaselineResult
from perf.records.coldstart import ColdStart
from perf.records.levels import LevelResult
from perf.records.measured_files import refuse_missing
from perf.records.profile import PrecisionRow, ProfileRecord, TraceRecord
from perf.records.results import RunResult, VariantResult, load, save

NAMES = ("cnn_onnx_cpu1_db500_mbs8", "cnn_ts_cpu1_db500_mbs8")


def _run(folder: Path, repo: Path, status: str = "ok") -> Path:
    levels = [LevelResult(4, throughput_infer_per_s=100.0, avg_server_batch_size=3.4, latency_p99_ms=2.0)]
    params = {"model": "cnn", "build": "builds/cnn"}
    run = RunResult(
        "t8-cnn",
        "now",
        settings={"repository": str(repo), "concurrency": [4]},
        variants=[VariantResult(n, dict(params), status=status, levels=list(levels)) for n in NAMES],  # type: ignore[arg-type]
    )
    save(run, folder)
    return folder


@pytest.fixture
def cleaned(tmp_path: Path) -> tuple[Path, Path]:
    """A run whose repository is still there but empty (what `make clean` leaves)."""
    repo = tmp_path / "model_repository"
    repo.mkdir()
    return _run(tmp_path / "results" / "t8-cnn", repo), repo


def _refused(args: list[str], run_dir: Path) -> str:
    before = (run_dir / "results.json").read_bytes()
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 1 and isinstance(res.exception, PerfError), res.output  # main() prints it, no traceback
    assert (run_dir / "results.json").read_bytes() == before  # nothing stored over what the run holds
    assert "In-process baseline" not in res.output and "stored" not in res.output  # no empty table
    return f"{res.exception.message} -> {res.exception.hint}"


@pytest.mark.parametrize(
    "extra",
    [[], ["--profile-only", "--trace"], ["--profile-only", "--precision", "fp16"]],
    ids=["baseline", "traces", "precision-study"],
)
def test_baseline_and_its_traces_refuse_a_run_whose_variants_are_gone(cleaned, extra):
    run_dir, repo = cleaned
    text = _refused(["baseline", str(run_dir), *extra], run_dir)
    assert f"none of its 2 variants ({', '.join(NAMES)}) is in {repo}" in text
    assert "builders build" in text and "model `cnn`, built into builds/cnn" in text and "-r/--repository" in text


def test_the_baseline_takes_the_repository_the_hint_names_and_says_when_it_does_not_exist(cleaned, tmp_path):
    run_dir, _ = cleaned
    text = _refused(["baseline", str(run_dir), "-r", str(tmp_path / "elsewhere")], run_dir)
    assert f"its repository {tmp_path / 'elsewhere'} does not exist" in text
    res = CliRunner().invoke(cli, ["baseline", str(tmp_path / "model_repository"), "-r", str(tmp_path)])
    assert res.exit_code == 2 and "is a repository itself" in res.output


def test_export_deployment_and_coldstart_into_refuse_the_same_way(cleaned):
    run_dir, repo = cleaned
    text = _refused(["export-deployment", str(run_dir), "--variant", NAMES[1]], run_dir)
    assert f"its variant {NAMES[1]} is not in {repo}" in text and "rebuild it with `builders build`" in text
    assert "-r/--repository" in text and not list(run_dir.glob("deployment-*"))
    text = _refused(["coldstart", "--into", str(run_dir), "-r", str(repo)], run_dir)  # before any server starts
    assert f"none of its 2 variants ({', '.join(NAMES)}) is in {repo}" in text


def test_some_variants_missing_are_named_and_the_ones_there_are_not(tmp_path):
    repo = tmp_path / "repo"
    (repo / NAMES[0]).mkdir(parents=True)
    (repo / NAMES[0] / "config.pbtxt").write_text('name: "x"\n')
    run = load(_run(tmp_path / "run", repo))
    refuse_missing(run, [NAMES[0]], repo, "a bundle")  # there: no error
    with pytest.raises(PerfError) as e:
        refuse_missing(run, NAMES, repo, "the in-process baseline")
    assert f"1 of its 2 variants ({NAMES[1]}) is not in {repo}" in e.value.message
    assert "would leave it out" in e.value.message and NAMES[0] not in e.value.message


def test_a_run_that_measured_no_variant_gets_no_empty_baseline(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    run_dir = _run(tmp_path / "run", repo, status="failed")
    text = _refused(["baseline", str(run_dir)], run_dir)
    assert "measured nothing (the run has no measured variant)" in text and "keeps what it held" in text


def test_a_baseline_without_a_measured_point_is_refused_with_the_reasons():
    empty = BaselineResult(
        "now", baseline_settings(BaselineOptions(Path("repo"))), notes=["cnn_trt: no artifact the toolkit runs"]
    )
    with pytest.raises(PerfError, match="measured nothing \\(cnn_trt: no artifact the toolkit runs\\); kept"):
        refuse_nothing_measured(empty, "kept")


def test_variants_acted_on_are_the_runs_measured_ones_that_the_patterns_match(tmp_path):
    run = load(_run(tmp_path / "run", tmp_path))
    assert acted_on(run) == list(NAMES)
    assert acted_on(run, ["*_ts_*"]) == [NAMES[1]]
    assert acted_on(run, ["other_variant"]) == ["other_variant"]  # asked of the repository as given


@pytest.mark.parametrize("extra", [[], ["--profile-only", "--trace"]], ids=["baseline", "traces"])
def test_a_typo_in_variants_is_named_as_a_typo_not_told_to_rebuild(cleaned, extra):
    """`baseline RUN --variants <typo>` said the variant "is not in" the repository and told the user to
    rebuild it with `builders build`: a name that is neither the run's nor a folder there is a typo."""
    run_dir, repo = cleaned
    typo = NAMES[1].replace("_ts_", "_tss_")
    res = CliRunner().invoke(cli, ["baseline", str(run_dir), "--variants", typo, *extra])
    assert res.exit_code == 2, res.output
    assert f"did you mean '{NAMES[1]}'?" in res.output and "names no variant of run t8-cnn" in res.output
    assert "builders build" not in res.output
    (repo / "elsewhere_model").mkdir()
    (repo / "elsewhere_model" / "config.pbtxt").write_text('name: "elsewhere_model"\n')
    assert acted_on(load(run_dir), ["elsewhere_model"], repo) == ["elsewhere_model"]  # in the repository: kept


def test_traces_alone_keep_the_runs_precision_study_and_nothing_measured_stores_nothing(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    for n in NAMES:
        (repo / n).mkdir(parents=True)
        (repo / n / "config.pbtxt").write_text(f'name: "{n}"\n')
    run_dir = _run(tmp_path / "run", repo)
    run = load(run_dir)
    study = [PrecisionRow("eager PyTorch", "cpu", "fp16", "cnn", latency_median_ms=1.0)]
    run.profile = ProfileRecord(precision=study)
    save(run, run_dir)
    trace = TraceRecord(format="onnx", profiler="onnxruntime", device="cpu", batch_size=1, threads=1)
    monkeypatch.setattr(profile_run, "profile_variants", lambda *a, **k: ProfileRecord(traces=[trace]))
    record, _ = profile_run.profile_target(run_dir, BaselineOptions(repo), None, trace=True)
    assert record.traces == [trace] and record.precision == study and load(run_dir).profile == record
    failed = TraceRecord(
        format="onnx", profiler="onnxruntime", device="cpu", batch_size=1, status="failed", reason="OSError: boom"
    )
    monkeypatch.setattr(profile_run, "profile_variants", lambda *a, **k: ProfileRecord(traces=[failed]))
    with pytest.raises(PerfError, match="no trace or precision row was measured \\(failed: OSError: boom\\)"):
        profile_run.profile_target(run_dir, BaselineOptions(repo), None, trace=True, replace=True)
    assert load(run_dir).profile == record


def test_coldstart_into_keeps_a_measured_cold_start_over_a_failed_load_and_files_nothing_when_none_measured(tmp_path):
    run = load(_run(tmp_path / "run", tmp_path))
    sweep_own = ColdStart(NAMES[0], load_s=2.06)
    run.variants[0].cold_start = sweep_own
    failed = ColdStart(NAMES[0], not_measured="not measured: the load failed (boom)")
    with pytest.raises(PerfError, match="no cold start was measured"):
        file_into(run, [failed])
    assert run.variants[0].cold_start == sweep_own
    new = ColdStart(NAMES[1], load_s=1.5)
    lines = file_into(run, [failed, new])
    assert run.variants[0].cold_start == sweep_own and run.variants[1].cold_start == new
    assert lines == [
        f"{NAMES[0]}: the run's cold start is kept (this one was not measured: not measured: the load failed (boom))"
    ]


def test_a_command_given_another_repository_than_the_runs_is_told_the_runs_one(tmp_path):
    """coldstart --into RUN -r <another repository> was told to rebuild the run's variants: the run's
    own repository holds them, and the hint names it."""
    repo = tmp_path / "model_repository"
    for n in NAMES:
        (repo / n).mkdir(parents=True)
        (repo / n / "config.pbtxt").write_text(f'name: "{n}"\n')
    other = tmp_path / "other_repository"
    other.mkdir()
    run_dir = _run(tmp_path / "results" / "t9-cnn", repo)
    text = _refused(["coldstart", "--into", str(run_dir), "-r", str(other)], run_dir)
    assert f"pass -r/--repository {repo} (the repository the run swept, which holds them)" in text
    assert "builders build" not in text


def test_a_sweep_resume_refuses_the_same_way(cleaned):
    """Trial 12, F21: one check for every --resume (a sweep's and colocate's, perf.records.measured_files.refuse_missing)."""
    run_dir, repo = cleaned
    text = _refused(["sweep", "--resume", run_dir.name, "--results-dir", str(run_dir.parent), "-r", str(repo)], run_dir)
    assert f"none of its 2 variants ({', '.join(NAMES)}) is in {repo}" in text and "rebuild them with `builders build`" in text
