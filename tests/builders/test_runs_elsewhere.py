"""Runs kept outside ``results/`` (``triton-perf sweep --results-dir other_results``) protect the variants they
measured as runs in ``results/`` do (break-it s21k, item 1: a rebuild of other weights wrote over the measured
TorchScript variant and removed the ONNX one, exit 0, "no run in .../results measured them"). A sweep records its run
folder in the repository's ``.runs.json`` (:data:`builders.repository.measured_runs.RUNS_FILE`) when it makes it,
and the build's one lookup of runs (:func:`builders.repository.measured_runs.run_files`) reads that list too.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from builders.repository.measured_runs import (
    RUNS_FILE,
    measured_words,
    measuring_runs,
    record_run,
    recorded_runs,
    run_files,
)
from core.errors import ConfigError, ServerError
from tests.builders.test_rebuild_measured_refused import ONNX, TS, _build, _files, here  # noqa: F401 (fixture)
from tests.builders.test_rebuild_words import _measured


def _repo(tmp_path: Path) -> Path:
    for name in ("m_a", "m_b"):
        (tmp_path / "repo" / name / "1").mkdir(parents=True)
        (tmp_path / "repo" / name / "config.pbtxt").write_text(f'name: "{name}"\n')
        (tmp_path / "repo" / name / "1" / "model.pt").write_bytes(name.encode())
    return tmp_path / "repo"


def test_a_run_recorded_beside_the_repository_is_found_wherever_it_lives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    repo = _repo(tmp_path)
    _measured(tmp_path / "other_results", "o1", repo)
    assert measuring_runs(repo, ["m_a"]) == {}  # not recorded: only results/ is looked in
    record_run(repo, Path("other_results/o1"))  # relative: recorded absolute
    record_run(repo, tmp_path / "other_results" / "o1")  # twice: listed once
    assert recorded_runs(repo) == [tmp_path / "other_results" / "o1"]
    assert run_files(repo, Path("results")) == [tmp_path / "other_results" / "o1" / "results.json"]
    assert measuring_runs(repo, ["m_a", "m_b"]) == {"m_a": ["o1"], "m_b": ["o1"]}
    assert measured_words(repo, ["o1"]) == (  # the folder looked in (none there) and the run's
        f"the run o1 in {tmp_path / 'results'} and {tmp_path / 'other_results'} measured it"
    )
    _measured(tmp_path / "results", "r1", repo)  # one in results/ too: both, each once
    record_run(repo, tmp_path / "results" / "r1")
    assert measuring_runs(repo, ["m_a"]) == {"m_a": ["r1", "o1"]}
    assert measured_words(repo, ["r1", "o1"]) == (
        f"the runs r1, o1 in {tmp_path / 'results'} and {tmp_path / 'other_results'} measured it"
    )
    shutil.rmtree(tmp_path / "other_results")  # a run folder since removed: dropped
    assert recorded_runs(repo) == [tmp_path / "results" / "r1"] and measuring_runs(repo, ["m_a"]) == {"m_a": ["r1"]}
    record_run(repo, tmp_path / "elsewhere" / "o2")  # the list is rewritten without it
    assert str(tmp_path / "other_results") not in (repo / RUNS_FILE).read_text()


def test_an_unreadable_list_is_no_run_and_is_written_again(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / RUNS_FILE).write_text("{not json")
    assert recorded_runs(repo) == []
    (tmp_path / "o" / "r").mkdir(parents=True)
    record_run(repo, tmp_path / "o" / "r")
    assert recorded_runs(repo) == [tmp_path / "o" / "r"]
    (repo / RUNS_FILE).write_text('{"a": 1}')
    assert recorded_runs(repo) == []


@pytest.mark.slow  # real exports
def test_a_rebuild_of_other_weights_is_refused_naming_a_run_in_another_results_folder(
    here: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The s21k commands: a sweep with ``--results-dir other_results`` made its run folder (recorded then; its server
    fails here, no server is needed), the run is then saved as a sweep saves one that measured every variant, and a
    rebuild of other weights is refused, naming the run where it lives; nothing written or removed."""
    from clients.server import ServerOptions
    from perf.sweep.run import Sweep, SweepOptions
    from perf.sweep.servers import ServerPool

    _build(here, 0)
    run_dir = here / "other_results" / "o1"

    def no_server(self: ServerPool) -> None:
        assert recorded_runs(here / "repo") == [run_dir]  # recorded before any server or measurement
        raise ServerError("no server here")

    monkeypatch.setattr(ServerPool, "start_all", no_server)
    opts = SweepOptions(
        ServerOptions(here / "repo", runtime="bundled"), concurrency=(1,), results_dir=Path("other_results"), run_id="o1"
    )
    with pytest.raises(ServerError):
        Sweep(opts).run_all()
    shutil.rmtree(run_dir)
    _measured(here / "other_results", "o1", here / "repo")  # what the sweep saves once it measured them
    before = _files(here / "repo")
    with pytest.raises(ConfigError) as e:
        _build(here, 1)
    msg = str(e.value)
    assert msg.startswith(f"this build would write over or remove 2 variants of {here / 'repo'} that runs measured: "), msg
    assert ONNX in msg and TS in msg and "measured by run o1" in msg and str(here / "other_results") in msg, msg
    assert _files(here / "repo") == before
