"""A run whose measured files a rebuild replaced refuses a ``--resume`` (perf.records.measured_files.rebuilt_text), and
every line that would advise one says so instead (break-it F18: report.md's group line said "`--resume` continues it"
under its note that the resume is refused; the cut caveat and export-deployment's hint advised the resume too)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from clients.runtimes.identity import ArtifactFile, ArtifactIdentity
from perf.analysis.recommendation.cuts import budget_words
from perf.records import measured_files
from perf.records.measured_files import finish_words, resume_refused
from perf.records.results import RunResult
from perf.report.sections.rounds_budget import design_lines
from tests.perf.report.test_interrupted_sessions import _run


def _stamped(run: RunResult, repo: Path, content: bytes) -> RunResult:
    """``run`` swept ``repo``, each variant measured of a file whose bytes were b"measured"; the file holds ``content``."""
    from factories import served_model

    run.settings["repository"] = str(repo)
    for v in run.variants:
        (repo / v.name / "1").mkdir(parents=True, exist_ok=True)
        (repo / v.name / "1" / "model.onnx").write_bytes(content)
        files = [ArtifactFile("1/model.onnx", 8, hashlib.sha256(b"measured").hexdigest())]
        v.served = [served_model(v.name, artifact=ArtifactIdentity("found", str(repo / v.name), files))]
    return run


def _interrupted(tmp_path: Path, content: bytes) -> RunResult:
    run = _run()
    run.sessions = run.sessions[:1]
    run.rounds.rounds = run.rounds.rounds[:2]  # type: ignore[union-attr]
    run.rounds.groups = run.rounds.groups[:1]  # type: ignore[union-attr]
    run.finished = None
    return _stamped(run, tmp_path / "model_repository", content)


def test_the_group_line_of_a_rebuilt_run_advises_no_resume(tmp_path: Path) -> None:
    run = _interrupted(tmp_path, b"rebuilt!")
    assert resume_refused(run)
    g1 = next(ln for ln in design_lines(run) if ln.startswith("- Group 1 "))
    assert "`--resume` continues it" not in g1
    assert g1.endswith("; a --resume of it is refused (a rebuild replaced files it measured: the note at the top).")
    assert finish_words(run, tmp_path).startswith("measure the rebuilt variants in a new run (another --run-id)")
    same = _interrupted(tmp_path / "same", b"measured")  # the files it measured: its resume continues it
    assert not resume_refused(same)
    assert next(ln for ln in design_lines(same) if ln.startswith("- Group 1 ")).endswith("; `--resume` continues it.")
    assert finish_words(same, tmp_path).startswith("finish it first with `")


def test_the_files_are_hashed_once_while_they_stay_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = _interrupted(tmp_path, b"rebuilt!")
    calls: list[str] = []
    real = measured_files._rebuilt_text
    monkeypatch.setattr(measured_files, "_rebuilt_text", lambda r, repo: calls.append(r.run_id) or real(r, repo))
    assert resume_refused(run) and resume_refused(run) and len(calls) == 1
    (tmp_path / "model_repository" / run.variants[0].name / "1" / "model.onnx").write_bytes(b"measured")
    for v in run.variants:
        (tmp_path / "model_repository" / v.name / "1" / "model.onnx").write_bytes(b"measured")
    assert not resume_refused(run) and len(calls) == 2  # the files changed back: asked again


def test_the_cut_caveat_of_a_rebuilt_run_advises_a_new_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from perf.analysis.recommendation import cuts

    run = _interrupted(tmp_path, b"rebuilt!")
    said = cuts._measures(run, 77.0, "them", run.run_id)
    assert (
        said
        == "a new run (another --run-id) measures them: a --resume of this run is refused (a rebuild replaced files it measured)"
    )
    same = _interrupted(tmp_path / "same", b"measured")
    assert cuts._measures(same, 77.0, "them", same.run_id) == budget_words(77.0, "them", same.run_id, None)
