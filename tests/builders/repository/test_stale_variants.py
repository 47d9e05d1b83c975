"""A rebuild drops exactly the index entries (and folders) of the export it redid that it did
not rewrite, and never an entry it did not redo (issue 25, left over).

The case: ``builders build --format onnx --max-batch-sizes 4,8`` then a redone ONNX export (another
opset, or after an export fixed) with ``--max-batch-sizes 4``: the ``mbs8`` folder still hard-linked
the earlier ``model.onnx`` and ``index.json`` still listed it under the build folder whose manifest
now records the new export, so a sweep measured the earlier file under the new record.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace

from builders.config.variants import Variant
from builders.export.artifacts import ExportResult
from builders.model.artifact_signature import ArtifactIO, TensorIO
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from builders.repository.measured_runs import measured_words
from builders.repository.records import INDEX_FILE, IndexEntry
from builders.repository.writer import drop_stale_variants, stale_variants, update_index, write_variant

SPEC = ModelSpec((TensorSpec("INPUT__0", "float32", (4,)),), (TensorSpec("OUTPUT__0", "float32", (2,)),))
ONNX_IO = ArtifactIO("onnx", (TensorIO("INPUT__0", "TYPE_FP32", (-1, 4)),), (TensorIO("OUTPUT__0", "TYPE_FP32", (-1, 2)),))
TS_IO = ArtifactIO("torchscript", (TensorIO("x", "", ()),), None, positional=True)
MBS4, MBS8 = Variant("m", "onnx", max_batch_size=4), Variant("m", "onnx", max_batch_size=8)
TS = Variant("m", "torchscript", max_batch_size=8)
OTHER = Variant("n", "onnx", max_batch_size=8)  # another build's variant


def _write(repo: Path, build: Path, v: Variant) -> None:
    artifact = build / ("model.onnx" if v.format == "onnx" else "model.pt")
    write_variant(repo, v, artifact, SPEC, "python", io=ONNX_IO if v.format == "onnx" else TS_IO)
    update_index(repo, [IndexEntry.of(v, "python", str(build.resolve()))])


def _export(build: Path, content: bytes | None) -> ExportResult:
    """The redone ONNX export: a new file moved in with os.replace, as the build's staging does
    (``None``: the earlier file taken back unchanged, as a reused export)."""
    if content is not None:
        (build / "staged.onnx").write_bytes(content)
        os.replace(build / "staged.onnx", build / "model.onnx")
    return ExportResult("onnx", build / "model.onnx", "fp32", "dynamo", [], 0.0)


def _index(repo: Path) -> list[str]:
    return [v["name"] for v in json.loads((repo / INDEX_FILE).read_text())["variants"]]


def _setup(tmp_path: Path) -> tuple[Path, Path, Path]:
    repo, build, other = tmp_path / "repo", tmp_path / "builds" / "m", tmp_path / "builds" / "n"
    for b in (build, other):
        b.mkdir(parents=True)
        (b / "model.onnx").write_bytes(b"onnx opset 17")
        (b / "model.pt").write_bytes(b"torchscript")
    for v in (MBS4, MBS8, TS):
        _write(repo, build, v)
    _write(repo, other, OTHER)
    return repo, build, other


def test_the_variants_of_a_redone_export_not_rewritten_are_dropped_and_nothing_else(tmp_path: Path):
    repo, build, _other = _setup(tmp_path)
    new = _export(build, b"onnx opset 18")
    _write(repo, build, MBS4)  # this build's grid: mbs4 only, written with the new file
    assert stale_variants(repo, build, [new], [MBS4.name]) == {
        MBS8.name: "its onnx fp32 export was redone and it was not rewritten: its model.onnx is the earlier one"
    }
    lines = drop_stale_variants(repo, build, [new], [MBS4.name])
    assert lines == [
        f"removed {repo / MBS8.name}: its onnx fp32 export was redone and it was not rewritten: its model.onnx is the earlier "
        f"one; {measured_words(repo, [])}"  # the runs that measured it, named (trial 24, T24-16)
    ]
    assert not (repo / MBS8.name).exists()
    # kept: what it rewrote, the TorchScript export it did not redo, another build's variant
    assert _index(repo) == [MBS4.name, TS.name, OTHER.name]


def test_a_reused_or_identical_export_leaves_the_earlier_variants(tmp_path: Path):
    repo, build, _other = _setup(tmp_path)
    assert drop_stale_variants(repo, build, [_export(build, None)], [MBS4.name]) == []  # reused: the same file
    assert drop_stale_variants(repo, build, [_export(build, b"onnx opset 17")], []) == []  # re-exported, same bytes
    assert _index(repo) == [MBS4.name, MBS8.name, TS.name, OTHER.name]


def test_the_earlier_builds_repository_is_cleaned_too(tmp_path: Path):
    repo, build, _other = _setup(tmp_path)
    new_repo = tmp_path / "repo2"
    new = _export(build, b"onnx opset 18")
    _write(new_repo, build, MBS4)
    earlier = SimpleNamespace(repository=str(repo))  # the earlier build's manifest: only where it wrote is read here
    lines = drop_stale_variants(new_repo, build, [new], [MBS4.name], earlier)
    # in the earlier repository both ONNX variants serve the earlier file; TorchScript was not redone
    assert sorted(lines) == sorted(
        f"removed {repo / n}: its onnx fp32 export was redone and it was not rewritten: its model.onnx is the earlier one; "
        f"{measured_words(repo, [])}"
        for n in (MBS4.name, MBS8.name)
    )
    assert _index(repo) == [TS.name, OTHER.name] and _index(new_repo) == [MBS4.name]
