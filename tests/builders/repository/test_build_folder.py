"""The build folder's rules without exporting anything (issue 25, item 5): staged exports
moved in only on success, a failed build replaces no recorded file, and an earlier build's
records kept only for the same model, spec and settings with unchanged files."""

from __future__ import annotations

import hashlib
from types import SimpleNamespace

import pytest

from builders.config.variants import Variant
from builders.export.artifacts import ExportResult
from builders.model.spec import ModelSpec, ModelSpecRecord
from builders.repository.build_folder import Staging, built_into, earlier_records, earlier_variants, identity_differences
from builders.repository.records import INDEX_KIND, BuildManifest, ExportRecord, FailedExport, IndexEntry, RepositoryIndex
from core.records import write_record

SPEC = ModelSpec.from_flags(["x:float32:4"], ["y"])


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _record(fmt: str, file: str, data: bytes, precision: str = "fp32", **extra) -> ExportRecord:
    return ExportRecord(
        format=fmt, file=file, precision=precision, strategy="s", export_s=0.0, size_bytes=len(data), sha256=_sha(data), **extra
    )


def _manifest(exports: list, **kw) -> BuildManifest:
    fields = dict(
        model="m",
        source="m",
        created="then",
        spec=ModelSpecRecord.from_spec(SPEC),
        max_batch_size=4,
        exports=exports,
        weights_sha256_16="w0",
        source_sha256_16="s0",
    )
    return BuildManifest(**{**fields, **kw})


def _new(**kw) -> dict:
    return {
        "source": "m",
        "weights_sha256_16": "w0",
        "source_sha256_16": "s0",
        "spec": SPEC.to_json(),
        "max_batch_size": 4,
        "rtol": {},
        "versions": {},
        **kw,
    }


def _staged(staging: Staging, fmt: str, name: str, data: bytes, precision: str = "fp32") -> ExportResult:
    folder = staging.folder(precision)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)
    return ExportResult(fmt, folder / name, precision, "s", [], 0.0)


def test_commit_moves_the_staged_exports_in_and_a_hard_link_keeps_the_old_file(tmp_path):
    out = tmp_path / "b"
    out.mkdir()
    (out / "model.pt").write_bytes(b"old")
    (tmp_path / "variant.pt").hardlink_to(out / "model.pt")  # a repository variant's copy
    staging = Staging(out)
    r = _staged(staging, "torchscript", "model.pt", b"new")
    half = _staged(staging, "onnx", "model.onnx", b"graph", "fp16")
    staging.commit([r, half])
    assert (out / "model.pt").read_bytes() == b"new" and r.path == out / "model.pt"
    assert (out / "fp16" / "model.onnx").read_bytes() == b"graph" and half.path == out / "fp16" / "model.onnx"
    assert (tmp_path / "variant.pt").read_bytes() == b"old"  # the variant serves what it was written with
    assert not staging.root.exists()


def test_a_failed_build_keeps_new_files_but_replaces_no_recorded_one(tmp_path):
    out = tmp_path / "b"
    out.mkdir()
    (out / "model.pt").write_bytes(b"recorded")
    (out / "reference.npz").write_bytes(b"ref")
    old = _manifest([_record("torchscript", "model.pt", b"recorded")])
    staging = Staging(out)
    (staging.root / "reference.npz").write_bytes(b"new ref")
    moved = staging.keep_new(
        [_staged(staging, "torchscript", "model.pt", b"other"), _staged(staging, "onnx", "model.onnx", b"g")], old
    )
    assert moved == [out / "model.onnx"]
    assert (out / "model.pt").read_bytes() == b"recorded" and (out / "reference.npz").read_bytes() == b"ref"
    assert not staging.root.exists()


def test_staging_starts_empty(tmp_path):
    (tmp_path / ".staging").mkdir()
    (tmp_path / ".staging" / "model.onnx").write_bytes(b"from an interrupted build")
    assert list(Staging(tmp_path).root.iterdir()) == []


def test_records_not_redone_are_kept_and_a_changed_file_is_dropped(tmp_path):
    (tmp_path / "model.pt").write_bytes(b"ts")
    (tmp_path / "model.onnx").write_bytes(b"changed")
    old = _manifest(
        [
            _record("torchscript", "model.pt", b"ts"),
            _record("onnx", "model.onnx", b"onnx"),
            FailedExport(format="trt", failed="gpu", error="no GPU"),
        ]
    )
    kept, lines = earlier_records(old, _new(), [("onnx", "fp16")], [], tmp_path)
    assert [(k["format"], k["kept"], bool(k.get("failed"))) for k in kept] == [("torchscript", True, False), ("trt", True, True)]
    assert "onnx fp32: the earlier record is dropped: model.onnx changed since it was recorded (sha256 differs)" in lines
    # redone: the new records replace them; a redone failure keeps the earlier (unchanged) export
    kept, _ = earlier_records(old, _new(), [("torchscript", "fp32"), ("trt", "fp32")], [("torchscript", "fp32")], tmp_path)
    assert [(k["format"], k["kept"]) for k in kept] == [("torchscript", True)]
    kept, _ = earlier_records(old, _new(), [("torchscript", "fp32"), ("trt", "fp32"), ("onnx", "fp32")], [], tmp_path)
    assert kept == []


