"""The input tensors of a spec made from example inputs (the Python API's ``example_inputs``,
:meth:`builders.model.spec.ModelSpec.from_example`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from builders.model.domains import looks_like_mask
from builders.model.tensor import TensorSpec
from builders.model.value_ranges import example_range
from core import dtypes
from core.errors import ModelSpecError


def example_tensors(example: Any, names: Sequence[str] = ()) -> tuple[TensorSpec, ...]:
    """One :class:`TensorSpec` per example input, as :meth:`builders.model.spec.ModelSpec.from_example`
    says: static per-sample shapes, integer inputs with the example's range (per position of the
    last axis where the positions' ranges differ: :func:`builders.model.value_ranges.example_range`),
    a ``mask`` domain for what looks like one.

    Raises:
        ModelSpecError: an example has no batch axis, a dtype Triton cannot take, or there is none.
    """
    if isinstance(example, dict):
        order = [n for n in names if n in example] + [n for n in example if n not in names]
        items = [(n, example[n]) for n in order]
    else:
        seq = list(example) if isinstance(example, (tuple, list)) else [example]
        items = [(names[i] if i < len(names) else f"INPUT__{i}", x) for i, x in enumerate(seq)]
    tensors = []
    for name, x in items:
        is_torch = hasattr(x, "detach")
        dt = dtypes.require_tensor_io(
            dtypes.from_torch(x.dtype).name if is_torch else str(np.asarray(x).dtype), f"example input {name!r}"
        )
        arr = x.detach().cpu().numpy() if is_torch else np.asarray(x)
        if arr.ndim < 1:
            raise ModelSpecError(
                f"example input {name!r} is a scalar; it needs a batch axis first",
                hint="pass one batch, e.g. torch.randn(4, 16) for 4 samples of 16 features",
            )
        mask = (dt.is_integer or dt.name == "bool") and looks_like_mask(name, arr)
        shape = tuple(int(d) for d in arr.shape[1:])
        rng = example_range(arr, shape) if dt.is_integer and not mask else None
        tensors.append(TensorSpec(name, dt.name, shape, rng, domain="mask" if mask else None))
    if not tensors:
        raise ModelSpecError(
            "example_inputs holds no tensor",
            hint="pass one batch of every input, e.g. (torch.randn(4, 16),) or {'x': torch.randn(4, 16)}",
        )
    return tuple(tensors)
