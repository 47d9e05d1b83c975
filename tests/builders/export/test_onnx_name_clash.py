"""An input or output named like a value inside the exported graph (trial 7 F2: output
``embedding`` and the dynamo exporter's ``embedding`` value, the result of ``aten::embedding``;
trial 9 F10: outputs ``mean``/``scale`` and ``h.mean(dim=2)``): the dynamo export renames the inner
value and keeps the spec's names (builders.export.onnx_names.rename_inner_clashes). A clash left in a graph
anyway is explained (which name, written by what, the fix), not onnx.checker's bare "Graph must be
in single static assignment (SSA) form": a hand-made graph with the clash the dynamo exporter wrote
(Gather -> embedding, Div -> embedding)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from builders.export.onnx_names import name_clash


def _clashing_graph(path: Path) -> str:
    """Save the graph; return onnx.checker's message about it."""
    table = numpy_helper.from_array(np.zeros((10, 4), np.float32), "emb.weight")
    two = numpy_helper.from_array(np.array(2.0, np.float32), "two")
    nodes = [
        helper.make_node("Gather", ["emb.weight", "cat_ids"], ["embedding"], name="node_embedding"),
        helper.make_node("Div", ["embedding", "two"], ["embedding"], name="node_div"),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("cat_ids", TensorProto.INT64, ["batch"])],
        [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", 4])],
        [table, two],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), str(path))
    with pytest.raises(onnx.checker.ValidationError) as err:
        onnx.checker.check_model(str(path), full_check=True)
    return str(err.value)


def test_an_output_named_like_a_value_inside_the_graph_is_named_with_the_fix(tmp_path: Path):
    path = tmp_path / "model.onnx"
    error = _clashing_graph(path)
    assert "'embedding' has been used as output names multiple times" in error  # what the trial saw
    why = name_clash(path, error, ["cat_ids"], ["logits", "embedding"])
    assert why is not None
    assert why.startswith("output name 'embedding' is also the name the exporter gave a value inside the graph")
    assert "(written by node_embedding (Gather))" in why and "node_div" not in why
    assert "rename the output in the spec (e.g. 'embedding_out')" in why


def test_another_checker_error_is_left_as_it_is(tmp_path: Path):
    path = tmp_path / "model.onnx"
    error = _clashing_graph(path)
    assert name_clash(path, error, ["cat_ids"], ["logits", "pooled"]) is None  # not a spec name: not ours to explain
    assert name_clash(path, "Field 'type' of 'value_info' is required but missing.", ["x"], ["y"]) is None


