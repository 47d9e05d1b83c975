"""A request refused for an integer value past a table the model indexes is one error naming
the integer inputs' values sent and what to send, not a 40-line TorchScript traceback
(new-user trial: token ids >= num_embeddings)."""

from __future__ import annotations

import numpy as np

from clients.infer import _refusal

TRACE = """RuntimeError: The following operation failed in the TorchScript interpreter.
Traceback of TorchScript, serialized code (most recent call last):
  File "code/__torch__/seqs.py", line 12, in forward
    _0 = torch.mean((emb).forward(ids, ), [1])
                     ~~~~~~~~~~~~ <--- HERE
RuntimeError: index out of range in self
"""


def test_an_index_past_the_table_names_the_values_sent():
    inputs = {"ids": np.array([[1, 2, 150, 3]], dtype=np.int64), "x": np.zeros((1, 2), dtype=np.float32)}
    e = _refusal("m", TRACE, inputs, "its log says why")
    assert e.message == (
        "m: request refused: an integer input holds an index past a table the model indexes (an embedding's "
        "num_embeddings): integer inputs sent: 'ids' 1..150 (the server: RuntimeError: index out of range in self)"
    )
    assert "Traceback" not in str(e) and "0..num_embeddings-1" in (e.hint or "")


def test_other_refusals_keep_the_server_s_words():
    e = _refusal("m", "unexpected shape for input 'x'", {}, "its log says why")
    assert e.message == "m: request refused: unexpected shape for input 'x'"


BAG_TRACE = (
    "RuntimeError: The following operation failed in the TorchScript interpreter.\n"
    "Traceback of TorchScript, serialized code (most recent call last):\n"
    '  File "code/__torch__/ctr.py", line 14, in forward\n'
    "    e = (emb).forward(sparse_ids, )\n"
    + "".join(f'  File "code/__torch__/torch/nn/modules/sparse.py", line {i}, in forward\n    _{i} = ...\n' for i in range(20))
    + "Traceback of TorchScript, original code (most recent call last):\n"
    '  File "/work/main/.venv/lib/python3.11/site-packages/torch/nn/functional.py", line 2606, in embedding_bag\n'
    "RuntimeError: Index 0 of input takes value 1275 which is not in the valid range [0, 1000)\n"
)


def test_an_embedding_bag_s_traceback_is_one_line_as_onnx_runtime_s_is():
    """Trial 23, T23-12: the TorchScript variant's 49-line traceback (EmbeddingBag's own words) was printed
    whole, where the ONNX variant's Gather error got the one translated line."""
    inputs = {"sparse_ids": np.array([[4, 1456]], dtype=np.int64), "dense": np.zeros((1, 13), np.float32)}
    e = _refusal("ctr_ts", BAG_TRACE, inputs, "its log says why")
    assert e.message == (
        "ctr_ts: request refused: an integer input holds an index past a table the model indexes (an embedding's "
        "num_embeddings): integer inputs sent: 'sparse_ids' 4..1456 (the server: RuntimeError: Index 0 of input takes "
        "value 1275 which is not in the valid range [0, 1000))"
    )
    assert "Traceback" not in str(e)
    minus = _refusal("ctr_ts", "RuntimeError: Expected i < index_size to be true, but got false.", inputs, "log")
    assert "an index past a table the model indexes" in minus.message
    onnx = "[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Gather: indices element out of data bounds, idx=1185"
    assert _refusal("ctr_onnx", onnx, inputs, "log").message.split(" (the server")[0] == e.message.split(" (the server")[
        0
    ].replace("ctr_ts", "ctr_onnx")
