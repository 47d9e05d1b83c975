"""A bundle is the model the run measured (issue 26, "measure exactly what is named"): the variant's
files are compared with the identity the sweep stamped after its load; a rebuild with other
weights is refused, naming the file measured vs now, unless ``--allow-changed-model`` (then the
README says the files were not measured); a run that recorded no content hash is "not verified
here", never a match. The same check guards the commands that file more numbers under a run."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from factories import level_result, run_result, served_model, variant_result

from builders.build import BuildResult
from builders.repository.view import Repository
from clients.runtimes.identity import ArtifactFile, ArtifactIdentity, found_artifact
from core.errors import PerfError
from perf.cli.main import cli
from perf.deploy.bundle import export_deployment
from perf.profile.baseline import baseline_for_run
from perf.records import results
from perf.records.measured_files import LOADED, SERVED, refuse_changed

NAME = "tiny_onnx_cpu1_nodb_mbs8"

pytestmark = pytest.mark.slow  # the session's real tiny build


@pytest.fixture
def repo(tiny_build: BuildResult, tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(Path(tiny_build.manifest["repository"]), repo)
    return repo


def _run(repo: Path, tmp_path: Path, artifact: ArtifactIdentity | None) -> Path:
    """A finished run of NAME whose stamp after its load recorded ``artifact``."""
    params = Repository(repo).index.entries()[NAME].params
    v = variant_result(NAME, [level_result(1, 100.0, 2.0, spread=True)], params=params)
    v.served = [served_model(NAME, max_batch_size=8, artifact=artifact)]
    run = run_result([v], run_id="m", environment={"host": "h"}, settings={"repository": str(repo)}, finished="x")
    folder = tmp_path / "results" / "m"
    folder.mkdir(parents=True, exist_ok=True)
    results.save(run, folder)
    return folder


def _other_weights(repo: Path) -> None:
    """What a rebuild with other weights does to the variant's model file (same graph, other bytes)."""
    path = repo / NAME / "1" / "model.onnx"
    data = bytearray(path.read_bytes())
    data[-20] ^= 0xFF  # inside the last initializer's raw data
    st = path.stat()
    path.unlink()  # a new file, as the builders write one
    path.write_bytes(bytes(data))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))


def test_the_measured_files_are_bundled_and_said_to_be_the_measured_ones(repo: Path, tmp_path: Path):
    bundle = export_deployment(_run(repo, tmp_path, found_artifact(repo / NAME)), NAME, tmp_path / "b")
    assert bundle.files_check is not None and bundle.files_check.verdict == "same"
    readme = " ".join((bundle.folder / "README.md").read_text().split())
    assert f"The model files of {NAME} are the ones the run measured (same content); not compared: 1/model.py" in readme


def test_a_rebuild_with_other_weights_is_refused_naming_the_file_unless_allowed_and_then_said(repo: Path, tmp_path: Path):
    run_dir = _run(repo, tmp_path, found_artifact(repo / NAME))
    _other_weights(repo)
    with pytest.raises(PerfError, match=r"1/model\.onnx: measured [\d,]+ bytes \(sha256 [0-9a-f]{12}\), now [\d,]+ bytes") as e:
        export_deployment(run_dir, NAME, tmp_path / "b")
    assert "--allow-changed-model" in (e.value.hint or "") and not (tmp_path / "b").exists()
    res = CliRunner().invoke(cli, ["export-deployment", str(run_dir), "--variant", NAME, "--out", str(tmp_path / "b")])
    assert res.exit_code == 1 and "are not the ones run m measured" in str(res.exception)  # main() prints it, no traceback
    res = CliRunner().invoke(
        cli, ["export-deployment", str(run_dir), "--variant", NAME, "--out", str(tmp_path / "b"), "--allow-changed-model"]
    )
    assert res.exit_code == 0, res.output
    assert f"model files: the model files of {NAME} are not the ones the run measured: 1/model.onnx" in res.output
    readme = (tmp_path / "b" / "README.md").read_text()
    assert "**Model files not measured** (exported with `--allow-changed-model`)" in readme
    with pytest.raises(PerfError, match="not the ones run m measured"):  # nor filed under the run by the baseline
        baseline_for_run(run_dir)


