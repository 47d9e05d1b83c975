"""How every output states the shape of an input sent (trial 26, T26-3): per request, the batch axis
included, with the per-sample dims (what ``--shape NAME:dims`` takes) beside it.

The sweep said ``waveform [1, 8000]`` (the per-sample dims) where ``clients infer`` said
``waveform [1, 1, 8000]`` (the batch axis included) for the same request, and still ``[1, 8000]``
"per request" when each request held ``[4, 1, 8000]``. Every line that names an input's shape
(``clients infer``'s inputs, the sweep's opening, the sizes a run records of a ``--shape``, which
report.md and ``triton-perf coldstart`` print) states it with :func:`request_shape` or, where no
request's batch size is known, :func:`per_sample_shape`.
"""

from __future__ import annotations

from collections.abc import Sequence

#: The words of a request's batch axis beside its per-sample dims.
PER_SAMPLE = "per sample"


def dims_text(dims: Sequence[int | str]) -> str:
    """``[1, 8000]``; an axis name stands for a size each level sets (``[1, time]``)."""
    return f"[{', '.join(map(str, dims))}]"


def request_shape(dims: Sequence[int | str], batch: int | Sequence[int] | None) -> str:
    """One input's shape in a request, the batch axis first, and its per-sample dims beside it:
    ``"[4, 1, 8000] (batch 4 × [1, 8000] per sample)"``.

    Args:
        dims: The per-sample dims (no batch axis; for a model that does not batch, the config's dims).
        batch: The rows of each request (``-b``; several: a sweep's ``--batch-sizes``, said
            ``"[b, 1, 8000] (batch b × [1, 8000] per sample, b ∈ {1, 4})"``: s22z, Z-8, ``"batch b = 1, 4 × [1, 8000]"``
            read as "1, and 4 × [1, 8000]"), or ``None`` for a model that does
            not batch (``max_batch_size: 0``): a request is its config's dims, said ``"[1, 8000] (max_batch_size 0:
            the whole request)"``.
    """
    if batch is None:
        return f"{dims_text(dims)} (max_batch_size 0: the whole request)"
    sizes = [batch] if isinstance(batch, int) else list(dict.fromkeys(batch))
    b = str(sizes[0]) if len(sizes) == 1 else "b"
    each = "" if len(sizes) == 1 else f", b ∈ {{{', '.join(map(str, sizes))}}}"
    return f"{dims_text([b, *dims])} (batch {b} × {dims_text(dims)} {PER_SAMPLE}{each})"


def per_sample_shape(dims: Sequence[int | str], batching: bool = True) -> str:
    """Dims without a request's batch size (``--shape``'s, a record's): ``"[1, 8000] per sample"``; those of a
    model that does not batch (``batching`` false) are a whole request's: :func:`request_shape`'s words."""
    return f"{dims_text(dims)} {PER_SAMPLE}" if batching else request_shape(dims, None)
