"""``clients check --http-url`` checks a variant only when the server runs its config (issue 25,
left over): a model loaded by name from the server's own repository, or already loaded there,
whose served config differs from the variant's ``config.pbtxt`` fails, the fields named, and its
outputs are not checked (they would be another configuration's). The same comparison the sweep
refuses a variant on (clients.runtimes.served.variant_differences). No server: tests/support/fake_triton.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_triton import FakeTriton
from google.protobuf import json_format

import clients.check as check_mod
import clients.infer as infer_mod
from builders.config.pbtxt import read_config
from builders.config.variants import Variant
from builders.model.artifact_signature import ArtifactIO, TensorIO
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from builders.repository.records import IndexEntry
from builders.repository.writer import update_index, write_variant
from clients.check import CheckResult, check_running

SPEC = ModelSpec((TensorSpec("INPUT__0", "float32", (16,)),), (TensorSpec("OUTPUT__0", "float32", (8,)),))
IO = ArtifactIO("onnx", (TensorIO("INPUT__0", "TYPE_FP32", (-1, 16)),), (TensorIO("OUTPUT__0", "TYPE_FP32", (-1, 8)),))
VARIANT = Variant("tiny", "onnx", max_batch_size=8, dynamic_batching=True, max_queue_delay_us=500)
NAME = VARIANT.name


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "model.onnx").write_bytes(b"onnx")
    write_variant(tmp_path / "repo", VARIANT, tmp_path / "model.onnx", SPEC, "python", io=IO)
    update_index(tmp_path / "repo", [IndexEntry.of(VARIANT, "python", str(tmp_path / "build"))])
    return tmp_path / "repo"


def _served(repo: Path, **edit) -> dict:
    """The variant's config as Triton serves it (JSON), with ``edit`` applied to the message."""
    cfg = read_config(repo / NAME / "config.pbtxt")
    if "count" in edit:
        cfg.instance_group[0].count = edit["count"]
    if edit.get("no_batching"):
        cfg.ClearField("dynamic_batching")
    return json_format.MessageToDict(cfg, preserving_proto_field_name=True)


def _run(repo: Path, server: FakeTriton, monkeypatch: pytest.MonkeyPatch) -> tuple[list[CheckResult], list[str], list[str]]:
    monkeypatch.setattr(infer_mod, "make_client", lambda url, proto: server)
    monkeypatch.setattr(infer_mod, "_connect", lambda client, url, proto: None)
    checked: list[str] = []

    def outputs_checked(variant, urls):
        checked.append(variant.name)
        return [CheckResult(variant.name, p, True, [{"name": "OUTPUT__0", "passed": True}]) for p in urls]

    monkeypatch.setattr(check_mod, "_check_one", outputs_checked)
    lines: list[str] = []
    return check_running(repo, {"http": "h:8000"}, progress=lines.append), checked, lines


def test_a_copy_loaded_by_name_with_other_settings_fails_by_field_and_is_not_checked(repo, monkeypatch):
    # the case: the server's copy has count 2 and no dynamic batching
    server = FakeTriton(repository={NAME: _served(repo, count=2, no_batching=True)})
    [r], checked, lines = _run(repo, server, monkeypatch)
    assert not r.passed and not r.outputs and checked == []
    assert r.error is not None and r.error.startswith(f"failed: the server runs another config than {NAME}'s config.pbtxt")
    assert "instance_group: variant ['KIND_CPU x1'], served ['KIND_CPU x2']" in r.error
    assert "dynamic_batching: variant max_queue_delay 500 µs, served off" in r.error
    assert any(ln.startswith(f"{NAME}: failed: the server runs another config") for ln in lines)
    assert server.calls == [("load", NAME), ("unload", NAME)]  # loaded for the check, left as found


def test_a_model_already_loaded_with_other_settings_fails_and_stays_loaded(repo, monkeypatch):
    server = FakeTriton(loaded={NAME: _served(repo, count=3)})
    [r], checked, _ = _run(repo, server, monkeypatch)
    assert not r.passed and checked == [] and "served ['KIND_CPU x3']" in (r.error or "")
    assert server.calls == [] and NAME in server.loaded  # not the toolkit's to unload


def test_the_same_config_is_checked(repo, monkeypatch):
    server = FakeTriton(repository={NAME: _served(repo)})
    results, checked, _ = _run(repo, server, monkeypatch)
    assert checked == [NAME] and all(r.passed for r in results)


def test_a_served_config_that_cannot_be_read_is_no_pass(repo, monkeypatch):
    server = FakeTriton(loaded={NAME: _served(repo)})
    monkeypatch.setattr(server, "get_model_config", lambda *a, **k: (_ for _ in ()).throw(ConnectionError("gone")))
    [r], checked, _ = _run(repo, server, monkeypatch)
    assert not r.passed and checked == [] and "served config could not be read" in (r.error or "")