def test_a_run_without_a_content_hash_is_not_verified_here_or_refused_when_the_file_was_rewritten(repo: Path, tmp_path: Path):
    files = [ArtifactFile(f.path, f.size_bytes, mtime_ns=f.mtime_ns) for f in found_artifact(repo / NAME).files]
    old = ArtifactIdentity("found", str(repo / NAME), files)  # as runs saved before the hash recorded them
    bundle = export_deployment(_run(repo, tmp_path / "a", old), NAME, tmp_path / "b")
    assert bundle.files_check is not None and bundle.files_check.verdict == "not verified"
    readme = (bundle.folder / "README.md").read_text()
    assert "are not verified here: the run recorded 1/model.onnx by size and modification time only" in readme
    assert "not compared: 1/model.py, the toolkit's python-backend model, which the bundle does not ship" in readme
    _other_weights(repo)
    with pytest.raises(PerfError, match=r"1/model\.onnx: rewritten since it was measured"):
        export_deployment(_run(repo, tmp_path / "c", old), NAME, tmp_path / "d")
    nothing = export_deployment(_run(repo, tmp_path / "e", None), NAME, tmp_path / "f")  # a run saved before stamps
    assert nothing.files_check is not None and nothing.files_check.verdict == "not verified"


def test_the_levels_caveats_are_in_the_output_and_the_readme(repo: Path, tmp_path: Path):
    # trial 6: a named variant's level from 1 of its 3 rounds, 4x over the run's budget, said nowhere
    run_dir = _run(repo, tmp_path, found_artifact(repo / NAME))
    run = results.load(run_dir)
    run.settings["latency_budget_ms"] = 1.0
    fail = "cb::Error: No valid requests recorded within time interval."
    run.variants[0].levels += [level_result(1, None, None, trial=t, error=fail, settle=True) for t in (1, 2)]
    results.save(run, run_dir)
    res = CliRunner().invoke(cli, ["export-deployment", str(run_dir), "--variant", NAME, "--out", str(tmp_path / "b")])
    assert res.exit_code == 0, res.output
    rests = "its numbers rest on 1 of the 3 trials that measured this level: trials 2, 3 failed"
    over = "this level is over the run's p99 budget of 1.00 ms: p99 2.00 ms, 2.0× the budget"
    assert f"note: {rests}" in res.output and f"note: {over}" in res.output
    readme = " ".join((tmp_path / "b" / "README.md").read_text().split())
    assert rests in readme and over in readme


def test_each_command_checks_the_files_it_uses_an_edit_of_the_wrapper_refuses_only_a_resume(repo: Path, tmp_path: Path):
    """Editing only the generated python-backend model.py made export-deployment refuse (and
    --allow-changed-model say "not measured"), though the bundle ships model.onnx and a native
    config.pbtxt, byte for byte what was measured. Each command checks the files it uses: the
    bundle what it ships, the baseline and traces the artifact they load, a resumed sweep every
    file the server loads, model.py included."""
    run_dir = _run(repo, tmp_path, found_artifact(repo / NAME))
    wrapper = repo / NAME / "1" / "model.py"
    wrapper.write_text(wrapper.read_text() + "\n# edited by hand\n")
    bundle = export_deployment(run_dir, NAME, tmp_path / "b")
    assert bundle.files_check is not None and bundle.files_check.verdict == "same"
    assert not (bundle.folder / "model_repository" / NAME / "1" / "model.py").exists()  # not shipped
    readme = " ".join((bundle.folder / "README.md").read_text().split())
    assert f"The model files of {NAME} are the ones the run measured (same content); not compared: 1/model.py" in readme
    assert "Model files not measured" not in readme
    run = results.load(run_dir)
    refuse_changed(run, [NAME], repo, "baseline filed under the run", LOADED)  # the baseline does not run it
    with pytest.raises(PerfError, match=r"1/model\.py: measured [\d,]+ bytes \(sha256 [0-9a-f]{12}\), now"):
        refuse_changed(run, [NAME], repo, "resumed measurement", SERVED)  # a resumed sweep serves through it


@pytest.mark.parametrize("flags", [[], ["--profile-only", "--trace", "--no-eager"]])
def test_the_baseline_of_a_run_with_rebuilt_files_is_refused_before_its_estimate_is_said(
    repo: Path, tmp_path: Path, flags: list[str]
) -> None:
    """Trial 26, T26-15 (the kind): `triton-perf baseline RUN` said "in-process baseline: an estimated 2 s (...)" (or
    the traces' estimate), then refused the files a rebuild replaced; the refusal comes first, the estimate not said."""
    first = _run(repo, tmp_path / "first", found_artifact(repo / NAME))  # the files as measured: its estimate is said
    said = CliRunner().invoke(cli, ["baseline", str(first), *flags]).output
    assert any(w in said for w in ("in-process baseline: an estimated", "traces and precision study: ")), said
    run_dir = _run(repo, tmp_path, found_artifact(repo / NAME))
    _other_weights(repo)
    res = CliRunner().invoke(cli, ["baseline", str(run_dir), *flags])
    assert res.exit_code == 1 and "are not the ones run m measured" in str(res.exception), res.output
    assert "filed under the run" in str(res.exception) and "estimated" not in res.output and "traces and" not in res.output
