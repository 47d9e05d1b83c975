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
