"""Why the eager model failed on integer inputs: a value past an embedding table's size.

A model that indexes a table with an integer input (token ids into ``nn.Embedding``) accepts
values ``0..num_embeddings-1``; a larger value makes torch raise ``IndexError: index out of
range in self``, which names neither the input nor the range. When the eager model raises on
inputs that hold integers, :func:`diagnose` runs it once more with a check in front of each
``nn.Embedding`` / ``nn.EmbeddingBag`` (a forward pre-hook that clamps what it finds, so that
one run finds every table indexed past its rows) and turns the failure into one
:class:`~core.errors.ModelSpecError`: each such table with the range it accepts, the values it got
and the input (or the input's position, for a tabular input whose columns feed tables of their
own) they came from; the range each input is drawn from; and the one range that fits every table
an input feeds, with the flag to give.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

import numpy as np

from builders.model.range_source import input_range
from builders.model.spec import EXAMPLE_INPUTS, ModelSpec
from builders.model.spec_flags import input_flag
from builders.model.tensor import TensorSpec
from builders.model.value_ranges import (
    ValueRange,
    at_sizes,
    overall,
    per_position,
    range_axes,
    range_bounds,
    range_json,
    range_text,
)
from core.errors import ModelSpecError


@dataclasses.dataclass
class _Use:
    """One table's indexing in the probe run: ``kind`` ``name`` of ``rows`` rows got indices
    ``low..high`` from ``source`` (an input and, for one column of it, the position on its last
    axis), ``None`` when they could not be traced to an input."""

    name: str
    kind: str
    rows: int
    low: int
    high: int
    source: tuple[str, int | None] | None

    @property
    def past(self) -> bool:
        """Whether an index lies outside ``0..rows-1``."""
        return self.low < 0 or self.high >= self.rows

    def table(self) -> str:
        return f"{self.kind} {self.name!r} of {self.rows} rows (num_embeddings={self.rows})"


def looks_like_index_error(error: BaseException) -> bool:
    """Whether ``error`` is torch's out-of-range index error (``IndexError: index out of range
    in self``, or the same text inside a RuntimeError of a scripted module)."""
    return isinstance(error, IndexError) or "index out of range" in str(error)


def _range_source(spec: ModelSpec, name: str, sizes: Mapping[str, int]) -> tuple[ValueRange, str]:
    """An integer input's generated range in the failed request and where it came from, in words:
    a bound that names a dynamic axis is that axis's size in ``sizes``, the request's own
    (:func:`builders.model.value_ranges.at_sizes`; a request at ``time=1000`` drew ``lengths`` within
    ``1..1000``, not within ``1..time`` at the axis's largest size)."""
    t = next(t for t in spec.inputs if t.name == name)
    r = t.input_range() or input_range("int64")  # an integer array for a spec input of another dtype: the default
    assert r is not None  # an integer dtype always gets a range
    if r.default:
        return r.range, "the default range of an integer input whose spec gives none"
    if spec.origin == EXAMPLE_INPUTS:
        return r.range, "the range of your example_inputs: each position's own min..max, or the whole input's"
    given = "the range given by --input NAME:DTYPE:SHAPE:LOW..HIGH or the spec's value_range"
    axes = range_axes(r.range)
    if axes:
        at = ", ".join(f"{a}={sizes[a]}" for a in axes)
        given = f"{range_text(r.range)} at this request's {at}: {given}"
    return at_sizes(r.range, sizes), given  # type: ignore[return-value]


def _fix(spec: ModelSpec, ranges: dict[str, ValueRange]) -> str:
    """How to give each input of ``ranges`` its range: the ``--input`` flag and spec-file entry,
    or, for a spec made from the Python API's ``example_inputs`` (no flag was given), the
    ``spec=`` to pass instead (trial 11, F17: the advice was a CLI flag in a Python session)."""
    if spec.origin == EXAMPLE_INPUTS:
        given = [dataclasses.replace(t, value_range=ranges.get(t.name, t.value_range)) for t in spec.inputs]
        flags = ", ".join(f'"{input_flag(t)}"' for t in given)
        changed = [t.name for t, was in zip(given, spec.inputs) if t.value_range != was.value_range] or list(ranges)
        return (
            f"pass example_inputs whose {', '.join(map(repr, changed))} hold values the model accepts, or give the ranges "
            f"with a spec instead of example_inputs: build(BuildOptions(model, spec=ModelSpec.from_flags([{flags}])))"
        )
    return "; ".join(
        _axis_fix(spec, t, vr)
        + f'--input {input_flag(dataclasses.replace(t, value_range=vr))} (or "value_range": {range_json(vr)} in the spec file)'
        for n, vr in ranges.items()
        for t in spec.inputs
        if t.name == n
    )


def _axis_fix(spec: ModelSpec, t: TensorSpec, fits: ValueRange) -> str:
    """For an input whose range's high bound names a dynamic axis (``0..seq``), the fix that keeps
    the bound, leading :func:`_fix`'s fixed range: the axis's max lowered to the high that ``fits``
    (break test B12: ``0..seq`` was told to become ``0..99``, which drops what the bound says);
    ``""`` for any other range, or when the axis's min is already past that high."""
    vr = t.value_range
    if vr is None or per_position(vr) or per_position(fits) or not isinstance(vr[1], str) or vr[1] not in spec.dynamic_axes:
        return ""
    axis, (low, high) = vr[1], overall(fits)
    amin, opt, amax = spec.dynamic_axes[axis]
    kept = dataclasses.replace(t, value_range=(low, axis))
    if amin > high or (kept.value_range == vr and amax <= high):
        return ""
    flags = [f"--input {input_flag(kept)}"] if kept.value_range != vr else []
    said = f"keep the bound, {low}..{axis}"
    if amax > high:
        lowered = [amin, min(opt, high), high]
        flags.append(
            f"--dynamic-axis {axis}={','.join(map(str, lowered))} (a spec file: {json.dumps({'dynamic_axes': {axis: lowered}})[1:-1]})"
        )
        said = f"lower {axis}'s max to {high}, which keeps {low}..{axis} within {low}..{high}"
    return f"{said}: {' '.join(flags)}; or a fixed range: "


def _generic_fix(spec: ModelSpec) -> str:
    if spec.origin == EXAMPLE_INPUTS:
        return "pass example_inputs holding values the model accepts, or a spec= with each integer input's range"
    return "--input NAME:DTYPE:SHAPE:LOW..HIGH (or value_range in the spec file)"


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
    sizes = spec.sizes_of({n: np.shape(a) for n, a in inputs.items()})  # this request's: a range bound naming an axis
    uses = _probe(module, spec, tensors, tables, ints)
    values = {n: (int(tensors[n].min()), int(tensors[n].max())) for n in ints if tensors[n].numel()}
    torch_said = f"torch raised {type(error).__name__}: {str(error)[:80]}"
    past = [u for u in uses if u.past]
    if len(past) == 1 and past[0].source is not None and past[0].source[1] is None:
        found, where = past[0], past[0].source[0]
        accepts = f"0..{found.rows - 1}"
        vr, source = _range_source(spec, where, sizes)
        lo, hi = overall(vr)
        if lo <= found.low <= found.high <= hi:
            return ModelSpecError(
                f"input {where!r} is drawn from {range_text(vr)} ({source}), but the model indexes {found.table()} with "
                f"it, which accepts {accepts}: the draws held {found.low}..{found.high} ({torch_said})",
                hint=f"give {where!r} the range the model accepts: {_fix(spec, {where: (max(0, lo), found.rows - 1)})}",
            )
        return ModelSpecError(
            f"input {where!r} holds {found.low}..{found.high} in your own inputs (--sample; the spec's range is "
            f"{range_text(vr)}), but the model indexes {found.table()} with it, which accepts {accepts} ({torch_said})",
            hint=f"keep {where!r} within {accepts} in the sample file: other values are not valid inputs of this model",
        )
    if past:
        return _every_table(spec, uses, past, values, torch_said, sizes)
    rows = ", ".join(f"{n!r} ({m.num_embeddings} rows)" for n, m in tables) or "none found (a scripted or custom model)"
    return ModelSpecError(
        f"the model raised {type(error).__name__} ({str(error)[:80]}) on its integer inputs {_values_text(spec, values, sizes)}: "
        f"a value past the size of a table it indexes; embedding tables: {rows}",
        hint=f"give each integer input the range the model accepts: {_generic_fix(spec)}",
    )


def _every_table(
    spec: ModelSpec,
    uses: list[_Use],
    past: list[_Use],
    values: dict[str, tuple[int, int]],
    torch_said: str,
    sizes: Mapping[str, int],
) -> ModelSpecError:
    """The error for tables given indices past their rows by several tables or columns of an
    input (trial 11, F4: a tabular input feeding six tables named only the first that failed,
    and a user who followed it failed on the next): every such table with what it accepts, what
    it got and from where; then, per input, the one range every table it feeds accepts."""
    said = "; ".join(
        f"{u.kind} {u.name!r} of {u.rows} rows (accepts 0..{u.rows - 1}) got {u.low}..{u.high} from {_source_text(u.source)}"
        for u in past
    )
    inputs = list(dict.fromkeys(u.source[0] for u in uses if u.source is not None))
    drawn = "; ".join(f"{n!r} {range_text(vr)} ({source})" for n in inputs for vr, source in [_range_source(spec, n, sizes)])
    fits, ranges = [], {}
    for n in inputs:
        fits_n, ranges[n] = _fitting(spec, n, [u for u in uses if u.source is not None and u.source[0] == n], sizes)
        fits.append(fits_n)
    untraced = [u for u in past if u.source is None]
    if untraced:
        fits.append(
            f"the tables not traced to an input accept 0..{min(u.rows for u in untraced) - 1} together "
            f"(the integer inputs held {_values_text(spec, values, sizes)})"
        )
    return ModelSpecError(
        f"the model indexes {len(past)} of the {len(uses)} tables it looked up past their rows: {said} ({torch_said}). "
        f"The indices come from draws of {drawn or 'no traced input'}. The range that fits every table an input feeds: "
        + "; ".join(fits),
        hint="give each input that range: " + (_fix(spec, ranges) if ranges else _generic_fix(spec)),
    )


def _fitting(spec: ModelSpec, name: str, fed: list[_Use], sizes: Mapping[str, int]) -> tuple[str, ValueRange]:
    """The range of input ``name`` that fits every table it feeds (``fed``), in words, and the range:
    ``max(0, low)..rows-1`` of its smallest table; one per position of its last axis when its
    columns feed tables of their own (a tabular input: each column up to its own table's last row,
    a column that feeds none keeps its range)."""
    t = next(t for t in spec.inputs if t.name == name)
    vr, _ = _range_source(spec, name, sizes)
    smallest = min(fed, key=lambda u: u.rows)
    width = t.shape[-1] if t.shape and isinstance(t.shape[-1], int) else None
    if width is None or all(u.source is None or u.source[1] is None for u in fed):
        low = max(0, overall(vr)[0])
        return (
            f"{name!r} {low}..{smallest.rows - 1} (it feeds {len(fed)} table{'s' if len(fed) > 1 else ''}; the smallest, "
            f"{smallest.name!r}, has {smallest.rows} rows)"
        ), (low, smallest.rows - 1)
    lo, hi = (np.broadcast_to(b, (width,)) for b in range_bounds(vr))
    pairs, said = [], []
    for j in range(width):
        tables = [u for u in fed if u.source is not None and u.source[1] in (j, None)]
        if not tables:
            pairs.append((int(lo[j]), int(hi[j])))
            continue
        least = min(tables, key=lambda u: u.rows)
        pairs.append((max(0, int(lo[j])), least.rows - 1))
        said.append(f"{j}: {pairs[-1][0]}..{pairs[-1][1]} ({least.name!r}, {least.rows} rows)")
    return f"{name!r} per position of its last axis, {', '.join(said)}", tuple(pairs)


def _source_text(source: tuple[str, int | None] | None) -> str:
    if source is None:
        return "an integer input it was not traced to"
    name, position = source
    return f"input {name!r}" + (f" at position {position} of its last axis" if position is not None else "")


def _values_text(spec: ModelSpec, values: dict[str, tuple[int, int]], sizes: Mapping[str, int]) -> str:
    parts = []
    for n, (lo, hi) in values.items():
        vr, source = _range_source(spec, n, sizes)
        parts.append(f"{n!r} {lo}..{hi} ({range_text(vr)} is {source})")
    return "; ".join(parts)


def _source(indices: Any, tensors: dict[str, Any], ints: list[str]) -> tuple[str, int | None] | None:
    """Which integer input ``indices`` are, whole or one position of its last axis (a tabular
    input's column), or ``None``."""
    import torch

    for n in ints:
        t = tensors[n]
        if indices is t or (indices.shape == t.shape and bool(torch.equal(indices, t))):
            return (n, None)
    for n in ints:
        t = tensors[n]
        if t.dim() >= 1 and indices.shape == t.shape[:-1]:
            for j in range(t.shape[-1]):
                if bool(torch.equal(indices, t[..., j])):
                    return (n, j)
    return None


def _probe(module: Any, spec: ModelSpec, tensors: dict[str, Any], tables: list[tuple[str, Any]], ints: list[str]) -> list[_Use]:
    """Run the model once with a look in front of each table: every lookup (its table, the
    indices' range and their input), in call order. An index outside ``0..rows-1`` is clamped
    for the run to go on, so that every table past which the inputs index is found in one run.
    Empty when there is no table, or the run fails for another reason."""
    import torch

    uses: list[_Use] = []

    def look(name: str, m: Any) -> Any:
        def hook(_m: Any, args: tuple[Any, ...]) -> Any:
            idx = args[0] if args else None
            if not isinstance(idx, torch.Tensor) or not idx.numel():
                return None
            rows = m.num_embeddings
            uses.append(_Use(name, type(m).__name__, rows, int(idx.min()), int(idx.max()), _source(idx, tensors, ints)))
            return (idx.clamp(0, rows - 1), *args[1:]) if uses[-1].past else None

        return hook

    if not tables:
        return []
    handles = [m.register_forward_pre_hook(look(n, m)) for n, m in tables]
    try:
        with torch.no_grad():
            module(*(tensors[t.name] for t in spec.inputs))
    except Exception:  # noqa: BLE001 - another failure: not this diagnosis
        return []
    finally:
        for h in handles:
            h.remove()
    return uses


def index_tables(module: Any, spec: ModelSpec, inputs: dict[str, Any]) -> dict[str, list[str]] | None:
    """Each integer input of ``spec`` -> the embedding tables (``nn.Embedding`` / ``nn.EmbeddingBag``
    module names) the eager ``module`` indexes with it, whole or by a position of its last axis, in one
    run on ``inputs`` (name -> numpy array): the build records it (``value_ranges``' ``tables``) so that
    a warning about values outside an input's range explains table lookups only for an input that is
    one. An input found indexing none gets ``[]`` (a model without tables runs nothing here).

    Returns:
        ``None`` when it cannot be told: a scripted model (which takes no hooks), or a run that failed.
    """
    import torch

    if isinstance(module, torch.jit.ScriptModule) or not hasattr(module, "named_modules"):
        return None
    ints = [t.name for t in spec.inputs if np.issubdtype(np.asarray(inputs[t.name]).dtype, np.integer)]
    tables = [(n, m) for n, m in module.named_modules() if isinstance(m, torch.nn.Embedding | torch.nn.EmbeddingBag)]
    found: dict[str, list[str]] = {n: [] for n in ints}
    if not ints or not tables:
        return found
    tensors = {t.name: torch.from_numpy(np.asarray(inputs[t.name])) for t in spec.inputs}
    uses = _probe(module, spec, tensors, tables, ints)
    if not uses:
        return None  # the run failed: not known
    for u in uses:
        if u.source is not None and u.name not in found[u.source[0]]:
            found[u.source[0]].append(u.name)
    return found
