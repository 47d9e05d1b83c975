"""``builders remove NAME`` (s22z, Z-12: the README's ``rm -rf model_repository/NAME_{ts,onnx,trt}[_-]* builds/NAME``
is bash-only: under ``sh`` it removed the build folder and no variant folder). Two models whose names share a prefix,
``net`` and ``net_v2``, each built into one repository (two variants, a build folder with its manifest); removing
``net`` removes its variant folders, its build folder and its index entries, and leaves ``net_v2`` whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from builders.cli.main import cli
from builders.config.variants import Variant
from builders.model.artifact_signature import ArtifactIO, TensorIO
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from builders.repository.records import INDEX_FILE, MANIFEST_FILE, MANIFEST_KIND, BuildManifest, IndexEntry, ModelSpecRecord
from builders.repository.remove import plan_removal, remove_model
from builders.repository.writer import update_index, write_variant
from core.errors import RepositoryError
from core.records import write_record

SPEC = ModelSpec((TensorSpec("INPUT__0", "float32", (4,)),), (TensorSpec("OUTPUT__0", "float32", (2,)),))
IO = ArtifactIO("onnx", (TensorIO("INPUT__0", "TYPE_FP32", (-1, 4)),), (TensorIO("OUTPUT__0", "TYPE_FP32", (-1, 2)),))
MODELS = ("net", "net_v2")


def _variants(model: str) -> list[Variant]:
    return [Variant(model, "onnx", max_batch_size=8), Variant(model, "onnx", max_batch_size=16)]


def _names(model: str) -> list[str]:
    return [v.name for v in _variants(model)]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """``net`` and ``net_v2`` built into ``tmp_path/model_repository``, each from ``tmp_path/builds/<model>``."""
    repo = tmp_path / "model_repository"
    for model in MODELS:
        build = tmp_path / "builds" / model
        build.mkdir(parents=True)
        (build / "model.onnx").write_bytes(b"not a graph")
        manifest = BuildManifest(
            model=model, source=model, created="then", spec=ModelSpecRecord.from_spec(SPEC), max_batch_size=16,
            repository=str(repo.resolve()), repositories=[str(repo.resolve())], repositories_complete=True,
        )  # fmt: skip
        write_record(build / MANIFEST_FILE, MANIFEST_KIND, manifest)
        for v in _variants(model):
            write_variant(repo, v, build / "model.onnx", SPEC, "python", io=IO)
            update_index(
                repo, [IndexEntry.of(v, "python", str(build.resolve()), f"cd {tmp_path} && builders build --name {model}")]
            )
    return repo


def _indexed(repo: Path) -> list[str]:
    return [e["name"] for e in json.loads((repo / INDEX_FILE).read_text())["variants"]]


def test_remove_takes_the_model_and_never_the_one_whose_name_it_begins(repo: Path) -> None:
    net, v2 = _names("net"), _names("net_v2")
    assert all(n.startswith("net_") for n in v2)  # the shell's net_* would take net_v2's too
    done = remove_model(repo, "net")
    assert done.folders == [repo / n for n in sorted(net)] and done.entries == sorted(net)
    assert done.builds == [(repo.parent / "builds" / "net").resolve()]
    assert sorted(p.name for p in repo.iterdir() if p.is_dir()) == sorted(v2)
    assert _indexed(repo) == sorted(v2)
    assert not (repo.parent / "builds" / "net").exists() and (repo.parent / "builds" / "net_v2" / MANIFEST_FILE).is_file()


def test_dry_run_deletes_nothing_and_says_what_would_go(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo.parent)
    res = CliRunner().invoke(cli, ["remove", "net", "--dry-run"], terminal_width=250)
    assert res.exit_code == 0, res.output
    assert "would delete 2 variant folders of net: " in res.output and "would delete 1 build folder: builds/net\n" in res.output
    assert "would drop 2 entries of net from model_repository/index.json" in res.output
    assert "no run in " in res.output  # the runs that measured them, in prune's words
    assert len(_indexed(repo)) == 4 and (repo.parent / "builds" / "net").is_dir()


def test_the_cli_removes_the_model_and_names_the_runs_that_measured_it(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = repo.parent / "results" / "sweepA"
    run.mkdir(parents=True)
    level = {"concurrency": 1, "throughput_infer_per_s": 10.0, "error": None}
    measured = _names("net")[0]
    record = {"run_id": "sweepA", "settings": {"repository": str(repo)}, "variants": [{"name": measured, "levels": [level]}]}
    (run / "results.json").write_text(json.dumps(record))
    monkeypatch.chdir(repo.parent)
    dry = CliRunner().invoke(cli, ["remove", "net", "--dry-run"], terminal_width=250)  # nothing deleted: "would"
    said = " ".join(dry.output.split())
    assert dry.exit_code == 0 and "export-deployment and --resume would refuse it" in said, said  # trial 30, F14
    assert "refuse it now" not in said and len(_indexed(repo)) == 4
    res = CliRunner().invoke(cli, ["remove", "net"], terminal_width=250)
    assert res.exit_code == 0, res.output
    said = " ".join(res.output.split())
    assert f"{measured}: the run sweepA in " in said and "export-deployment and --resume refuse it now" in said
    assert "no run in " in said and "measured the other 1 variant" in said
    assert _indexed(repo) == sorted(_names("net_v2"))


def test_an_unknown_name_is_refused_with_the_models_and_the_closest(repo: Path) -> None:
    with pytest.raises(RepositoryError) as e:
        plan_removal(repo, "nett")
    assert e.value.message == f"no model 'nett' in {repo / INDEX_FILE} (did you mean 'net'?)" and e.value.flag == "NAME"
    assert "net, net_v2" in (e.value.hint or "")
    with pytest.raises(RepositoryError) as variant:  # a variant's name: its model is meant
        plan_removal(repo, _names("net_v2")[0])
    assert "(did you mean 'net_v2'?)" in variant.value.message
    assert len(_indexed(repo)) == 4


def test_only_what_the_index_lists_and_the_models_own_build_folder_go(repo: Path, tmp_path: Path) -> None:
    (repo / "net_handmade").mkdir()  # a folder no build listed, its name the model's prefix
    (repo / "net_handmade" / "config.pbtxt").write_text('name: "net_handmade"')
    gone = _names("net")[0]
    import shutil

    shutil.rmtree(repo / gone)  # one removed by hand: its entry is dropped too
    other = tmp_path / "builds" / "net"
    write_record(  # the build folder now holds another model's build: kept
        other / MANIFEST_FILE,
        MANIFEST_KIND,
        BuildManifest(model="other", source="o", created="then", spec=ModelSpecRecord.from_spec(SPEC), max_batch_size=8),
    )
    done = remove_model(repo, "net")
    assert done.entries == sorted(_names("net")) and done.folders == [repo / _names("net")[1]]
    assert done.builds == [] and "is of model 'other', not 'net'" in done.kept[0]
    assert (repo / "net_handmade").is_dir() and other.is_dir()
    assert _indexed(repo) == sorted(_names("net_v2"))


def test_a_pattern_of_a_model_removed_by_hand_is_told_its_build_command_not_another_model(repo: Path) -> None:
    """s22z, Z-5: after `rm -rf model_repository/twoin_*` (twoin_v2 kept), `clients check --variants 'twoin_onnx*'`
    proposed "did you mean 'twoin_v2_onnx*'" and "rebuild with `builders build`" without the recorded command."""
    import shutil

    from builders.repository.view import Repository

    for name in _names("net"):
        shutil.rmtree(repo / name)
    with pytest.raises(RepositoryError) as e:
        Repository(repo).names(["net_onnx*"])
    assert e.value.message == f"no variant in {repo}/index.json matches 'net_onnx*'", e.value.message
    hint = e.value.hint or ""
    assert f"as {repo / INDEX_FILE} recorded it: `cd {repo.parent} && builders build --name net`" in hint, hint
    assert f"`builders prune -r {repo}`" in hint and f"`builders remove net -r {repo}`" in hint