@pytest.mark.slow  # a real export (torch.onnx.export, dynamo)
def test_the_dynamo_export_keeps_the_public_names_and_renames_the_inner_values(tmp_path: Path):
    """Outputs ``mean`` and ``scale`` of a 1-D conv forecaster (trial 9, F10: the dynamo export was
    rejected because ``h.mean(dim=2)`` is the inner value ``mean``), and an input ``relu`` named like
    the exporter's ``relu`` value: the dynamo export is kept, every public name is the spec's, the
    graph passes onnx.checker and ONNX Runtime gives eager PyTorch's outputs."""
    import onnxruntime as ort
    import torch
    from torch import nn

    from builders.export.onnx import export_onnx
    from builders.export.onnx_names import renamed_line
    from builders.model.outputs import infer_outputs
    from builders.model.spec import ModelSpec
    from builders.model.tensor import TensorSpec, output_placeholder

    class Forecaster(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv1d(4, 8, kernel_size=3, padding=1)
            self.mean_head = nn.Linear(8, 3)
            self.scale_head = nn.Linear(8, 3)

        def forward(self, series: torch.Tensor, weights: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            pooled = torch.relu(self.conv(series)).mean(dim=2) * weights
            return self.mean_head(pooled), nn.functional.softplus(self.scale_head(pooled))

    torch.manual_seed(0)
    model = Forecaster().eval()
    spec = infer_outputs(
        model,
        ModelSpec(
            (TensorSpec("series", "float32", (4, "time")), TensorSpec("relu", "float32", (8,))),
            (output_placeholder("mean"), output_placeholder("scale")),
            {"time": (16, 32, 64)},
        ),
    )
    result = export_onnx(model, spec, tmp_path, max_batch_size=4)
    assert result.strategy == "dynamo" and [a.ok for a in result.attempts] == [True], result.attempts
    renamed = {r["name"]: r for r in result.extra["renamed_values"]}
    assert set(renamed) == {"mean", "relu"}  # the inner ReduceMean and Relu values, not the public ones
    assert renamed["mean"]["to"] == "mean_inner" and renamed["mean"]["op"] == "ReduceMean"
    assert renamed["relu"]["op"] == "Relu"
    assert renamed_line(result.extra["renamed_values"]) == (  # what the build says
        "inner values 'relu' (node_relu, Relu) renamed 'relu_inner', 'mean' (node_mean, ReduceMean) renamed "
        "'mean_inner': the graph's inputs and outputs keep the spec's names"
    )
    onnx.checker.check_model(str(result.path), full_check=True)
    graph = onnx.load(str(result.path)).graph
    assert [i.name for i in graph.input] == ["series", "relu"] and [o.name for o in graph.output] == ["mean", "scale"]
    written = [o for n in graph.node for o in n.output]
    assert len(written) == len(set(written)) and "relu" not in written and written.count("mean") == 1
    feeds = {"series": np.random.default_rng(1).normal(size=(3, 4, 40)).astype(np.float32)}
    feeds["relu"] = np.random.default_rng(2).normal(size=(3, 8)).astype(np.float32)
    got = ort.InferenceSession(str(result.path)).run(["mean", "scale"], feeds)
    with torch.no_grad():
        want = model(*(torch.from_numpy(feeds[k]) for k in ("series", "relu")))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-4, atol=1e-5)


def test_no_clash_renames_nothing_and_a_weight_is_renamed_too() -> None:
    """The renaming on a hand-made IR graph: nothing to do, and an initializer with an output's name."""
    import onnx_ir as ir

    from builders.export.onnx_names import rename_inner_clashes, renamed_line

    x = ir.Value(name="x", type=ir.TensorType(ir.DataType.FLOAT), shape=ir.Shape([2]))
    w = ir.Value(name="y", const_value=ir.tensor(np.ones(2, np.float32)))  # a weight named like the output
    add = ir.node("Add", [x, w], outputs=[ir.Value(name="y")], name="node_add")
    graph = ir.Graph([x], add.outputs, nodes=[add], initializers=[w], opset_imports={"": 18})
    model = ir.Model(graph, ir_version=10)
    assert rename_inner_clashes(model) == [{"name": "y", "to": "y_inner", "node": "", "op": ""}]
    assert [v.name for v in graph.outputs] == ["y"] and list(graph.initializers) == ["y_inner"]
    assert add.inputs[1].name == "y_inner" and rename_inner_clashes(model) == []
    assert renamed_line([{"name": "y", "to": "y_inner", "node": "", "op": ""}]) == (
        "inner value 'y' (a weight) renamed 'y_inner': the graph's inputs and outputs keep the spec's names"
    )
    assert renamed_line([]) is None


@pytest.mark.slow  # a real export (torch.onnx.export, dynamo)
def test_an_embedding_output_keeps_the_dynamo_export(tmp_path: Path):
    """Trial 7 F2's model (output ``embedding``, the result of ``aten::embedding`` inside): the
    dynamo export was rejected and the TorchScript-based one kept; now the inner value is renamed."""
    import torch
    from torch import nn

    from builders.export.onnx import export_onnx
    from builders.model.outputs import infer_outputs
    from builders.model.spec import ModelSpec
    from builders.model.tensor import TensorSpec, output_placeholder

    class Bag(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.emb = nn.Embedding(50, 8)

        def forward(self, cat_ids: torch.Tensor) -> torch.Tensor:
            return nn.functional.normalize(self.emb(cat_ids).mean(dim=1), dim=1)

    torch.manual_seed(0)
    model = Bag().eval()
    spec = infer_outputs(
        model,
        ModelSpec((TensorSpec("cat_ids", "int64", ("ncat",), (0, 49)),), (output_placeholder("embedding"),), {"ncat": (1, 4, 8)}),
    )
    result = export_onnx(model, spec, tmp_path, max_batch_size=4)
    assert result.strategy == "dynamo" and [a.ok for a in result.attempts] == [True], result.attempts
    assert [r["name"] for r in result.extra["renamed_values"]] == ["embedding"]
    assert [o.name for o in onnx.load(str(result.path)).graph.output] == ["embedding"]
