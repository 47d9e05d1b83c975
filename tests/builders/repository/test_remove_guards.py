"""What ``builders remove NAME`` (and ``make clean``) must not delete (trial 29): the build folder whose latest build
is another repository's (T29-10: removing ``net`` from ``model_repository`` deleted the exports and reference data of
``repo_x``'s variants, built from the same build folder), variants a run still being written measures (T29-7: the
sweep went on over deleted folders and ended rc 0), and a missing ``-r`` is one clean error (T29-9: a traceback)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from builders.cli.main import cli
from builders.config.variants import Variant
from builders.model.artifact_signature import ArtifactIO, TensorIO
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from builders.repository.clean import clean
from builders.repository.records import MANIFEST_FILE, MANIFEST_KIND, BuildManifest, IndexEntry, ModelSpecRecord
from builders.repository.remove import remove_model
from builders.repository.writer import update_index, write_variant
from core.errors import RepositoryError
from core.records import write_record
from perf.records.run_lock import hold_run

SPEC = ModelSpec((TensorSpec("INPUT__0", "float32", (4,)),), (TensorSpec("OUTPUT__0", "float32", (2,)),))
IO = ArtifactIO("onnx", (TensorIO("INPUT__0", "TYPE_FP32", (-1, 4)),), (TensorIO("OUTPUT__0", "TYPE_FP32", (-1, 2)),))


def _build(root: Path, repos: list[Path], every: bool = True, since: int = 0) -> Path:
    """``net`` built from ``root/builds/net`` into each of ``repos`` in turn (two variants each); the manifest records
    the last as ``repository`` and, as a build writes it (``every``; else as one written before), every one so far
    (from ``repos[since]`` on: a list begun from a manifest written before it, not complete then)."""
    build = root / "builds" / "net"
    build.mkdir(parents=True)
    (build / "model.onnx").write_bytes(b"not a graph")
    for i, repo in enumerate(repos):
        manifest = BuildManifest(
            model="net", source="net", created="then", spec=ModelSpecRecord.from_spec(SPEC), max_batch_size=16,
            repository=str(repo.resolve()), repositories=[str(r.resolve()) for r in repos[since : i + 1]] if every else [],
            repositories_complete=every and not since,
        )  # fmt: skip
        write_record(build / MANIFEST_FILE, MANIFEST_KIND, manifest)
        for v in (Variant("net", "onnx", max_batch_size=8), Variant("net", "onnx", max_batch_size=16)):
            write_variant(repo, v, build / "model.onnx", SPEC, "python", io=IO)
            update_index(repo, [IndexEntry.of(v, "python", str(build.resolve()), f"cd {root} && builders build")])
    return build


def test_the_build_folder_another_repository_was_last_built_into_is_kept_and_said(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    repo, other = tmp_path / "model_repository", tmp_path / "repo_x"
    build = _build(tmp_path, [repo, other])
    for args in (["--dry-run"], []):
        res = CliRunner().invoke(cli, ["remove", "net", *args], terminal_width=250)
        assert res.exit_code == 0, res.output
        assert "delete 0 build folders\n" in res.output or "deleted 0 build folders\n" in res.output, res.output
        assert (
            f"kept build folder {build}: the index.json of another repository, {other.resolve()}, lists 2 variants" in res.output
        )
        assert f"`builders remove net -r {other.resolve()}` removes them from that repository too" in res.output
        assert f"(`rm -r {build}`)" in res.output
    assert (build / MANIFEST_FILE).is_file() and not [p for p in repo.iterdir() if p.is_dir()]
    assert remove_model(other, "net").builds == [build.resolve()]  # the repository it records: nothing else names it
    assert not build.exists()


def test_variants_a_run_is_still_measuring_are_not_removed_nor_cleaned(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    repo = tmp_path / "model_repository"
    build = _build(tmp_path, [repo])
    names = sorted(p.name for p in repo.iterdir() if p.is_dir())
    run = tmp_path / "results" / "t29c"
    run.mkdir(parents=True)
    record = {"run_id": "t29c", "settings": {"repository": str(repo)}, "variants": [{"name": names[0], "status": "pending"}]}
    (run / "results.json").write_text(json.dumps(record))
    hold = hold_run(run, "a sweep")  # as a sweep holds its folder while it measures
    try:
        with pytest.raises(RepositoryError) as e:
            remove_model(repo, "net", dry_run=True)
        assert "t29c" in e.value.message and "still being written" in e.value.message and "nothing removed" in e.value.message
        if Path("/proc/locks").is_file():
            assert f"pid {os.getpid()}" in e.value.message
        assert "wait for it to end, or stop it" in (e.value.hint or "")
        with pytest.raises(RepositoryError):
            remove_model(repo, "net")
        done = clean(tmp_path)
        assert done.busy and "t29c" in (done.note or "") and not done.deleted
        assert sorted(p.name for p in repo.iterdir() if p.is_dir()) == names and (build / MANIFEST_FILE).is_file()
    finally:
        hold.release()
    assert remove_model(repo, "net").folders == [repo / n for n in names]  # the run ended: removed


def test_make_clean_keeps_builds_while_a_run_of_the_repository_is_written_whatever_its_index(tmp_path, monkeypatch) -> None:
    """make clean deletes every build in builds/; with index.json gone or unreadable it matched no live run by the
    variants it lists and deleted builds/ under a sweep still measuring (the in-process baseline reads the build)."""
    monkeypatch.chdir(tmp_path)
    repo = tmp_path / "model_repository"
    build = _build(tmp_path, [repo])
    run = tmp_path / "results" / "t30"
    run.mkdir(parents=True)
    record = {"run_id": "t30", "settings": {"repository": str(repo)}, "variants": [{"name": "net_x", "status": "pending"}]}
    (run / "results.json").write_text(json.dumps(record))
    for index in ("missing", "unreadable"):
        (repo / "index.json").unlink(missing_ok=True)
        if index == "unreadable":
            (repo / "index.json").write_text("{not json")
        hold = hold_run(run, "a sweep")
        try:
            done = clean(tmp_path)
            assert done.busy and "t30" in (done.note or "") and not done.deleted, (index, done)
            assert (build / MANIFEST_FILE).is_file()
        finally:
            hold.release()


def test_a_missing_repository_is_one_clean_error_as_with_dry_run(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    missing = str(tmp_path / "nonexist")
    real = CliRunner().invoke(cli, ["remove", "net", "-r", missing], terminal_width=250)
    dry = CliRunner().invoke(cli, ["remove", "net", "-r", missing, "--dry-run"], terminal_width=250)
    assert isinstance(real.exception, SystemExit) and real.exit_code == dry.exit_code != 0, real.output
    assert "Traceback" not in real.output and "does not exist" in real.output
    assert real.output == dry.output
    assert not (tmp_path / "nonexist").exists()


def test_removing_from_the_latest_repository_keeps_the_folder_an_earlier_one_still_uses(tmp_path, monkeypatch) -> None:
    """s23r, M2: the manifest named only the latest repository, so removing ``net`` from it deleted the build folder
    whose exports and reference data ``model_repository``'s variants (built earlier) still use."""
    monkeypatch.chdir(tmp_path)
    repo, other = tmp_path / "model_repository", tmp_path / "repo_x"
    build = _build(tmp_path, [repo, other])
    done = remove_model(other, "net")
    assert done.builds == [] and build.is_dir() and not [p for p in other.iterdir() if p.is_dir()]
    assert f"another repository, {repo.resolve()}, lists 2 variants built from it" in done.kept[0], done.kept
    assert remove_model(repo, "net").builds == [build.resolve()] and not build.exists()  # nothing names it now


