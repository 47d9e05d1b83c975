"""Why the eager model failed on integer inputs: a value past an embedding table's size.

A model that indexes a table with an integer input (token ids into ``nn.Embedding`` /
``nn.EmbeddingBag``, or a functional ``F.embedding`` / ``F.embedding_bag``) accepts values
``0..num_embeddings-1``; a larger value makes torch raise ``IndexError: index out of range in
self`` (an ``EmbeddingBag``: ``Index 3 of input takes value 1000 which is not in the valid range``),
which names neither the input nor the range. When the eager model raises on inputs that hold
integers, :func:`diagnose` runs it once more seeing every table lookup
(:func:`builders.model.lookups.probe.probe`, which clamps what it finds, so that one run finds every
table indexed past its rows) and turns the failure into one :class:`~core.errors.ModelSpecError`
(:func:`explain`): each such table with the range it accepts, the values it got and the input (or
the input's position, for a tabular input whose columns feed tables of their own) they came from;
the range each input is drawn from; and the one range that fits every table an input feeds, with
the flag to give. :mod:`builders.model.lookups.range_ends` runs the same explanation before any export, on
each range's ends.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

from builders.model.axis_steps import axis_flag, spec_entry
from builders.model.lookups.attribution import attributed
from builders.model.lookups.probe import Source, Use, looks_like_index_error
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
    step = spec.step(axis)
    if amax > high and high // step * step < amin:
        return ""  # no multiple of the axis's step lies within min..high
    if amax > high:
        high = high // step * step  # a max the step takes (axis_steps)
        lowered = [amin, min(opt, high), high]
        flags.append(f"--dynamic-axis {axis_flag(axis, lowered, step)} (a spec file: {spec_entry(axis, lowered, step)})")
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
    tensors = {t.name: torch.from_numpy(np.asarray(inputs[t.name])) for t in spec.inputs}
    uses = (attributed(module, spec, [tensors], ints) or [[]])[0]
    torch_said = f"torch raised {type(error).__name__}: {str(error)[:80]}"
    found = explain(spec, inputs, uses, torch_said)
    if found is not None:
        return found
    sizes = spec.sizes_of({n: np.shape(a) for n, a in inputs.items()})  # this request's: a range bound naming an axis
    values = {n: (int(tensors[n].min()), int(tensors[n].max())) for n in ints if tensors[n].numel()}
    rows = ", ".join(f"{n!r} ({m.num_embeddings} rows)" for n, m in _tables(module)) or "none found (a scripted or custom model)"
    return ModelSpecError(
        f"the model raised {type(error).__name__} ({str(error)[:80]}) on its integer inputs {_values_text(spec, values, sizes)}: "
        f"a value past the size of a table it indexes; embedding tables: {rows}",
        hint=f"give each integer input the range the model accepts: {_generic_fix(spec)}",
    )


def _tables(module: Any) -> list[tuple[str, Any]]:
    """The ``nn.Embedding`` / ``nn.EmbeddingBag`` modules of ``module`` (none for a scripted one)."""
    import torch

    return [
        (n, m)
        for n, m in getattr(module, "named_modules", lambda: [])()
        if isinstance(m, torch.nn.Embedding | torch.nn.EmbeddingBag)
    ]


def explain(
    spec: ModelSpec, inputs: dict[str, Any], uses: list[Use], said: str, held: str = "the draws held"
) -> ModelSpecError | None:
    """The error for the table lookups ``uses`` of a run on ``inputs`` (:func:`builders.model.lookups.probe.probe`)
    when one indexed past its table's rows, else ``None``: the one table and its input (``held``: how
    the values came, ``said``: what found them, in words), or every such table and the range that fits
    each input (:func:`_every_table`)."""
    ints = [t.name for t in spec.inputs if np.issubdtype(np.asarray(inputs[t.name]).dtype, np.integer)]
    sizes = spec.sizes_of({n: np.shape(a) for n, a in inputs.items()})  # this request's: a range bound naming an axis
    values = {n: (int(np.min(inputs[n])), int(np.max(inputs[n]))) for n in ints if np.size(inputs[n])}
    past = [u for u in uses if u.past]
    if len(past) == 1 and past[0].source is not None and past[0].source[1] is None:
        found, where = past[0], past[0].source[0]
        accepts = f"0..{found.rows - 1}"
        vr, source = _range_source(spec, where, sizes)
        lo, hi = overall(vr)
        if lo <= found.low <= found.high <= hi:
            return ModelSpecError(
                f"input {where!r} is drawn from {range_text(vr)} ({source}), but the model indexes {found.table()} with "
                f"it, which accepts {accepts}: {held} {found.low}..{found.high} ({said})",
                hint=f"give {where!r} the range the model accepts: {_fix(spec, {where: (min(max(0, lo), found.rows - 1), found.rows - 1)})}",
            )
        return ModelSpecError(
            f"input {where!r} holds {found.low}..{found.high} in your own inputs (--sample; the spec's range is "
            f"{range_text(vr)}), but the model indexes {found.table()} with it, which accepts {accepts} ({said})",
            hint=f"keep {where!r} within {accepts} in the sample file: other values are not valid inputs of this model",
        )
    if past:
        return _every_table(spec, uses, past, values, said, sizes)
    return None


def _every_table(
    spec: ModelSpec,
    uses: list[Use],
    past: list[Use],
    values: dict[str, tuple[int, int]],
    torch_said: str,
    sizes: Mapping[str, int],
) -> ModelSpecError:
    """The error for tables given indices past their rows by several tables or columns of an
    input (trial 11, F4: a tabular input feeding six tables named only the first that failed,
    and a user who followed it failed on the next): every such table with what it accepts, what
    it got and from where; then, per input, the one range every table it feeds accepts."""
    said = "; ".join(
        f"{u.kind} {u.name!r} of {u.rows} rows (accepts 0..{u.rows - 1}) got {u.low}..{u.high} from {_source_text(u.feeds)}"
        for u in past
    )
    inputs = list(dict.fromkeys(s[0] for u in uses for s in u.feeds))
    drawn = "; ".join(f"{n!r} {range_text(vr)} ({source})" for n in inputs for vr, source in [_range_source(spec, n, sizes)])
    fits, ranges = [], {}
    for n in inputs:
        fits_n, ranges[n] = _fitting(spec, n, [u for u in uses if any(s[0] == n for s in u.feeds)], sizes)
        fits.append(fits_n)
    untraced = [u for u in past if not u.feeds]
    if untraced:
        fits.append(
            f"the tables not traced to an input accept 0..{min(u.rows for u in untraced) - 1} together "
            f"(the integer inputs held {_values_text(spec, values, sizes)})"
        )
    tables = len({u.name for u in past}), len({u.name for u in uses})  # tables, not lookups (trial 30, F11)
    return ModelSpecError(
        f"the model indexes {tables[0]} of the {tables[1]} tables it looked up past their rows: {said} ({torch_said}). "
        f"The indices come from draws of {drawn or 'no traced input'}. The range that fits every table an input feeds: "
        + "; ".join(fits),
        hint="give each input that range: " + (_fix(spec, ranges) if ranges else _generic_fix(spec)),
    )


def _fitting(spec: ModelSpec, name: str, fed: list[Use], sizes: Mapping[str, int]) -> tuple[str, ValueRange]:
    """The range of input ``name`` that fits every table it feeds (``fed``), in words, and the range:
    ``max(0, low)..rows-1`` of its smallest table; one per position of its last axis when its
    columns feed tables of their own (a tabular input: each column up to its own table's last row,
    a column that feeds none keeps its range)."""
    t = next(t for t in spec.inputs if t.name == name)
    vr, _ = _range_source(spec, name, sizes)
    smallest = min(fed, key=lambda u: u.rows)
    width = t.shape[-1] if t.shape and isinstance(t.shape[-1], int) else None
    if width is None or all(s[1] is None for u in fed for s in u.feeds):
        low = min(max(0, overall(vr)[0]), smallest.rows - 1)
        return (
            f"{name!r} {low}..{smallest.rows - 1} (it feeds {len(fed)} table{'s' if len(fed) > 1 else ''}; the smallest, "
            f"{smallest.name!r}, has {smallest.rows} rows)"
        ), (low, smallest.rows - 1)
    lo, hi = (np.broadcast_to(b, (width,)) for b in range_bounds(vr))
    pairs, said = [], []
    for j in range(width):
        tables = [u for u in fed if (name, j) in u.feeds or (name, None) in u.feeds]  # an ambiguous one: each it may be
        if not tables:
            pairs.append((int(lo[j]), int(hi[j])))
            continue
        least = min(tables, key=lambda u: u.rows)
        pairs.append((min(max(0, int(lo[j])), least.rows - 1), least.rows - 1))  # a low past the rows too: the last row
        said.append(f"{j}: {pairs[-1][0]}..{pairs[-1][1]} ({least.name!r}, {least.rows} rows)")
    return f"{name!r} per position of its last axis, {', '.join(said)}", tuple(pairs)


def _source_text(feeds: tuple[Source, ...]) -> str:
    """Where a lookup's indices came from (:attr:`Use.feeds`): one source, several the runs could not
    tell apart (each is then fitted to the table), or none."""
    if not feeds:
        return "an integer input it was not traced to"
    texts = []
    for name in dict.fromkeys(n for n, _ in feeds):
        positions = [p for n, p in feeds if n == name and p is not None]
        at = f" at position {' or '.join(map(str, positions))} of its last axis" if positions else ""
        texts.append(f"input {name!r}{at}")
    if len(feeds) == 1:
        return texts[0]
    return f"{' or '.join(texts)} (the runs could not tell which: they held the same values in each; the range given fits each)"


def _values_text(spec: ModelSpec, values: dict[str, tuple[int, int]], sizes: Mapping[str, int]) -> str:
    parts = []
    for n, (lo, hi) in values.items():
        vr, source = _range_source(spec, n, sizes)
        parts.append(f"{n!r} {lo}..{hi} ({range_text(vr)} is {source})")
    return "; ".join(parts)


def index_uses(module: Any, spec: ModelSpec, inputs: dict[str, Any]) -> dict[str, list[Use]] | None:
    """Each integer input of ``spec`` -> the table lookups the eager ``module`` makes with it, whole or
    by a position of its last axis, in one run on ``inputs`` (name -> numpy array;
    :func:`builders.model.lookups.attribution.attributed`): the build records the tables and their rows
    (``value_ranges``' ``tables`` and ``rows``) so that a warning about values outside an input's
    range explains table lookups only for an input that is one, and values past a table are refused
    before they are sent. An input found indexing none gets ``[]``.

    Returns:
        ``None`` when it cannot be told: a scripted model (whose calls are not seen), or a run that failed.
    """
    import torch

    ints = [t.name for t in spec.inputs if np.issubdtype(np.asarray(inputs[t.name]).dtype, np.integer)]
    found: dict[str, list[Use]] = {n: [] for n in ints}
    if not ints:
        return found
    tensors = {t.name: torch.from_numpy(np.asarray(inputs[t.name])) for t in spec.inputs}
    seen = attributed(module, spec, [tensors], ints)  # a column told apart from one equal to it (trial 30, F2)
    if seen is None:
        return None  # not known
    for u in seen[0]:
        if u.source is not None:
            found[u.source[0]].append(u)
    return found