def test_external_data_is_part_of_an_exports_identity(tmp_path):
    (tmp_path / "model.onnx").write_bytes(b"g")
    (tmp_path / "model.onnx.data").write_bytes(b"weights")
    rec = _record("onnx", "model.onnx", b"g", extra={"external_data": [{"file": "model.onnx.data", "sha256": _sha(b"weights")}]})
    assert earlier_records(_manifest([rec]), _new(), [], [], tmp_path)[0]
    (tmp_path / "model.onnx.data").write_bytes(b"other weights")
    kept, lines = earlier_records(_manifest([rec]), _new(), [], [], tmp_path)
    assert kept == [] and "model.onnx.data changed" in lines[0]


def test_another_model_spec_or_setting_drops_every_earlier_record(tmp_path):
    (tmp_path / "model.pt").write_bytes(b"ts")
    old = _manifest([_record("torchscript", "model.pt", b"ts")], rtol={"y": 1e-3}, versions={"torch": "2.0"})
    assert identity_differences(old, _new(rtol={"y": 1e-3}, versions={"torch": "2.0"})) == []
    other_spec = ModelSpec.from_flags(["x:float32:8"], ["y"]).to_json()
    new = _new(spec=other_spec, max_batch_size=8, weights_sha256_16="w1", source="elsewhere")
    assert identity_differences(old, new) == ["source", "weights_sha256_16", "spec", "max_batch_size", "rtol", "versions"]
    kept, lines = earlier_records(old, new, [("onnx", "fp32")], [], tmp_path)
    assert kept == [] and lines[0].startswith("earlier records dropped (torchscript fp32): the earlier build differs in source")


def test_the_earlier_variants_of_kept_exports_stay_listed(tmp_path):
    repo = tmp_path / "repo"
    ts, onnx = Variant("m", "torchscript", max_batch_size=4), Variant("m", "onnx", max_batch_size=4)
    for v in (ts, onnx):
        (repo / v.name).mkdir(parents=True)
    write_record(
        repo / "index.json", INDEX_KIND, RepositoryIndex(variants=[IndexEntry.of(v, "python", None) for v in (ts, onnx)])
    )
    old = _manifest([], variants=[ts.name, onnx.name, "m_gone"], repository=str(repo.resolve()))
    kept = [{"format": "torchscript", "precision": "fp32"}]
    assert earlier_variants(old, kept, [], repo) == [ts.name]
    assert earlier_variants(old, kept, [ts.name], repo) == []  # rewritten by this build: listed as written
    assert earlier_variants(old, kept, [], tmp_path / "other_repo") == []


def test_a_dynamic_axis_step_alone_is_the_same_model_and_the_same_export():
    # s21k: adding or changing only a step (--dynamic-axis T=8,16,32/8) made the earlier build "another model (it
    # differs in spec)" and every export's reuse key another; a step restricts the sizes sent, not the export
    from builders.repository.manifest import export_key

    plain, step8, step16 = (ModelSpec.from_flags(["x:float32:2,T"], ["y"], axes=[f"T=16,16,32{s}"]) for s in ("", "/8", "/16"))
    old = _manifest([], spec=ModelSpecRecord.from_spec(step8))
    assert identity_differences(old, _new(spec=plain.to_json())) == []
    assert identity_differences(old, _new(spec=step16.to_json())) == []
    assert step16.to_json()["multiple_of"] == {"T": 16}  # the manifest still records it
    keys = {
        export_key("onnx", "fp32", s, "h", {}, 4, rtol={}, opset=17, external_data_threshold_bytes=0, workspace_bytes=0)
        for s in (plain, step8, step16)
    }
    assert len(keys) == 1
    other = ModelSpec.from_flags(["x:float32:2,T"], ["y"], axes=["T=8,16,32/8"])  # a range is another spec
    assert identity_differences(old, _new(spec=other.to_json())) == ["spec"]


def test_the_manifest_records_every_repository_built_into(tmp_path):
    """s23r, M2: only the latest repository was recorded, so `builders remove` from it deleted the build folder an
    earlier repository's variants still use; a rebuild now keeps the earlier ones (an old manifest gives its one).
    s24c: the list is complete only from the folder's first build: one begun from an old manifest, or where the
    earlier manifest could not be read, is not, and says so (it looked complete)."""
    a, b = tmp_path / "a", tmp_path / "b"
    mpath = tmp_path / "manifest.json"
    assert built_into(None, a, mpath) == {"repositories": [str(a.resolve())], "repositories_complete": True}
    old = SimpleNamespace(repository=str(a.resolve()), repositories=[], repositories_complete=False)
    assert built_into(old, b, mpath) == {"repositories": [str(a.resolve()), str(b.resolve())], "repositories_complete": False}
    again = SimpleNamespace(
        repository=str(b.resolve()), repositories=[str(a.resolve()), str(b.resolve())], repositories_complete=True
    )
    assert built_into(again, a, mpath) == {"repositories": [str(a.resolve()), str(b.resolve())], "repositories_complete": True}
    mpath.write_text("{not json")  # read_manifest gave None: an earlier build whose repositories are not known
    assert built_into(None, a, mpath) == {"repositories": [str(a.resolve())], "repositories_complete": False}


@pytest.mark.slow  # the session's real tiny build
def test_a_first_build_records_its_repository_list_as_complete(tiny_build) -> None:
    """What ``builders build`` writes (build.py's manifest step): a first build's list is complete (s24c)."""
    manifest = tiny_build.manifest
    assert manifest["repositories"] == [manifest["repository"]] and manifest["repositories_complete"] is True