def test_a_manifest_written_before_its_repositories_were_recorded_keeps_the_folder(tmp_path, monkeypatch) -> None:
    """s23r, M2: such a manifest knows the latest repository only; an earlier one may still use the folder."""
    monkeypatch.chdir(tmp_path)
    repo = tmp_path / "model_repository"
    build = _build(tmp_path, [repo], every=False)
    res = CliRunner().invoke(cli, ["remove", "net"], terminal_width=250)
    assert res.exit_code == 0 and "deleted 0 build folders\n" in res.output and build.is_dir(), res.output
    assert f"records only the latest repository built from it ({repo.resolve()}), not the earlier ones" in res.output
    assert f"delete it by hand (`rm -r {build}`) if none does" in res.output


def test_a_build_folder_that_could_not_be_deleted_is_said_kept_not_deleted(tmp_path, monkeypatch) -> None:
    """s23r, m4: ``rmtree(ignore_errors=True)`` hid the failure while the CLI said "deleted 1 build folder"."""
    monkeypatch.chdir(tmp_path)
    repo = tmp_path / "model_repository"
    build = _build(tmp_path, [repo])
    real = shutil.rmtree

    def refuse(path, *a, **k) -> None:
        if Path(path).resolve() == build.resolve():
            raise PermissionError(13, "Permission denied", str(build / "model.onnx"))
        real(path, *a, **k)

    monkeypatch.setattr(shutil, "rmtree", refuse)
    res = CliRunner().invoke(cli, ["remove", "net"], terminal_width=250)
    assert res.exit_code == 0 and "deleted 0 build folders\n" in res.output, res.output
    assert f"kept build folder {build}: could not be deleted (Permission denied: {build / 'model.onnx'})" in res.output
    assert f"(`rm -r {build}`)" in res.output and not [p for p in repo.iterdir() if p.is_dir()]


