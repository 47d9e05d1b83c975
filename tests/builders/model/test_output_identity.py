"""Outputs are tied to names by identity (dict keys, nested tuple positions), never by position
(issue 11, item 3): the spec records each output's key, `--output` names match keys, the
python-backend config records the artifact's output order, validate compares a config's
outputs with the build's record."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from builders.build import BuildOptions, build
from builders.config.pbtxt import read_config, write_config
from builders.config.variants import VariantGrid
from builders.model.outputs import infer_outputs, name_outputs
from builders.model.spec import ModelSpec
from builders.repository.validate import validate
from builders.serving.runners import output_mismatches, served_output_names
from core.errors import ModelSpecError

HEADS = '''
import torch
from torch import nn


class Heads(nn.Module):
    """A classifier returning {"logits": [B, 10], "feat": [B, 32]}."""

    def __init__(self):
        super().__init__()
        self.body = nn.Linear(16, 32)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        feat = self.body(x).relu()
        return {"logits": self.head(feat), "feat": feat}


class Nested(nn.Module):
    """(scores [B, 4], {"aux": [B, 2], "emb": [B, 8]}): a dict inside a tuple."""

    def __init__(self):
        super().__init__()
        self.a, self.b, self.c = nn.Linear(16, 4), nn.Linear(16, 2), nn.Linear(16, 8)

    def forward(self, x):
        return self.a(x), {"aux": self.b(x), "emb": self.c(x)}


def heads():
    torch.manual_seed(0)
    return Heads().eval()


def nested():
    torch.manual_seed(0)
    return Nested().eval()
'''


@pytest.fixture()
def heads_pkg(tmp_path, monkeypatch):
    (tmp_path / "heads_pkg.py").write_text(textwrap.dedent(HEADS))
    monkeypatch.syspath_prepend(str(tmp_path))
    import heads_pkg

    yield heads_pkg
    sys.modules.pop("heads_pkg", None)


X = ["x:float32:16"]


def test_output_names_are_matched_to_dict_keys_not_positions(heads_pkg):
    spec = infer_outputs(heads_pkg.heads(), ModelSpec.from_flags(X, ["feat", "logits"]))
    # the artifact's order (dict insertion order), each name on its own tensor
    assert [(t.name, t.key, t.shape) for t in spec.outputs] == [("logits", ("logits",), (10,)), ("feat", ("feat",), (32,))]
    assert ModelSpec.from_json(spec.to_json()).outputs == spec.outputs  # the key is recorded


def test_an_output_name_that_is_no_key_is_refused_with_the_keys(heads_pkg):
    with pytest.raises(ModelSpecError) as e:
        infer_outputs(heads_pkg.heads(), ModelSpec.from_flags(X, ["OUTPUT__0", "OUTPUT__1"]))
    assert "output names OUTPUT__0, OUTPUT__1 match none of the model's output keys feat, logits" in e.value.message
    with pytest.raises(ModelSpecError, match="have no name"):
        infer_outputs(heads_pkg.heads(), ModelSpec.from_flags(X, ["feat"]))


def test_nested_tuple_and_dict_outputs_have_keys(heads_pkg):
    spec = infer_outputs(heads_pkg.nested(), ModelSpec.from_flags(X))
    assert [(t.name, t.key, t.shape) for t in spec.outputs] == [
        ("OUTPUT__0", (0,), (4,)),
        ("1.aux", (1, "aux"), (2,)),
        ("1.emb", (1, "emb"), (8,)),
    ]
    named = infer_outputs(heads_pkg.nested(), ModelSpec.from_flags(X, ["emb", "0", "aux"]))
    assert [(t.name, t.shape) for t in named.outputs] == [("0", (4,)), ("aux", (2,)), ("emb", (8,))]


def test_tuple_outputs_keep_positional_names():
    assert name_outputs([(0,), (1,)], ["a", "b"]) == ["a", "b"]
    assert name_outputs([()], []) == ["OUTPUT__0"]
    with pytest.raises(ModelSpecError, match="names 1 output "):  # "1 outputs" before trial 30, F19
        name_outputs([(0,), (1,)], ["a"])


def test_python_model_maps_outputs_by_the_recorded_order():
    assert served_output_names('["logits", "feat"]', ["feat", "logits"]) == ["logits", "feat"]
    with pytest.raises(ValueError, match="artifact_outputs"):
        served_output_names(None, ["feat", "logits"])
    with pytest.raises(ValueError, match="declares outputs"):
        served_output_names('["logits", "feat"]', ["feat", "other"])
    declared = {"logits": (np.float32, [10]), "feat": (np.float32, [32])}
    good = {"logits": np.zeros((3, 10), np.float32), "feat": np.zeros((3, 32), np.float32)}
    assert output_mismatches(good, declared, batched=True) == []
    swapped = {"logits": good["feat"], "feat": good["logits"]}
    assert len(output_mismatches(swapped, declared, batched=True)) == 2
    assert output_mismatches({**good, "feat": good["feat"].astype(np.int64)}, declared, batched=True)


def _build_heads(tmp_path: Path, formats=("torchscript",)) -> tuple[Path, str]:
    res = build(
        BuildOptions(
            "heads_pkg:heads",
            formats=formats,
            repository=tmp_path / "repo",
            build_dir=tmp_path / "b",
            spec=ModelSpec.from_flags(X, ["feat", "logits"]),
            grid=VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,)),
        )
    )
    assert [t["name"] for t in res.manifest["spec"]["outputs"]] == ["logits", "feat"]
    assert [t["key"] for t in res.manifest["spec"]["outputs"]] == [["logits"], ["feat"]]
    return tmp_path / "repo", res.manifest["variants"][0]


def _swap_outputs(cfg_path: Path, *, names_only: bool) -> None:
    cfg = read_config(cfg_path)
    a, b = (type(cfg.output[0])(), type(cfg.output[0])())
    a.CopyFrom(cfg.output[1])
    b.CopyFrom(cfg.output[0])
    if names_only:  # the two blocks keep their dims and dtypes, the names trade places
        a.CopyFrom(cfg.output[0])
        a.name = cfg.output[1].name
        b.CopyFrom(cfg.output[1])
        b.name = cfg.output[0].name
    del cfg.output[:]
    cfg.output.extend([a, b])
    write_config(cfg, cfg_path)


@pytest.mark.slow  # real export (torch.jit.script, torch.jit.trace)
def test_validate_compares_outputs_with_the_build_record(tmp_path, heads_pkg):
    repo, name = _build_heads(tmp_path)
    cfg_path = repo / name / "config.pbtxt"
    assert json.loads(read_config(cfg_path).parameters["artifact_outputs"].string_value) == ["logits", "feat"]
    assert validate(repo).problems == []
    _swap_outputs(cfg_path, names_only=False)  # order of the blocks is not identity: still served right
    assert validate(repo).problems == []
    _swap_outputs(cfg_path, names_only=True)
    fields = {p.field for p in validate(repo).problems}
    assert fields == {"output[feat].dims", "output[logits].dims"}
    _swap_outputs(cfg_path, names_only=True)  # back
    cfg = read_config(cfg_path)
    cfg.parameters["artifact_outputs"].string_value = '["feat", "logits"]'
    write_config(cfg, cfg_path)
    assert {p.field for p in validate(repo).problems} == {"parameters[artifact_outputs]"}
    del cfg.parameters["artifact_outputs"]
    write_config(cfg, cfg_path)
    assert {p.field for p in validate(repo).problems} == {"parameters[artifact_outputs]"}


@pytest.mark.integration
def test_swapped_output_blocks_on_the_bundled_server(tmp_path, heads_pkg):
    """Reversing the two output blocks of a TorchScript variant on the real server: each head
    still comes back under its own name; with the names traded between blocks (dims left in
    place) the server answers with an error naming the output, never with swapped data, and
    without the recorded order the model refuses to load."""
    from clients.infer import infer
    from clients.server import ServerOptions, TritonServer
    from core.errors import ClientError, ServerError

    repo, name = _build_heads(tmp_path)
    cfg_path = repo / name / "config.pbtxt"
    model = heads_pkg.heads()
    x = np.random.default_rng(0).standard_normal((2, 16)).astype(np.float32)
    import torch

    with torch.no_grad():
        want = {k: v.numpy() for k, v in model(torch.from_numpy(x)).items()}
    _swap_outputs(cfg_path, names_only=False)
    with TritonServer(ServerOptions(repo, runtime="bundled", log_file=tmp_path / "server.log", start_timeout_s=120)) as srv:
        srv.load(name)
        got = infer(srv.http_url, "http", name, {"x": x})
        assert got["logits"].shape == (2, 10) and got["feat"].shape == (2, 32)
        np.testing.assert_allclose(got["logits"], want["logits"], rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(got["feat"], want["feat"], rtol=1e-4, atol=1e-5)
        srv.unload(name)

        _swap_outputs(cfg_path, names_only=False)  # back to the build's order
        _swap_outputs(cfg_path, names_only=True)
        assert {p.field for p in validate(repo).problems} == {"output[feat].dims", "output[logits].dims"}
        srv.load(name)
        with pytest.raises(ClientError, match="output 'logits'.*per-sample shape"):
            infer(srv.http_url, "http", name, {"x": x})
        srv.unload(name)

        cfg = read_config(cfg_path)
        del cfg.parameters["artifact_outputs"]
        write_config(cfg, cfg_path)
        assert "parameters[artifact_outputs]" in {p.field for p in validate(repo).problems}
        with pytest.raises(ServerError, match="artifact_outputs"):
            srv.load(name)


@pytest.mark.integration
def test_onnx_outputs_in_another_artifact_outputs_order_are_no_problem_and_serve_right(tmp_path, heads_pkg):
    """An ONNX graph names its outputs, and the python model looks them up by those names
    (builders.serving.runners.OUTPUTS_BY_NAME): a reordered ``artifact_outputs`` is no problem for
    validate, and the real server still answers each head under its own name. TorchScript
    returns by position, so the same edit stays a problem there (the test above)."""
    from clients.infer import infer
    from clients.server import ServerOptions, TritonServer

    repo, name = _build_heads(tmp_path, formats=("onnx",))
    cfg_path = repo / name / "config.pbtxt"
    cfg = read_config(cfg_path)
    assert json.loads(cfg.parameters["artifact_outputs"].string_value) == ["logits", "feat"]
    cfg.parameters["artifact_outputs"].string_value = '["feat", "logits"]'
    write_config(cfg, cfg_path)
    assert validate(repo).problems == []
    import torch

    x = np.random.default_rng(1).standard_normal((3, 16)).astype(np.float32)
    with torch.no_grad():
        want = {k: v.numpy() for k, v in heads_pkg.heads()(torch.from_numpy(x)).items()}
    with TritonServer(ServerOptions(repo, runtime="bundled", log_file=tmp_path / "server.log", start_timeout_s=120)) as srv:
        srv.load(name)
        got = infer(srv.http_url, "http", name, {"x": x})
    np.testing.assert_allclose(got["logits"], want["logits"], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got["feat"], want["feat"], rtol=1e-4, atol=1e-5)
