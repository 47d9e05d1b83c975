"""Why the eager model failed on integer inputs: a value past an embedding table's size.

A model that indexes a table with an integer input (token ids into ``nn.Embedding``) accepts
values ``0..num_embeddings-1``; a larger value makes torch raise ``IndexError: index out of
range in self``, which names neither the input nor the range. When the eager model raises on
inputs that hold integers, :func:`diagnose` runs it once more with a check in front of each
``nn.Embedding`` / ``nn.EmbeddingBag`` (a forward pre-hook) and turns the failure into one
:class:`~core.errors.ModelSpecError`: which input, the values it held, where they came from,
the range the table accepts, and the flag to give.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from builders.model.spec import ModelSpec
from builders.model.tensor import DEFAULT_INT_RANGE
from core.errors import ModelSpecError


@dataclasses.dataclass
class _OutOfRange(Exception):
    """Raised by the pre-hook: the table ``name`` of ``rows`` rows got indices ``low..high``."""

    name: str
    rows: int
    low: int
    high: int
    indices: Any


def looks_like_index_error(error: BaseException) -> bool:
    """Whether ``error`` is torch's out-of-range index error (``IndexError: index out of range
    in self``, or the same text inside a RuntimeError of a scripted module)."""
    return isinstance(error, IndexError) or "index out of range" in str(error)


def _range_source(spec: ModelSpec, name: str) -> tuple[int, int, str]:
    """An integer input's generated range and where it came from, in words."""
    t = next(t for t in spec.inputs if t.name == name)
    if t.value_range is not None:
        return (*t.value_range, "the range given by --input NAME:DTYPE:SHAPE:LOW..HIGH or the spec's value_range")
    return (*DEFAULT_INT_RANGE, "the default range of an integer input whose spec gives none")


def _flag(spec: ModelSpec, name: str, low: int, high: int) -> str:
    t = next(t for t in spec.inputs if t.name == name)
    shape = ",".join(str(d) for d in t.shape) or "''"
    return f'--input {name}:{t.dtype}:{shape}:{low}..{high} (or "value_range": [{low}, {high}] in the spec file)'


def diagnose(module: Any, spec: ModelSpec, inputs: dict[str, Any], error: BaseException) -> ModelSpecError | None:
    """The clear error for an eager run on ``inputs`` that raised ``error``, or ``None`` when
    it is not an index past a table's size.

    Args:
        module: The eager model (an ``nn.Module``; a scripted one takes no hooks, and the
            message then lists the integer inputs' values and the tables found).
        spec: Its input spec (input order, dtypes, value ranges).
        inputs: The numpy inputs it failed on (name -> array).
        error: What it raised.

    Returns:
        A :class:`ModelSpecError` naming the input, its values, their source, the range the
        table accepts and the flag to give; ``None`` when ``error`` is not an index error or
        no input holds integers.
    """
    import numpy as np
    import torch

    ints = [t.name for t in spec.inputs if np.issubdtype(np.asarray(inputs[t.name]).dtype, np.integer)]
    if not ints or not looks_like_index_error(error):
        return None
    tables = [
        (n, m)
        for n, m in getattr(module, "named_modules", lambda: [])()
        if isinstance(m, torch.nn.Embedding | torch.nn.EmbeddingBag)
    ]
    tensors = {t.name: torch.from_numpy(np.asarray(inputs[t.name])) for t in spec.inputs}
    found = _probe(module, spec, tensors, tables)
    values = {n: (int(tensors[n].min()), int(tensors[n].max())) for n in ints if tensors[n].numel()}
    if found is not None:
        where = next((n for n in ints if _same(found.indices, tensors[n])), None)
        accepts = f"0..{found.rows - 1}"
        table = f"{type(dict(tables)[found.name]).__name__} {found.name!r} of {found.rows} rows (num_embeddings={found.rows})"
        torch_said = f"torch raised {type(error).__name__}: {str(error)[:80]}"
        if where is not None:
            lo, hi, source = _range_source(spec, where)
            if lo <= found.low <= found.high <= hi:
                return ModelSpecError(
                    f"input {where!r} is drawn from {lo}..{hi} ({source}), but the model indexes {table} with it, which "
                    f"accepts {accepts}: the draws held {found.low}..{found.high} ({torch_said})",
                    hint=f"give {where!r} the range the model accepts: {_flag(spec, where, max(0, lo), found.rows - 1)}",
                )
            return ModelSpecError(
                f"input {where!r} holds {found.low}..{found.high} in your own inputs (--sample; the spec's range is "
                f"{lo}..{hi}), but the model indexes {table} with it, which accepts {accepts} ({torch_said})",
                hint=f"keep {where!r} within {accepts} in the sample file: other values are not valid inputs of this model",
            )
        return ModelSpecError(
            f"the model indexes {table} with values {found.low}..{found.high}, which come from its integer inputs "
            f"{_values_text(spec, values)}: it accepts {accepts}",
            hint="give each integer input the range the model accepts: --input NAME:DTYPE:SHAPE:LOW..HIGH (or value_range "
            "in the spec file)",
        )
    sizes = ", ".join(f"{n!r} ({m.num_embeddings} rows)" for n, m in tables) or "none found (a scripted or custom model)"
    return ModelSpecError(
        f"the model raised {type(error).__name__} ({str(error)[:80]}) on its integer inputs {_values_text(spec, values)}: "
        f"a value past the size of a table it indexes; embedding tables: {sizes}",
        hint="give each integer input the range the model accepts: --input NAME:DTYPE:SHAPE:LOW..HIGH (or value_range "
        "in the spec file)",
    )


def _values_text(spec: ModelSpec, values: dict[str, tuple[int, int]]) -> str:
    parts = []
    for n, (lo, hi) in values.items():
        rlo, rhi, source = _range_source(spec, n)
        parts.append(f"{n!r} {lo}..{hi} ({rlo}..{rhi} is {source})")
    return "; ".join(parts)


def _same(indices: Any, tensor: Any) -> bool:
    import torch

    return indices is tensor or (indices.shape == tensor.shape and bool(torch.equal(indices, tensor)))


def _probe(module: Any, spec: ModelSpec, tensors: dict[str, Any], tables: list[tuple[str, Any]]) -> _OutOfRange | None:
    """Run the model once with a range check in front of each table; the first table given an
    index outside ``0..rows-1``, or ``None`` (no table, or none was)."""
    import torch

    def check(name: str, rows: int) -> Any:
        def hook(_m: Any, args: tuple[Any, ...]) -> None:
            idx = args[0] if args else None
            if isinstance(idx, torch.Tensor) and idx.numel() and (int(idx.min()) < 0 or int(idx.max()) >= rows):
                raise _OutOfRange(name, rows, int(idx.min()), int(idx.max()), idx)

        return hook

    if not tables:
        return None
    handles = [m.register_forward_pre_hook(check(n, m.num_embeddings)) for n, m in tables]
    try:
        with torch.no_grad():
            module(*(tensors[t.name] for t in spec.inputs))
    except _OutOfRange as found:
        return found
    except Exception:  # noqa: BLE001 - another failure: not this diagnosis
        return None
    finally:
        for h in handles:
            h.remove()
    return None