def test_variants_a_live_colocate_measures_are_not_removed_nor_cleaned(tmp_path, monkeypatch) -> None:
    """s23r, M4: a co-location run folder holds colocation.json, no results.json, and was in no .runs.json, so a
    running ``triton-perf colocate`` was never seen: ``builders remove`` and ``make clean`` deleted its variants."""
    monkeypatch.chdir(tmp_path)
    repo = tmp_path / "model_repository"
    build = _build(tmp_path, [repo])
    names = sorted(p.name for p in repo.iterdir() if p.is_dir())
    run = tmp_path / "results" / "colocate-1"
    run.mkdir(parents=True)
    record = {"run_id": "colocate-1", "repository": str(repo.resolve()), "models": [{"name": "net", "variants": names[:1]}]}
    (run / "colocation.json").write_text(json.dumps(record))
    hold = hold_run(run, "a co-location run")
    try:
        with pytest.raises(RepositoryError) as e:
            remove_model(repo, "net", dry_run=True)
        assert "colocate-1" in e.value.message and "still being written" in e.value.message
        done = clean(tmp_path)
        assert done.busy and "colocate-1" in (done.note or "") and not done.deleted
        assert sorted(p.name for p in repo.iterdir() if p.is_dir()) == names and (build / MANIFEST_FILE).is_file()
    finally:
        hold.release()


def test_a_repository_list_begun_from_an_old_manifest_keeps_the_folder_an_earlier_repository_uses(tmp_path, monkeypatch) -> None:
    """s24c: a manifest rebuilt from one written before ``repositories`` was recorded began its list with that one's
    repository, so the list looked complete: removing ``net`` from the repositories it names deleted the build folder
    that ``first``, built from it before them, still used. Now it is kept: ``first``, beside them, is named; a
    repository nowhere near is not known, and the words say so (and ``-r`` is not promised to delete it)."""
    monkeypatch.chdir(tmp_path)
    first, repo, other = tmp_path / "first", tmp_path / "model_repository", tmp_path / "repo_x"
    build = _build(tmp_path, [first, repo, other], since=1)  # records [repo, other]: first is not known
    assert remove_model(repo, "net").builds == [] and build.is_dir()
    done = remove_model(other, "net")  # the manifest's repository, while first still names the folder
    assert done.builds == [] and build.is_dir() and not [p for p in other.iterdir() if p.is_dir()]
    assert f"another repository, {first.resolve()}, lists 2 variants built from it" in done.kept[0], done.kept
    assert "removes them from that repository too, or delete it by hand" in done.kept[0], done.kept
    two = tmp_path / "two"  # the same, with an earlier repository not beside those recorded: not found, not known
    repo, other = two / "model_repository", two / "repo_x"
    build = _build(two, [tmp_path / "far" / "first", repo, other], since=1)
    assert remove_model(other, "net").builds == [] and build.is_dir()
    done = remove_model(repo, "net")  # no repository recorded or beside them names it now, the earlier one still does
    assert done.builds == [] and build.is_dir(), done
    assert (
        f"records the repositories built from it only since a build made from a manifest.json that did not record them "
        f"({repo.resolve()}, {other.resolve()}), not the earlier ones, so another repository may still use it" in done.kept[0]
    ), done.kept
    assert f"delete it by hand (`rm -r {build}`) if none does" in done.kept[0]


def test_a_folder_beside_that_cannot_be_listed_keeps_the_build_folder_and_raises_nothing(tmp_path, monkeypatch) -> None:
    """s24c: the repositories beside those a manifest records are looked for only when it does not record them all;
    a parent folder that cannot be listed is passed over (the build folder is kept anyway), not a traceback."""
    monkeypatch.chdir(tmp_path)
    repo = tmp_path / "model_repository"
    build = _build(tmp_path, [tmp_path / "first", repo], since=1)
    listing = Path.iterdir

    def refuse(self: Path):
        if self.resolve() == tmp_path.resolve():
            raise PermissionError(13, "Permission denied", str(self))
        return listing(self)

    monkeypatch.setattr(Path, "iterdir", refuse)
    done = remove_model(repo, "net")
    assert done.builds == [] and build.is_dir(), done
    assert "records only the latest repository built from it" in done.kept[0], done.kept
