"""One ``execute()`` call of the python-backend model: requests merged into one batch and split back.

Used by the generated ``model.py`` (``builders/templates/triton_python_model.py``) on the
bundled server and timed in-process by ``benchmarks/bench_python_overhead.py``, so the
benchmark measures the served code itself. Plain numpy; no Triton import.

Copies, and which are avoided (Triton docs, "Python Backend": input tensors reach the model
as numpy arrays over the stub's shared memory; an output ``pb_utils.Tensor`` is copied into
shared memory once when the response is sent, whatever wraps it):

- one request in an ``execute()`` call: its arrays go to the runner as they are, its outputs
  come back as they are (no concatenate, no split);
- several requests of equal per-sample shapes: one ``np.concatenate`` per input (the one copy
  batching needs); outputs sliced along the batch axis into views (no copy);
- outputs are checked against the config once per batch, not once per request (a split part
  has the batch's dtype and per-sample shape), and passed on without a dtype conversion: a
  dtype other than the declared one is answered with an error, never converted.

DLPack (``pb_utils.Tensor.to_dlpack`` / ``from_dlpack``, in the bundled 24.10 python backend)
is not used: on CPU it removes no copy. By the backend's source (``src/pb_tensor.cc``), the
stub builds each input's numpy array as a copy of its shared memory (a pybind11 array without
a base object) whether or not the model asks for DLPack, and copies each output tensor into
shared memory once when the response is sent, whether it wraps a numpy array or a DLPack
capsule. On a ``KIND_GPU`` instance ``from_dlpack`` of a CUDA output would spare the
device-to-host copy; that path cannot be run or measured without a GPU, so it is not taken.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

Arrays = dict[str, np.ndarray]


def mergeable(arrays: Sequence[Arrays], names: Sequence[str]) -> bool:
    """Whether the requests' inputs can form one batch: every input has one per-sample shape
    (the dims after the batch axis) across the requests."""
    return all(len({a[n].shape[1:] for a in arrays}) == 1 for n in names)


def merge(arrays: Sequence[Arrays], names: Sequence[str]) -> tuple[Arrays, list[int]]:
    """The requests' inputs as one batch, and each request's batch size.

    Args:
        arrays: Per request, input name -> array ``[batch_i, *per_sample]``; at least one.
        names: Input names (the first one's batch axis gives the sizes).

    Returns:
        ``(merged, sizes)``: ``merged[n]`` has shape ``[sum(batch_i), *per_sample]``. With one
        request, ``merged`` is that request's dict itself (no copy).
    """
    if len(arrays) == 1:
        return arrays[0], [int(arrays[0][names[0]].shape[0])]
    return {n: np.concatenate([a[n] for a in arrays]) for n in names}, [int(a[names[0]].shape[0]) for a in arrays]


def split(outputs: Arrays, sizes: Sequence[int], names: Sequence[str]) -> list[Arrays]:
    """The batch's outputs back per request, along the batch axis (views, no copy).

    Args:
        outputs: Output name -> array ``[sum(sizes), *per_sample]``.
        sizes: Each request's batch size, as :func:`merge` returned them.
        names: The served output names.

    Returns:
        One dict per request; with one request, ``[outputs]`` itself.
    """
    if len(sizes) == 1:
        return [outputs]
    starts = list(itertools.accumulate(sizes[:-1], initial=0))
    ends: list[int | None] = [*starts[1:], None]  # the last request takes the rest, as np.split gives it
    return [{n: outputs[n][s:e] for n in names} for s, e in zip(starts, ends)]
