"""`builders inspect` on a model with nn.GRU (session 6, new-user trial): the zero initial state that
nn.GRU builds from the batch size when forward gets no h0 was reported as a batch-size shape chain
with the advice `x.flatten(1)`, a wrong fix. The chain is now recognised as the RNN's initial state
(what the consumer's output feeds), and a chain the graph does not explain gets no rewrite advice."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from builders.graph.facts import chain_meaning, facts
from builders.graph.onnx_health import onnx_health
from builders.repository.graph_records import BatchShapeChain

HIDDEN = 8
ROW = "shapes computed from the batch size"
OPSET = 17


def _init(name: str, array: np.ndarray):
    from onnx import numpy_helper

    return numpy_helper.from_array(array, name)


def _save(graph, path: Path) -> Path:
    import onnx
    from onnx import helper

    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="test")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save_model(model, str(path))
    return path


def gru_onnx(path: Path, through: str = "ConstantOfShape") -> Path:
    """x[batch,seq,4] -> Transpose -> GRU(initial_h = zeros[1, batch, 8] built from Shape(x)[0]):
    what a traced nn.GRU(batch_first=True) called without h0 exports. ``through="Expand"``: the
    zeros expanded to the batch instead (the consumer is an Expand)."""
    from onnx import TensorProto, helper

    rng = np.random.default_rng(0)
    inits = [
        _init("idx", np.array(0, dtype=np.int64)),
        _init("axes", np.array([0], dtype=np.int64)),
        _init("one", np.array([1], dtype=np.int64)),
        _init("hidden", np.array([HIDDEN], dtype=np.int64)),
        _init("W", rng.standard_normal((1, 3 * HIDDEN, 4)).astype(np.float32)),
        _init("R", rng.standard_normal((1, 3 * HIDDEN, HIDDEN)).astype(np.float32)),
        _init("zero", np.zeros((1, 1, HIDDEN), dtype=np.float32)),
    ]
    nodes = [
        helper.make_node("Shape", ["x"], ["s"], name="shape0"),
        helper.make_node("Gather", ["s", "idx"], ["n"], name="gather0", axis=0),
        helper.make_node("Unsqueeze", ["n", "axes"], ["n1"], name="unsqueeze0"),
        helper.make_node("Concat", ["one", "n1", "hidden"], ["h_shape"], name="concat0", axis=0),
        helper.make_node("Transpose", ["x"], ["xt"], name="to_seq_first", perm=[1, 0, 2]),
    ]
    if through == "Expand":
        nodes.append(helper.make_node("Expand", ["zero", "h_shape"], ["h0"], name="h0_expand"))
    else:
        nodes.append(
            helper.make_node(
                "ConstantOfShape",
                ["h_shape"],
                ["h0"],
                name="h0_zeros",
                value=helper.make_tensor("v", TensorProto.FLOAT, [1], [0.0]),
            )
        )
    nodes.append(helper.make_node("GRU", ["xt", "W", "R", "", "", "h0"], ["y", "y_h"], name="gru0", hidden_size=HIDDEN))
    graph = helper.make_graph(
        nodes,
        "gru",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 5, 4])],
        [helper.make_tensor_value_info("y_h", TensorProto.FLOAT, [1, "batch", HIDDEN])],
        inits,
    )
    return _save(graph, path)


@pytest.mark.parametrize("through", ["ConstantOfShape", "Expand"])
def test_a_grus_implicit_zero_state_is_named_and_not_advised_a_flatten(tmp_path: Path, through: str) -> None:
    h = onnx_health(gru_onnx(tmp_path / "m.onnx", through), optimize=False)
    (c,) = h.batch_shape_chains
    assert (c.consumer_op, c.feeds) == (through, "GRU initial_h")
    row = {f.name: f for f in facts(h)}[ROW]
    assert "into GRU initial_h" in row.value
    assert "flatten" not in row.meaning and "zero initial state a recurrent layer" in row.meaning and "h0" in row.meaning


def test_a_reshape_chain_keeps_the_flatten_advice_and_a_mix_says_which_is_which() -> None:
    reshape = BatchShapeChain(source="x", path=["Shape", "Gather", "Reshape"], consumer="r", consumer_op="Reshape")
    assert "`x.flatten(1)`" in chain_meaning([reshape], None)
    rnn = BatchShapeChain(source="x", path=["Shape", "Gather", "ConstantOfShape"], consumer="z", consumer_op="ConstantOfShape")
    mixed = chain_meaning([reshape, rnn.model_copy(update={"feeds": "LSTM initial_c"})], None)
    assert "1 builds the zero initial state" in mixed and "(LSTM initial_c)" in mixed and "1 into a Reshape: " in mixed


def test_a_chain_the_graph_does_not_explain_gets_no_rewrite_advice() -> None:
    tile = BatchShapeChain(source="x", path=["Shape", "Gather", "Unsqueeze", "Concat", "Tile"], consumer="t", consumer_op="Tile")
    meaning = chain_meaning([tile], None)
    assert "flatten" not in meaning and "no rewrite is suggested" in meaning and "Tile" in meaning


def test_a_record_written_before_feeds_loads() -> None:
    old = {"source": "x", "path": ["Shape", "Reshape"], "consumer": "r", "consumer_op": "Reshape"}
    assert BatchShapeChain.model_validate(old).feeds is None


@pytest.mark.slow  # real export (torch.onnx.export)
def test_a_real_nn_gru_export_is_recognised(tmp_path: Path) -> None:
    import torch

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.gru = torch.nn.GRU(4, HIDDEN, batch_first=True)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.gru(x)[1][-1]

    path = tmp_path / "gru.onnx"
    x = torch.randn(2, 5, 4)
    torch.onnx.export(
        Net().eval(), (x,), str(path), dynamo=False, input_names=["x"], dynamic_axes={"x": {0: "batch"}}, opset_version=OPSET
    )
    h = onnx_health(path, optimize=False)
    fed = [c for c in h.batch_shape_chains if c.feeds == "GRU initial_h"]
    assert fed, h.batch_shape_chains
    meaning = {f.name: f for f in facts(h)}[ROW].meaning
    assert "zero initial state a recurrent layer" in meaning
    if all(c.feeds or c.consumer_op != "Reshape" for c in h.batch_shape_chains):
        assert "flatten" not in meaning
