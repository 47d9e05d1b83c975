"""Input domains: what values a request can send, beyond dtype and ``value_range``.

An input spec names a domain per input (``"domain": "mask"``, ``--input
attention_mask:int64:seq:mask``); every generated input respects it: the verification draws
(:mod:`builders.verify.input_draws`), the example inputs an export traces with and the reference
data (:meth:`builders.model.spec.ModelSpec.example_inputs`), and, through :func:`conform`, the
inputs ``clients`` and ``triton-perf`` generate. An export is never rejected on inputs no
request sends.

Domains:

``mask``
    An attention or padding mask: values in {0, 1} (integer, bool or floating dtype), at least
    one 1 in every row (the last axis of each sample; a mask with no per-sample axis is all
    ones). A row of zeros is no request (every sequence has a token), and a real encoder's
    attention over it is undefined: the dynamo ONNX export of one differed from eager PyTorch
    there by a relative error of 0.61 (issue 25) while agreeing on every real mask. The
    draws are padding masks: ones then zeros (right padding) or zeros then ones (left
    padding), from all ones to a single one per row.

Integer token ids and the like are bounded by ``value_range`` (inclusive; one range, or one per
position of the last axis: :mod:`builders.model.value_ranges`), which every draw respects already.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from builders.model.value_ranges import zero_one
from core import dtypes
from core.errors import ModelSpecError

#: Named domains and what they mean (one line each, for messages and the schema).
DOMAINS: dict[str, str] = {
    "mask": "values in {0, 1}, at least one 1 per row (last axis): an attention or padding mask",
}


def check_domain(name: str, dtype: str, domain: str | None, value_range: Any) -> None:
    """Check that tensor ``name`` of ``dtype`` can have ``domain``.

    Raises:
        ModelSpecError: an unknown domain, a dtype it does not fit (a mask of strings), or a
            ``value_range`` that contradicts it (a mask's range is [0, 1]).
    """
    if domain is None:
        return
    if domain not in DOMAINS:
        raise ModelSpecError(
            f"tensor {name!r}: unknown domain {domain!r}",
            hint="known domains: " + "; ".join(f"{k} ({v})" for k, v in DOMAINS.items()),
            flag="--input",
        )
    kind = dtypes.from_name(dtype)
    if not (kind.is_integer or kind.is_floating or dtype == "bool"):
        raise ModelSpecError(
            f"tensor {name!r}: a {domain} holds 0s and 1s; dtype {dtype} cannot",
            hint=f"give {name!r} an integer, floating or bool dtype, or drop its domain {domain!r}",
            flag="--input",
        )
    if value_range is not None and not zero_one(value_range):
        raise ModelSpecError(
            f"tensor {name!r}: a {domain} takes values 0 and 1, but value_range is {list(value_range)}",
            hint="drop value_range (a mask's range is [0, 1]) or the domain",
            flag="--input",
        )


def mask_values(shape: tuple[int, ...], draw: str, rng: np.random.Generator) -> np.ndarray:
    """A padding mask of ``shape`` (``[batch, ..., row]``) for one draw, as 0/1 ``int8``.

    ``random``: ones then zeros (right padding), a random length >= 1 per row; ``positive``:
    all ones; ``negative``: a single one at the end of each row (the most left padding);
    ``scaled``: zeros then ones (left padding), a random length >= 1; ``zeros``: a single one
    at the start of each row (the most right padding). A shape without a per-sample axis
    (``[batch]``) is all ones.
    """
    if len(shape) < 2 or draw == "positive":
        return np.ones(shape, np.int8)
    n = shape[-1]
    pos = np.arange(n)
    if draw in ("negative", "zeros"):
        lengths = np.ones(shape[:-1], np.int64)
    else:
        lengths = rng.integers(1, n + 1, size=shape[:-1])
    mask = pos < lengths[..., None]  # a prefix of ones (right padding)
    if draw in ("negative", "scaled"):
        mask = mask[..., ::-1]  # the same lengths at the end (left padding)
    return mask.astype(np.int8)


def domain_problem(domain: str | None, values: np.ndarray, per_sample_axis: bool = True) -> str | None:
    """What in ``values`` (a request's input, batch axis first) breaks ``domain``, in words, or
    ``None``: for a mask, a value other than 0 and 1, or a row (the last axis of a sample) with no 1
    — a sequence with no token, whose attention is undefined (trial 10: an all-zero
    ``attention_mask`` from a file gave NaN logits, printed with exit 0).

    Args:
        domain: The input's domain (``TensorSpec.domain``), or ``None``.
        values: The values a request sends.
        per_sample_axis: Whether a sample has an axis of its own (``False``: a mask with no per-sample
            axis, all of whose values are one row).
    """
    if domain != "mask" or values.size == 0:
        return None
    v = np.asarray(values).astype(np.float64)
    odd = v[~np.isin(v, (0.0, 1.0))]
    if odd.size:
        return f"holds {odd.size} values other than 0 and 1 (e.g. {odd.flat[0]:g})"
    rows = v.reshape(-1, v.shape[-1]) if per_sample_axis and v.ndim >= 1 else v.reshape(-1, 1)
    empty = np.flatnonzero(rows.max(axis=-1) < 1.0)
    if empty.size:
        which = ", ".join(map(str, empty[:5].tolist())) + (", ..." if empty.size > 5 else "")
        return f"has {empty.size} of its {rows.shape[0]} rows with no 1 (row {which}): a sequence with no token attended"
    return None


def domain_values(domain: str, dtype: str, shape: tuple[int, ...], draw: str, rng: np.random.Generator) -> np.ndarray:
    """Values of one draw for an input with ``domain``, in ``dtype``.

    Raises:
        ValueError: an unknown domain (the spec checks names, so this is a bug).
    """
    if domain == "mask":
        return mask_values(shape, draw, rng).astype(dtype)
    raise ValueError(f"unknown input domain {domain!r}")


def describe_domain(domain: str, draw: str) -> str:
    """What one draw gives an input with ``domain``, in words (the manifest's ``draws``)."""
    if domain == "mask":
        return {
            "random": "mask: 1s then 0s, a random length >= 1 per row (right padding)",
            "positive": "mask: all 1s",
            "negative": "mask: a single 1 per row, at its end (the most left padding)",
            "scaled": "mask: 0s then 1s, a random length >= 1 per row (left padding)",
            "zeros": "mask: a single 1 per row, at its start (the most right padding)",
        }.get(draw, f"mask ({DOMAINS['mask']})")
    return domain


def conform(domain: str | None, values: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
    """``values`` made to respect ``domain`` (unchanged without one): for a mask, a padding mask
    of the same shape and dtype (the ``random`` draw), so that generated requests (``clients
    infer``, cold start, ``perf_analyzer`` data) are ones a client could send.

    Args:
        domain: The input's domain (``TensorSpec.domain``), or ``None``.
        values: Generated values, batch axis first.
        rng: Random lengths' source (default: seeded 0).
    """
    if domain is None:
        return values
    return domain_values(domain, str(values.dtype), tuple(values.shape), "random", rng or np.random.default_rng(0))


def looks_like_mask(name: str, values: np.ndarray) -> bool:
    """Whether an example input is a mask.

    It is when its name ends in ``mask`` (``attention_mask``, ``padding_mask``), it has a
    per-sample axis, holds only 0s and 1s, and every row has a 1
    (:meth:`builders.model.spec.ModelSpec.from_example` then gives it the ``mask`` domain).
    """
    if not name.lower().endswith("mask") or values.ndim < 2 or values.size == 0:
        return False
    v = values.astype(np.float64)
    return bool(np.isin(v, (0.0, 1.0)).all() and (v.max(axis=-1) == 1.0).all())
