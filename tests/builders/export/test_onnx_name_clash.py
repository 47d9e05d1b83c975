"""An output named like a value inside the exported graph (trial 7 F2: output ``embedding`` and
the dynamo exporter's ``embedding`` value, the result of ``aten::embedding``): the strategy's
rejection says which name clashes, with what, and that renaming the output is the fix — not
onnx.checker's bare "Graph must be in single static assignment (SSA) form". A hand-made graph with
the clash the dynamo exporter wrote (Gather -> embedding, Div -> embedding), no export."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from builders.export.onnx import name_clash


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


@pytest.mark.slow  # a real export (torch.onnx.export, both strategies)
def test_the_dynamo_rejection_names_the_clash_and_the_fallback_exports(tmp_path: Path):
    import torch
    from torch import nn

    from builders.export.onnx import export_onnx
    from builders.model.outputs import infer_outputs
    from builders.model.spec import ModelSpec
    from builders.model.tensor import TensorSpec

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
        ModelSpec(
            (TensorSpec("cat_ids", "int64", ("ncat",), (0, 49)),), (TensorSpec("embedding", "float32", ()),), {"ncat": (1, 4, 8)}
        ),
    )
    result = export_onnx(model, spec, tmp_path, max_batch_size=4)
    first = result.attempts[0]
    assert first.strategy == "dynamo" and not first.ok
    assert (first.error or "").startswith("NameClashError: output name 'embedding' is also the name the exporter gave")
    assert result.strategy == "torchscript"
