"""A max_batch_size 0 variant's config gives its batch dim as 1 (builders.config.pbtxt.unbatched_dims, trial 30's F5):
``clients check`` sends it the first sample of the build's reference batch, taken along each tensor's batch axis, and
compares the first sample of the expected outputs (it sent all 4 rows, which the server now refuses:
tests/builders/repository/test_repository_integration.py failed after F5's fix)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from builders.model.tensor import TensorSpec
from clients.check import first_row


def _bound(name: str, shape: tuple[int, ...], batch_axis: int | None) -> SimpleNamespace:
    return SimpleNamespace(name=name, spec=TensorSpec(name, "float32", shape, batch_axis=batch_axis))


def test_the_first_sample_is_taken_along_each_tensor_s_batch_axis() -> None:
    x = np.arange(4 * 3, dtype=np.float32).reshape(4, 3)  # batch first
    t = np.arange(5 * 4, dtype=np.float32).reshape(5, 4)  # batch second
    table = np.ones((7, 2), np.float32)  # no batch axis: kept whole
    got = first_row({"x": x, "t": t, "table": table}, [_bound("x", (3,), 0), _bound("t", (5,), 1), _bound("table", (7, 2), None)])
    np.testing.assert_array_equal(got["x"], x[:1])
    np.testing.assert_array_equal(got["t"], t[:, :1])
    assert got["table"] is table
    assert got["x"].shape == (1, 3) and got["t"].shape == (5, 1)
