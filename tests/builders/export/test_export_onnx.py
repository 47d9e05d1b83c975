"""ONNX export: dynamo first, TorchScript-based fallback, symbolic axes, opset, checker, external data."""

from __future__ import annotations

import onnx
import pytest
import torch
from torch import nn

from builders.export.onnx import EXTERNAL_DATA_FILE, export_onnx
from builders.model.builtin import get_builtin
from builders.model.outputs import infer_outputs
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec, output_placeholder
from builders.serving.runners import load_runner
from builders.verify.verification import verify_artifact
from core.errors import ExportError, VerificationError

pytestmark = pytest.mark.slow  # real exports (torch.onnx.export): `make test`, not `make test-unit`


class MultiIO(nn.Module):
    """float32 + int64 inputs with a dynamic ``seq`` axis; dict output of three tensors."""

    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.proj = nn.Linear(4, 8)

    def forward(self, feats: torch.Tensor, ids: torch.Tensor) -> dict[str, torch.Tensor]:
        tokens = self.emb(ids) + self.proj(feats)[:, None, :]
        pooled = tokens.mean(dim=1)
        return {"tokens": tokens, "pooled": pooled, "best": pooled.argmax(dim=-1)}


MULTI_SPEC = ModelSpec(
    (TensorSpec("feats", "float32", (4,)), TensorSpec("ids", "int64", ("seq",), (0, 19))),
    (output_placeholder("tokens"), output_placeholder("pooled"), output_placeholder("best")),
    {"seq": (1, 4, 9)},
)


def _dims(value_info) -> list[str | int]:
    return [d.dim_param or d.dim_value for d in value_info.type.tensor_type.shape.dim]


def test_dynamo_keeps_batch_and_seq_symbolic_with_spec_names(tmp_path):
    torch.manual_seed(0)
    model = MultiIO().eval()
    spec = infer_outputs(model, MULTI_SPEC)
    assert [(t.name, t.dtype, t.shape) for t in spec.outputs] == [
        ("tokens", "float32", ("seq", 8)),
        ("pooled", "float32", (8,)),
        ("best", "int64", ()),
    ]
    result = export_onnx(model, spec, tmp_path, max_batch_size=6)
    assert result.strategy == "dynamo" and result.attempts[0].ok
    m = onnx.load(str(result.path))
    onnx.checker.check_model(m)
    graph_in = {i.name: _dims(i) for i in m.graph.input}
    assert graph_in == {"feats": ["batch", 4], "ids": ["batch", "seq"]}
    graph_out = {o.name: (_dims(o), o.type.tensor_type.elem_type) for o in m.graph.output}
    assert graph_out["tokens"][0] == ["batch", "seq", 8]
    assert graph_out["best"][1] == onnx.TensorProto.INT64
    checks = verify_artifact(result, model, spec, 6, {})
    assert {(c["batch"], c["axes"]["seq"]) for c in checks} >= {(1, 1), (6, 9), (3, 4)}


def test_torchscript_file_falls_back_to_the_torchscript_exporter(tmp_path):
    # torch.export cannot take a ScriptModule, the TorchScript-based exporter can
    b = get_builtin("tiny")
    scripted = torch.jit.script(b.factory())
    spec = infer_outputs(scripted, b.spec)
    result = export_onnx(scripted, spec, tmp_path, max_batch_size=4, opset=17)
    assert {o.domain: o.version for o in onnx.load(str(result.path)).opset_import}[""] == 17  # opset selectable
    assert [a.strategy for a in result.attempts] == ["dynamo", "torchscript"]
    assert not result.attempts[0].ok and result.attempts[0].error
    assert result.strategy == "torchscript"
    assert result.extra["dynamic_dims"]["INPUT__0"][0] == "batch"
    verify_artifact(result, scripted, spec, 4, {})


class FrozenBatch(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x).reshape(int(x.shape[0]), 2, 2).sum(dim=1)


def test_an_export_that_froze_the_batch_fails_with_the_axis_named(tmp_path):
    torch.manual_seed(0)
    model = FrozenBatch().eval()
    spec = infer_outputs(model, ModelSpec((TensorSpec("x", "float32", (4,)),), ()))
    try:
        result = export_onnx(model, spec, tmp_path, max_batch_size=4)
    except ExportError as e:  # caught statically: the graph's batch dim is a number
        assert "fixed at 2" in str(e) and "batch" in str(e)
        return
    with pytest.raises(VerificationError, match=r"lost dynamic axis \['batch'\]"):
        verify_artifact(result, model, spec, 4, {})


def test_large_weights_go_to_external_data(tmp_path):
    b = get_builtin("tiny")
    model = b.factory()
    spec = infer_outputs(model, b.spec)
    result = export_onnx(model, spec, tmp_path, max_batch_size=4, external_data_threshold_bytes=0)
    data = result.extra["external_data"]
    assert [d["file"] for d in data] == [EXTERNAL_DATA_FILE]
    assert (tmp_path / EXTERNAL_DATA_FILE).stat().st_size == data[0]["size_bytes"] > 0
    graph_only = onnx.load(str(result.path), load_external_data=False)
    assert graph_only.graph.initializer
    largest = max(graph_only.graph.initializer, key=lambda t: abs(int(torch.tensor(list(t.dims)).prod())))
    assert largest.data_location == onnx.TensorProto.EXTERNAL
    onnx.checker.check_model(str(result.path))
    run = load_runner("onnx", result.path, ["INPUT__0"], ["OUTPUT__0"])
    assert run(spec.example_inputs(3))["OUTPUT__0"].shape == (3, 8)


def test_export_prints_nothing(tmp_path, capfd):
    b = get_builtin("tiny")
    model = b.factory()
    export_onnx(model, infer_outputs(model, b.spec), tmp_path, max_batch_size=4)
    out, _err = capfd.readouterr()
    assert out == ""
