"""A model removed by hand (``rm -rf model_repository/bb_* builds/bb``: the README's ``make clean`` removes every
build) is gone for every command: none lists, matches or counts the variants ``index.json`` still names, and
``builders validate`` names them with what to do (trial 26, T26-9: "9 models checked, no problems" beside an index
listing 8 variants gone, and ``clients check --variants 'typo_*'`` answered "known: audionet_int_* (8 variants)").
Two one-variant builds ``aa`` and ``bb`` in a repository of their own; ``bb``'s folders removed by hand."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from builders.config.variants import Variant
from builders.model.artifact_signature import ArtifactIO, TensorIO
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from builders.repository.records import INDEX_FILE, IndexEntry
from builders.repository.validate import summary, validate
from builders.repository.view import Repository, gone_entries, served_entries
from builders.repository.writer import update_index, write_variant
from core.errors import ModelSpecError, RepositoryError

ROOT = Path(__file__).resolve().parents[3]
SPEC = ModelSpec((TensorSpec("INPUT__0", "float32", (4,)),), (TensorSpec("OUTPUT__0", "float32", (2,)),))
IO = ArtifactIO("onnx", (TensorIO("INPUT__0", "TYPE_FP32", (-1, 4)),), (TensorIO("OUTPUT__0", "TYPE_FP32", (-1, 2)),))
AA, BB = Variant("aa", "onnx", max_batch_size=8), Variant("bb", "onnx", max_batch_size=8)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """``aa`` and ``bb`` built into ``repo`` (one variant each), then ``rm -rf repo/bb_* builds/bb``."""
    repo = tmp_path / "repo"
    for v in (AA, BB):
        build = tmp_path / "builds" / v.model
        build.mkdir(parents=True)
        (build / "model.onnx").write_bytes(b"not a graph")
        write_variant(repo, v, build / "model.onnx", SPEC, "python", io=IO)
        update_index(repo, [IndexEntry.of(v, "python", str(build.resolve()))])
    shutil.rmtree(repo / BB.name)
    shutil.rmtree(tmp_path / "builds" / "bb")
    assert [e["name"] for e in json.loads((repo / INDEX_FILE).read_text())["variants"]] == [AA.name, BB.name]
    return repo


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "250"}
    return subprocess.run([sys.executable, "-m", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=180)


def test_the_variants_a_repository_serves_are_those_whose_folder_is_there(repo: Path) -> None:
    assert list(served_entries(repo)) == [AA.name] and list(gone_entries(repo)) == [BB.name]
    assert Repository(repo).names() == [AA.name]  # clients check's default: every variant it serves
    with pytest.raises(RepositoryError) as typo:
        Repository(repo).names(["zz_*"])
    assert typo.value.hint == f"known: {AA.name}"  # was "known: aa_onnx_cpu1_nodb_mbs8, bb_onnx_cpu1_nodb_mbs8"
    with pytest.raises(RepositoryError) as gone:
        Repository(repo).names(["bb_*"])
    assert f"index.json still lists {BB.name}, whose folder is gone" in str(gone.value.hint)
    assert f"`builders prune -r {repo}`" in str(gone.value.hint)


def test_validate_names_the_variants_gone_and_what_to_do(repo: Path) -> None:
    found = validate(repo, check_artifacts=False)
    (problem,) = [p for p in found.problems if p.file == str(repo / INDEX_FILE)]
    assert problem.problem.startswith(f"lists 1 variant whose folder is gone: {BB.name}"), problem
    assert "rebuild it with `builders build`" in problem.fix and f"`builders prune -r {repo}`" in problem.fix
    assert f"`builders remove bb -r {repo}`" in problem.fix  # the whole model, its build folder too (s22z, Z-12)
    assert summary(found.problems, repo).endswith("in the repository itself")  # was "1 model checked, no problems"


def test_every_command_says_the_same(repo: Path) -> None:
    """builders validate, clients check and the sweep, each as typed; then builders prune drops the entry."""
    cwd = repo.parent
    said = _run(cwd, "builders.cli.main", "validate", "repo", "--no-artifacts")
    assert said.returncode == 1 and BB.name in said.stdout and "builders prune" in said.stdout, said.stdout + said.stderr
    check = _run(cwd, "clients.cli.main", "check", "-r", "repo", "--variants", "zz_*")
    assert check.returncode == 2 and f"known: {AA.name}" in check.stderr and BB.name not in check.stderr, check.stderr
    sweep = _run(cwd, "perf.cli.main", "sweep", "--repository", "repo", "--variants", "zz_*")
    assert "no variant in repo matches 'zz_*'" in sweep.stderr and BB.name not in sweep.stderr, sweep.stderr
    pruned = _run(cwd, "builders.cli.main", "prune", "-r", "repo")
    assert pruned.returncode == 0 and f"dropped from repo/index.json (1 variant whose folder is gone): {BB.name}" in pruned.stdout
    assert [e["name"] for e in json.loads((repo / INDEX_FILE).read_text())["variants"]] == [AA.name]
    again = _run(cwd, "builders.cli.main", "prune", "-r", "repo")
    assert "nothing to drop" in again.stdout, again.stdout
    clean = _run(cwd, "builders.cli.main", "validate", "repo", "--no-artifacts")
    assert BB.name not in clean.stdout and "builders prune" not in clean.stdout, clean.stdout


def test_prune_names_the_runs_that_measured_what_it_drops(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Trial 27, T27-13: `builders prune` dropped measured variants without a word of the runs that measured them,
    where `make clean` names them (and what their removal costs) for the same deletion."""
    from click.testing import CliRunner

    from builders.cli.main import cli

    run = repo.parent / "results" / "sweepA"
    run.mkdir(parents=True)
    level = {"concurrency": 1, "throughput_infer_per_s": 10.0, "error": None}
    record = {"run_id": "sweepA", "settings": {"repository": str(repo)}, "variants": [{"name": BB.name, "levels": [level]}]}
    (run / "results.json").write_text(json.dumps(record))
    monkeypatch.chdir(repo.parent)
    res = CliRunner().invoke(cli, ["prune", "-r", str(repo)], terminal_width=250)
    assert res.exit_code == 0, res.output
    said = " ".join(res.output.split())
    assert f"{BB.name}: the run sweepA in " in said and "export-deployment and --resume refuse it now" in said


