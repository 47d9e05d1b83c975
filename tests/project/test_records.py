"""Typed, versioned records (manifest, index, results, input spec) and the Repository facade."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from factories import level_result, run_result, variant_result

from builders.build import BuildOptions, build
from builders.config.variants import Variant, VariantGrid
from builders.model.spec import ModelSpec
from builders.repository.records import INDEX_KIND, MANIFEST_KIND, MANIFEST_SCHEMA
from builders.repository.view import Repository
from builders.repository.writer import update_index
from core.errors import ModelSpecError, RecordError, RepositoryError
from core.records import load_record
from perf.records import results
from perf.records.results import RunResult

ROOT = Path(__file__).resolve().parents[2]
SPEC = ModelSpec.from_json(
    {
        "inputs": [{"name": "x", "dtype": "float32", "shape": [4]}],
        "outputs": [{"name": "logits", "dtype": "float32", "shape": [2]}, {"name": "probs", "dtype": "float32", "shape": [2]}],
    }
)


def _write_schemas_module():
    spec = importlib.util.spec_from_file_location("write_schemas", ROOT / "scripts" / "write_schemas.py")
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules["write_schemas"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_committed_json_schemas_equal_the_generated_ones():
    mod = _write_schemas_module()
    generated = mod.schemas()
    assert set(generated) == {
        "build_manifest.json",
        "repository_index.json",
        "results.json",
        "input_spec.json",
        "baseline.json",
        "colocation.json",
    }
    for name, text in generated.items():
        path = ROOT / "docs" / "schemas" / name
        assert path.is_file() and path.read_text() == text, f"{path} is stale: run python scripts/write_schemas.py"
    assert mod.main(["--check"]) == 0
    manifest = json.loads(generated["build_manifest.json"])
    assert {"schema", "spec", "exports", "rtol"} <= set(manifest["properties"])
    index = json.loads(generated["repository_index.json"])
    entry = index["$defs"]["IndexEntry"]["properties"]
    assert {"name", "serving", "build", "format", "count", "trt_accelerator"} <= set(entry)  # Variant's fields published
    settings = json.loads(generated["results.json"])["$defs"]["SweepSettings"]["properties"]
    assert {"concurrency", "measurement_interval_ms", "protocol"} <= set(settings)  # MeasureSettings' fields published


# -- results.json -------------------------------------------------------------------------


def _run() -> RunResult:
    return run_result(
        [variant_result("m_onnx_cpu1_nodb_mbs8", [level_result(2, 100.0, 3.0)], params={"model": "m", "format": "onnx"})],
        run_id="r1",
        created="2026-01-01T00:00:00",
        environment={"host": "h", "gpus": [], "server": {"runtime": "bundled"}, "extra_key": 1},
        settings={"concurrency": [2], "measurement_interval_ms": 500, "protocol": "grpc"},
    )


def test_results_round_trip_and_version_1_files_load(tmp_path: Path):
    run = _run()
    path = results.save(run, tmp_path)
    saved = json.loads(path.read_text())
    assert saved["schema"] == 3 and saved["environment"]["extra_key"] == 1  # unknown environment keys are kept
    assert results.load(tmp_path) == run
    # a version-1 file written before the records were typed (no defaults written, an unknown level key)
    old = {
        "schema": 1,
        "run_id": "old",
        "created": "then",
        "variants": [{"name": "v", "levels": [{"concurrency": 1, "throughput_infer_per_s": 5.0, "retired_field": 3}]}],
    }
    (tmp_path / "results.json").write_text(json.dumps(old))
    loaded = results.load(tmp_path)
    assert loaded.variants[0].status == "pending" and loaded.variants[0].levels[0].ok and loaded.finished is None
    assert loaded.rounds is None and loaded.schema == 3  # a version-1 run: one variant after another
    assert loaded.variants[0].served == [] and loaded.variants[0].threads_per_instance is None  # no stamps before version 3
    # a version-2 file (before the stamps and the servers' model census)
    v2 = {
        **old,
        "schema": 2,
        "servers": [{"url": "h:8000", "grpc_url": "h:8001", "metrics_url": "h:8002/metrics", "runtime": "remote"}],
    }
    (tmp_path / "results.json").write_text(json.dumps(v2))
    loaded = results.load(tmp_path)
    assert loaded.servers[0].models_found == [] and loaded.servers[0].left_differently is None


@pytest.mark.parametrize(
    "change, words",
    [
        (
            lambda d: d["variants"][0]["levels"][0].update(concurrency="two"),
            r"variants\[0\]\.levels\[0\]\.concurrency: expected a valid integer.*found 'two'",
        ),
        (lambda d: d.pop("run_id"), r"run_id: required field is missing"),
        (
            lambda d: d["variants"][0].update(status="great"),
            r"variants\[0\]\.status: expected 'pending', 'ok', 'failed' or 'skipped', found 'great'",
        ),
        (
            lambda d: d["settings"].update(measurement_interval_ms="long"),
            r"settings: expected valid perf_analyzer measurement settings \(measurement_interval_ms: expected a valid integer.*found 'long'\)\n",
        ),
        (lambda d: d.update(schema=7), r"schema version 7 is newer than this toolkit reads \(up to 3\)"),
        (lambda d: d.update(schema="1"), r"expected an integer schema version, found '1'"),
    ],
)
def test_a_bad_results_file_names_the_file_and_the_field(tmp_path: Path, change, words):
    doc = _run().to_json()
    change(doc)
    (tmp_path / "results.json").write_text(json.dumps(doc))
    with pytest.raises(RecordError, match=words) as e:
        results.load(tmp_path)
    assert str(tmp_path / "results.json") in e.value.message and e.value.hint


def test_results_file_that_is_not_json(tmp_path: Path):
    (tmp_path / "results.json").write_text('{"run_id": ')
    with pytest.raises(RecordError, match=r"is not valid JSON \(line 1, column 12"):
        results.load(tmp_path)


def test_a_record_file_that_is_not_utf8_text_or_a_folder_is_one_error(tmp_path: Path):
    """A binary file or a folder where a record is read raised UnicodeDecodeError / a bare OSError."""
    path = tmp_path / "results.json"
    path.write_bytes(b"\x89PNG\r\n")
    with pytest.raises(RecordError, match=r"results.json is not UTF-8 text \(byte 0x89 at offset 0\), so not JSON"):
        load_record(path, results.RESULTS_KIND)
    with pytest.raises(RecordError, match=r"is a folder, not a file"):
        load_record(tmp_path, results.RESULTS_KIND)


# -- manifest and index -------------------------------------------------------------------


@pytest.mark.slow  # the session's real tiny build
def test_a_version_1_manifest_is_migrated_with_its_recorded_tolerances(tiny_build, tmp_path: Path):
    doc = json.loads(tiny_build.manifest_path.read_text())
    assert doc["schema"] == MANIFEST_SCHEMA and doc["rtol"] == {}
    old = {k: v for k, v in doc.items() if k not in ("schema", "rtol")}
    old["exports"][0]["errors"]["OUTPUT__0"]["rtol"] = 1e-3  # a build with --rtol OUTPUT__0=1e-3
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(old))
    manifest = load_record(path, MANIFEST_KIND)
    assert manifest.rtol == {"OUTPUT__0": 1e-3} and manifest.spec.to_spec() == ModelSpec.from_json(doc["spec"])
    path.write_text(json.dumps({**doc, "exports": [{**doc["exports"][0], "sha256": None}]}))
    with pytest.raises(
        RecordError,
        match=r"manifest.json is not a valid build manifest.*\n  exports\[0\]\.sha256: expected a valid string, found None",
    ):
        load_record(path, MANIFEST_KIND)


def test_index_entries_are_validated_as_variants(tmp_path: Path):
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "index.json").write_text(
        json.dumps({"variants": [{"name": "m_onnx_cpu0_nodb_mbs8", "model": "m", "format": "onnx", "count": 0}]})
    )
    with pytest.raises(
        RecordError, match=r"variants\[0\]: expected valid variant parameters \(instance_group.count: must be >= 1"
    ):
        load_record(tmp_path / "repo" / "index.json", INDEX_KIND)
    update_index(tmp_path / "repo", [])  # an unreadable index is logged and rewritten by the next build
    assert json.loads((tmp_path / "repo" / "index.json").read_text()) == {"schema": 2, "variants": [], "skipped": []}


def test_spec_file_errors_name_the_field(tmp_path: Path):
    path = tmp_path / "spec.json"
    path.write_text(json.dumps({"inputs": [{"name": "x", "dtype": "float32", "shape": [4, 2.5]}]}))
    with pytest.raises(ModelSpecError, match=r"spec file .*spec.json is malformed:\n  inputs\[0\]\.shape\[1\]: expected a valid"):
        ModelSpec.from_file(path)
    path.write_text(json.dumps({"schema": 2, "inputs": []}))
    with pytest.raises(ModelSpecError, match="input spec schema version 2 is not read"):
        ModelSpec.from_file(path)
    path.write_text(json.dumps({"schema": 1, **SPEC.to_json()}))
    assert ModelSpec.from_file(path) == SPEC


# -- the Repository facade ----------------------------------------------------------------


def test_facade_tolerances_are_the_build_time_ones(fake_build):
    v16 = Variant("m", "onnx", "fp16", max_batch_size=8)
    repo = fake_build(SPEC, v16, rtol={"logits": 1e-3})
    v = Repository(repo).variant(v16.name)
    assert v.tolerances == {"logits": 1e-3, "probs": 1e-2}  # --rtol where given, else fp16's default
    assert v.params == v16 and v.serving == "python" and v.spec == SPEC
    assert [(b.name, b.served, b.index) for b in v.outputs] == [("logits", "logits", 0), ("probs", "probs", 1)]
    assert v.reference_path == v.build_dir / "reference.npz"
    with pytest.raises(ModelSpecError, match="no reference data"):
        v.reference()


def test_facade_binds_native_torchscript_outputs_by_identity(fake_build):
    names = {"inputs": {"x": "INPUT__0"}, "outputs": {"logits": "OUTPUT__1", "probs": "OUTPUT__0"}}
    ts = Variant("m", "torchscript", max_batch_size=8)
    repo = fake_build(SPEC, ts, extra={"triton_names": names}, serving="native")
    v = Repository(repo).variant(ts.name)
    assert [(b.name, b.served, b.index) for b in v.outputs] == [("logits", "OUTPUT__1", 0), ("probs", "OUTPUT__0", 1)]
    assert [t.name for t in v.served_spec.outputs] == ["OUTPUT__1", "OUTPUT__0"]
    assert v.tolerances == {"logits": 1e-4, "probs": 1e-4}


def test_facade_lists_variants_by_pattern(fake_build, tmp_path: Path):
    repo = fake_build(SPEC, Variant("m", "onnx", max_batch_size=8))
    (repo / "handmade").mkdir()
    (repo / "handmade" / "config.pbtxt").write_text("")
    r = Repository(repo)
    assert r.names() == ["m_onnx_cpu1_nodb_mbs8"] and r.names(["m_*"]) == ["m_onnx_cpu1_nodb_mbs8"]
    assert r.names(indexed=False) == ["handmade", "m_onnx_cpu1_nodb_mbs8"]
    with pytest.raises(RepositoryError, match=r"no variant in .*index.json matches 'x\*'") as e:
        r.names(["m_*", "x*"])
    assert "known: m_onnx_cpu1_nodb_mbs8" in (e.value.hint or "")
    hand = r.variant("handmade")  # a model folder the index does not list: no parameters, no spec
    assert hand.params is None and hand.spec is None and hand.tolerances == {} and hand.outputs == ()
    with pytest.raises(RepositoryError, match="has no variant 'nope'"):
        r.variant("nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(RepositoryError, match="has no index.json"):
        Repository(tmp_path / "empty").names()
    with pytest.raises(RepositoryError, match="does not exist"):
        Repository(tmp_path / "nowhere").names()


@pytest.mark.slow  # real export (torch.jit.script)
def test_a_build_records_its_rtol_and_the_facade_returns_it(tmp_path: Path):
    res = build(
        BuildOptions(
            "tiny",
            formats=("torchscript",),
            rtol={"OUTPUT__0": 1e-3},
            grid=VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,)),
            repository=tmp_path / "repo",
            build_dir=tmp_path / "builds",
        )
    )
    assert res.manifest["rtol"] == {"OUTPUT__0": 1e-3}
    v = Repository(tmp_path / "repo").variant(res.manifest["variants"][0])
    assert v.tolerances == {"OUTPUT__0": 1e-3}
    inputs, expected = v.reference()
    assert set(inputs) == {"INPUT__0"} and set(expected) == {"OUTPUT__0"}


@pytest.mark.slow  # the session's real tiny build
def test_a_manifest_field_the_record_does_not_know_fails_the_write(tiny_build, tmp_path: Path):
    from builders.repository.manifest import write_manifest

    doc = json.loads(tiny_build.manifest_path.read_text())
    doc["exports"][0]["new_fact"] = 1
    with pytest.raises(
        RuntimeError, match=r"fields \['exports\[0\]\.new_fact'\] are not in builders.repository.records.BuildManifest"
    ):
        write_manifest(tmp_path / "manifest.json", doc)
    assert not (tmp_path / "manifest.json").exists()


def test_a_value_every_member_of_a_union_refuses_is_one_line(tmp_path: Path):
    """A spec's shape dim 1.5 was said twice, once per member of ``int | str`` (the kind of break test B13)."""
    spec = {"inputs": [{"name": "x", "dtype": "float32", "shape": [1.5, "seq"]}], "dynamic_axes": {"seq": [1, 2, 3]}}
    with pytest.raises(ModelSpecError) as e:
        ModelSpec.from_json(spec, "spec file s.json")
    assert e.value.message.splitlines()[1:] == ["  inputs[0].shape[0]: expected a valid integer or a valid string, found 1.5"]
