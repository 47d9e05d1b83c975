"""A co-location run is filed under the files it measured, as a sweep is (perf.records.measured_files):
it recorded no identity of them, so its combination bundle shipped whatever the repository held
after a rebuild, and a resumed or reloaded variant was never compared. It also skipped the sweep's
pre-start checks (perf.sweep.preflight): a variant the runtime's server cannot load started a
server and wrote a folder. No server starts here (a fake one answers the loads)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from colocation_repo import idle_perf_analyzer, variant_repo
from factories import served_model

from builders.repository.view import Repository
from clients.runtimes.identity import found_artifact
from clients.runtimes.options import ServerOptions
from clients.runtimes.served import Loaded
from core.errors import PerfError, ServerError
from perf.cli.main import cli
from perf.colocate.options import ColocateOptions
from perf.colocate.run import Colocate, ServerSource
from perf.deploy.combination import export_combination
from perf.records import colocation
from perf.records.colocation_measured import ColocationVisit


def _repo(tmp_path: Path, backend: str = "python") -> Path:
    repo = variant_repo(tmp_path, {"a1": 1, "b1": 1}, backend)
    for name in ("a1", "b1"):
        (repo / name / "1" / "model.onnx").write_bytes(f"{name} weights".encode())
    return repo


def _rebuild(repo: Path, name: str) -> None:
    """What a rebuild with other weights does to a variant's model file."""
    path = repo / name / "1" / "model.onnx"
    st = path.stat()
    path.unlink()
    path.write_bytes(b"other weights!")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))


class _Server:
    """Answers a load as TritonServer does: what it runs, with the files it found."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo

    def load(self, name: str) -> Loaded:
        return Loaded(served_model(name, artifact=found_artifact(self.repo / name)), 0.01)


def _opts(repo: Path, tmp_path: Path, **kw: object) -> ColocateOptions:
    return ColocateOptions(
        server=ServerOptions(repository=repo, runtime="bundled"),
        models={"a": ("a*",), "b": ("b*",)},
        results_dir=tmp_path / "results",
        run_id="c",
        **kw,  # type: ignore[arg-type]
    )


def _record(repo: Path) -> colocation.ColocationRecord:
    models = [colocation.ColocatedModel("a", ["a1"]), colocation.ColocatedModel("b", ["b1"])]
    return colocation.ColocationRecord("c", "2026-12-02T00:00:00", str(repo), models)


def test_each_variants_files_are_recorded_at_its_first_load_and_a_reload_of_others_stops_the_run(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    rec = _record(repo)
    src = ServerSource(_opts(repo, tmp_path), rec, _Server(repo), Path("pa"), tmp_path, Repository(repo))  # type: ignore[arg-type]
    src._load("a1")
    src._load("b1")
    assert rec.artifacts["a1"] is not None and [f.path for f in rec.artifacts["a1"].files] == ["1/model.onnx"]
    assert rec.artifacts["a1"].files[0].sha256 is not None
    src._load("a1")  # loaded again between steps: the same files
    _rebuild(repo, "a1")
    with pytest.raises(PerfError, match=r"not the ones an earlier load of this run measured \(1/model\.onnx: measured"):
        src._load("a1")
    colocation.save(rec, tmp_path / "saved")
    assert colocation.load(tmp_path / "saved").artifacts == rec.artifacts  # kept in colocation.json


def test_the_combination_bundle_ships_only_the_measured_files_unless_allowed_and_then_says_so(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    rec = _record(repo)
    rec.pick, rec.pick_reason = {"a": "a1", "b": "b1"}, "the pick"
    rec.artifacts = {v: found_artifact(repo / v) for v in ("a1", "b1")}
    run_dir = tmp_path / "run"
    colocation.save(rec, run_dir)
    bundle = export_combination(run_dir, tmp_path / "ok")
    assert [c.verdict for c in bundle.files_checks] == ["same", "same"]
    assert "The model files of a1 are the ones the run measured (same content)." in (bundle.folder / "README.md").read_text()
    _rebuild(repo, "b1")
    with pytest.raises(PerfError, match=r"not the ones run c measured \(b1: 1/model\.onnx: measured") as e:
        export_combination(run_dir, tmp_path / "b")
    assert "--allow-changed-model" in (e.value.hint or "") and not (tmp_path / "b").exists()
    r = CliRunner().invoke(cli, ["export-deployment", str(run_dir), "--out", str(tmp_path / "b"), "--allow-changed-model"])
    assert r.exit_code == 0, r.output
    assert "model files: the model files of b1 are not the ones the run measured: 1/model.onnx" in r.output
    readme = (tmp_path / "b" / "README.md").read_text()
    assert "**Model files not measured** (exported with `--allow-changed-model`): The model files of b1" in readme


def test_a_resumed_run_refuses_files_its_first_session_did_not_measure(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    rec = _record(repo)
    rec.artifacts = {v: found_artifact(repo / v) for v in ("a1", "b1")}
    colocation.save(rec, tmp_path / "results" / "c")
    pa = idle_perf_analyzer(tmp_path)
    resume = ColocateOptions(
        server=ServerOptions(repository=repo, runtime="bundled"),
        results_dir=tmp_path / "results",
        run_id="c",
        resume=True,
        perf_analyzer=pa,
    )
    assert Colocate(resume).previous is not None  # the same files: resumed
    _rebuild(repo, "a1")
    with pytest.raises(PerfError, match=r"a resumed measurement of them would not be what the run's numbers are filed"):
        Colocate(resume)


def test_a_variant_the_runtime_cannot_serve_refuses_the_run_before_its_folder(tmp_path: Path) -> None:
    """The search needs every variant of every model: the sweep's pre-start check, with every one required."""
    repo = _repo(tmp_path, backend="onnxruntime")
    pa = idle_perf_analyzer(tmp_path)
    with pytest.raises(ServerError) as e:
        Colocate(_opts(repo, tmp_path, perf_analyzer=pa))
    assert "the bundled runtime's server cannot load any of the 2 variants" in e.value.message
    assert "needs Triton's 'onnxruntime' backend" in e.value.message and "--model patterns" in (e.value.hint or "")
    assert not (tmp_path / "results").exists()


def test_a_colocation_folder_that_holds_no_measurement_is_taken_again(tmp_path: Path) -> None:
    """A server that failed at its start left colocation.json with no visit: "already exists" for
    the same --run-id; a folder stopped before its first save had no record at all."""
    repo = _repo(tmp_path)
    pa = idle_perf_analyzer(tmp_path)
    run_dir = tmp_path / "results" / "c"
    colocation.save(_record(repo), run_dir)
    (run_dir / "tritonserver.log").write_text("E1202 failed\n")
    Colocate(_opts(repo, tmp_path, perf_analyzer=pa))  # taken again: emptied, then made anew (held until run ends)
    assert [p.name for p in run_dir.iterdir()] == ["raw"]  # as a run stopped before its first save leaves it
    resume = ColocateOptions(
        server=ServerOptions(repository=repo, runtime="bundled"), results_dir=tmp_path / "results", run_id="c", resume=True
    )
    with pytest.raises(PerfError, match="was stopped before its first save") as e:
        Colocate(resume)
    assert "--run-id c" in (e.value.hint or "")
    Colocate(_opts(repo, tmp_path, perf_analyzer=pa))
    measured = _record(repo)
    measured.visits.append(ColocationVisit(0, 0, 0, {"a": "a1"}))
    colocation.save(measured, run_dir)
    with pytest.raises(PerfError, match="already exists") as refused:
        Colocate(_opts(repo, tmp_path, perf_analyzer=pa))
    assert "--resume --run-id c" in (refused.value.hint or "")