def test_a_build_names_the_entries_it_drops(repo: Path) -> None:
    """s22z, Z-17: a build into the repository dropped the entries whose folder is gone without a word (prune names
    them, with the runs that measured them); the build's lines come from drop_stale_variants, before its index update."""
    from builders.repository.writer import drop_stale_variants

    build = repo.parent / "builds" / "aa"
    lines = drop_stale_variants(repo, build, [], [AA.name])
    assert lines[0] == f"dropped from {repo / INDEX_FILE} (1 variant whose folder is gone): {BB.name}", lines
    assert lines[1].startswith("  no run in ") and lines[1].endswith("measured it"), lines


def test_prune_of_a_folder_without_an_index_says_so(tmp_path: Path) -> None:
    """s22z, Z-17: `builders prune -r DIR` without DIR/index.json said "DIR/index.json lists no variant whose folder
    is gone"."""
    from click.testing import CliRunner

    from builders.cli.main import cli

    (tmp_path / "empty").mkdir()
    res = CliRunner().invoke(cli, ["prune", "-r", str(tmp_path / "empty")], terminal_width=250)
    assert res.exit_code == 0 and f"{tmp_path / 'empty'} holds no index.json" in res.output, res.output


def test_validate_names_the_variants_whose_build_folder_is_gone_and_the_recorded_command(tmp_path: Path) -> None:
    """s22z, Z-12b and Z-5: a repository whose index entries' build folder is gone (`rm -rf builds/aa`, the variant
    folders kept) was "no problems"; a variant folder gone was told "rebuild it with `builders build`" although its
    index entry holds the command that built it."""
    repo = tmp_path / "repo"
    command = f"cd {tmp_path} && /venv/bin/builders build --model aa.py:make --name aa"
    for v in (AA, BB):
        build = tmp_path / "builds" / v.model
        build.mkdir(parents=True)
        (build / "model.onnx").write_bytes(b"not a graph")
        write_variant(repo, v, build / "model.onnx", SPEC, "python", io=IO)
        update_index(repo, [IndexEntry.of(v, "python", str(build.resolve()), command if v is AA else None)])
    shutil.rmtree(tmp_path / "builds" / "aa")
    found = validate(repo, check_artifacts=False)
    (row,) = [p for p in found.warnings if p.file == str(repo / INDEX_FILE)]
    assert row.problem.startswith(f"lists 1 variant whose build folder is gone ({tmp_path / 'builds' / 'aa'}): {AA.name}")
    assert f"as {repo / INDEX_FILE} recorded it: `{command}`" in row.fix and f"`builders remove aa -r {repo}`" in row.fix
    (skipped,) = [p for p in found.skipped if AA.name in p.file and p.field == "outputs against the build's record"]
    assert skipped.problem.endswith(f"its build folder {tmp_path / 'builds' / 'aa'} is gone") and command in skipped.fix
    with pytest.raises(ModelSpecError) as no_reference:  # clients check's reference data: the same advice
        Repository(repo).variant(AA.name).reference()
    assert f"as {repo / INDEX_FILE} recorded it: `{command}`" in str(no_reference.value.hint)
    shutil.rmtree(repo / AA.name)
    (gone,) = [p for p in validate(repo, check_artifacts=False).problems if p.file == str(repo / INDEX_FILE)]
    assert f"rebuild it with the command that built it, as {repo / INDEX_FILE} recorded it: `{command}`" in gone.fix, gone
    assert f"`builders prune -r {repo}`" in gone.fix and f"`builders remove aa -r {repo}`" in gone.fix
