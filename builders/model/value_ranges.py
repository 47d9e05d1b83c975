"""An integer input's ``value_range``: one inclusive ``[low, high]`` for every value, or one per
position of the input's last axis (a tabular input whose columns index tables of their own).

Forms (the spec file's ``"value_range"``, ``--input NAME:DTYPE:SHAPE:RANGE``'s fourth field):

- ``[0, 999]`` / ``0..999``: every value of the input within ``0..999`` (token ids);
- ``[[0, 4], [0, 11], [0, 29]]`` / ``0..4,0..11,0..29``: position ``j`` of the last axis within
  its own pair (categorical columns with vocabularies of 5, 12 and 30). The last axis must then
  be a fixed size equal to the number of pairs (trial 11, F1: one range for six columns was
  either the smallest vocabulary, which verified only each table's first rows, or too wide for it).

A bound may name a dynamic axis instead of a number: ``[1, "time"]`` / ``1..time`` means "at most
the size of axis ``time`` in the same request" (a ``lengths`` input that counts a waveform's valid
samples, trial 12 F4). Such a range is concrete only at given axis sizes: every draw and check
resolves it there (:func:`at_sizes`), so a request at ``time=1000`` holds lengths within ``1..1000``.
The axis must be one of the spec's dynamic axes (:func:`axis_problem`, checked by the spec).

Every generated input (verification draws, the export's example inputs, reference and warmup
data, ``clients`` and ``triton-perf`` inputs) and every check of a user's values reads a range
through :func:`range_bounds` (low and high arrays that broadcast against a sample, batch axis
first) and draws through :func:`draw_integers`: one rule for both forms.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from core import dtypes
from core.errors import ModelSpecError
from core.names import close_names

#: One bound: an integer, or the name of a dynamic axis (its size in the same request).
Bound = int | str
#: One inclusive ``(low, high)`` for every value, or one per position of the last axis.
ValueRange = tuple[Bound, Bound] | tuple[tuple[Bound, Bound], ...]
#: Inclusive ``(low, high)`` of generated integer inputs whose spec gives no ``value_range``, for every integer dtype
#: but uint8 and int8 (their whole range): :func:`builders.model.range_source.default_range`, the one rule.
DEFAULT_INT_RANGE: tuple[int, int] = (0, 100)


def per_position(value_range: ValueRange | None) -> bool:
    """Whether ``value_range`` gives one pair per position of the last axis."""
    return bool(value_range) and not isinstance(value_range[0], (int, np.integer, str))  # type: ignore[index]


def _pairs(value_range: ValueRange) -> tuple[tuple[Bound, Bound], ...]:
    return value_range if per_position(value_range) else (value_range,)  # type: ignore[return-value]


def range_axes(value_range: ValueRange | None) -> list[str]:
    """The dynamic axes ``value_range``'s bounds name (``[1, "time"]`` -> ``["time"]``), in order."""
    names = [b for pair in _pairs(value_range) for b in pair if isinstance(b, str)] if value_range else []
    return list(dict.fromkeys(names))


def at_sizes(value_range: ValueRange | None, sizes: Mapping[str, int] | None) -> ValueRange | None:
    """``value_range`` with every bound that names an axis replaced by that axis's size in
    ``sizes`` (the same request's): the concrete range a draw or a check uses.

    Raises:
        ValueError: a bound names an axis ``sizes`` lacks (a caller that did not pass the request's sizes).
    """
    if not range_axes(value_range):
        return value_range
    missing = [a for a in range_axes(value_range) if a not in (sizes or {})]
    if missing:
        raise ValueError(f"value_range {range_text(value_range)} names axes {missing}; their sizes were not given")  # type: ignore[arg-type]
    known = dict(sizes or {})
    pairs = tuple((_at(lo, known), _at(hi, known)) for lo, hi in _pairs(value_range))  # type: ignore[arg-type]
    return pairs if per_position(value_range) else pairs[0]


def _at(bound: Bound, sizes: Mapping[str, int]) -> int:
    """``bound`` as a number: an axis name at its size in ``sizes``."""
    return int(sizes[bound]) if isinstance(bound, str) else int(bound)


#: The forms a ``value_range`` takes, said by every refusal of one that has none of them.
RANGE_FORMS = (
    '[low, high] of two integers or dynamic-axis names ([0, 999]; [1, "time"]: at most the size of axis time in '
    "the same request), or one such pair per position of the last axis ([[0, 4], [0, 11]])"
)
#: The advice for a bound that names no dynamic axis of the spec.
_AXIS_FORM = (
    'a bound may name a dynamic axis of the spec, its size in the same request: e.g. "value_range": '
    '[1, "time"] (--input lengths:int64:1:1..time) with "dynamic_axes": {"time": [1000, 8000, 16000]}'
)


def _renamed_advice(value_range: ValueRange, unknown: Sequence[str], axes: Mapping[str, tuple[int, int, int]]) -> str:
    """The advice for bounds ``unknown`` that name no axis of ``axes``: this range with each such name replaced by the
    spec's axis it likely meant (the closest, else the first), in both forms (trial 25, T25-14: the example was always
    ``[1, "time"]`` with ``"dynamic_axes": {"time": ...}``, the typo itself when the typo was ``time``)."""
    meant: dict[Bound, Bound] = {u: (close_names(u, list(axes), n=1) or sorted(axes))[0] for u in unknown}
    fixed = tuple((meant.get(lo, lo), meant.get(hi, hi)) for lo, hi in _pairs(value_range))
    fixed_range: ValueRange = fixed if per_position(value_range) else fixed[0]
    return (
        f"a bound names a dynamic axis of the spec ({', '.join(sorted(axes))}), its size in the same request: e.g. "
        f'"value_range": {range_json(fixed_range)} (--input NAME:DTYPE:SHAPE:{range_text(fixed_range)})'
    )


def require_axis_bounds(name: str, dtype: str, value_range: ValueRange | None, axes: Mapping[str, tuple[int, int, int]]) -> None:
    """Refuse input ``name``'s ``value_range`` when its axis bounds do not fit the spec's ``axes`` (:func:`axis_problem`).

    Raises:
        ModelSpecError: the input, what is wrong and what to change (the bound, the axis's range or the dtype).
    """
    problem = axis_problem(value_range, dtype, axes) if value_range else None
    if problem is not None:
        why, fix = problem
        raise ModelSpecError(f"input {name!r}: value_range {range_json(value_range)} {why}", hint=fix, flag="--input")  # type: ignore[arg-type]


def axis_problem(value_range: ValueRange | None, dtype: str, axes: Mapping[str, tuple[int, int, int]]) -> tuple[str, str] | None:
    """Why ``value_range``'s axis bounds do not fit the spec's dynamic ``axes`` (``{axis: (min,
    opt, max)}``) and what to change, or ``None``: each named axis must be one of them, and the
    range must hold ``low <= high`` within ``dtype`` at the axis's min and at its max (a bound is
    linear in the size, so every size between holds then). Break test B1/B2: the message said
    "low must be <= high" for a bound past the dtype, and the advice repeated the form."""
    unknown = [a for a in range_axes(value_range) if a not in axes]
    if unknown and not axes:
        why = f"names {unknown[0]!r} as a bound, but the spec declares no dynamic axis (a bound is an integer or a dynamic axis's name)"
        return why, _AXIS_FORM
    if unknown:
        near = close_names(unknown[0], list(axes), n=1)
        meant = f" (did you mean {near[0]!r}?)" if near else ""
        why = f"names {unknown[0]!r}, which is not one of the dynamic axes {', '.join(sorted(axes))}{meant}"
        return why, _renamed_advice(value_range, unknown, axes)  # type: ignore[arg-type]
    several = per_position(value_range)
    for which in (0, 2):
        sizes = {a: r[which] for a, r in axes.items()}
        for j, (bounds, pair) in enumerate(zip(_pairs(value_range), _pairs(at_sizes(value_range, sizes)))):  # type: ignore[arg-type]
            at = ", ".join(f"{a}={sizes[a]}" for a in range_axes(bounds))
            said = f"is [{pair[0]}, {pair[1]}]" + (f" at position {j} of the last axis" if several else "")
            said += f" at {at} ({'min' if which == 0 else 'max'})" if at else ""
            problem = _pair_problem(bounds, (int(pair[0]), int(pair[1])), dtype, axes)
            if problem is not None:
                return f"{said}: {problem[0]}", problem[1]
    return None


def _pair_problem(
    bounds: tuple[Bound, Bound], pair: tuple[int, int], dtype: str, axes: Mapping[str, tuple[int, int, int]]
) -> tuple[str, str] | None:
    """What is wrong with one pair whose ``bounds`` are ``pair`` at some axis sizes, and what to
    change: a bound past ``dtype`` (the bound, the axis's range or a wider dtype), else low > high."""
    info = np.iinfo(dtype)
    for side, bound, value in (("low", bounds[0], pair[0]), ("high", bounds[1], pair[1])):
        if info.min <= value <= info.max:
            continue
        big = value > info.max
        limit = int(info.max if big else info.min)
        why = f"{value} is {'past' if big else 'below'} {dtype}'s {'largest' if big else 'smallest'} value {limit}"
        fixes = []
        if isinstance(bound, str) and axes[bound][0] <= limit:
            lo, opt, _hi = axes[bound]
            fixes.append(f"lower {bound}'s max to {limit} (--dynamic-axis {bound}={lo},{min(opt, limit)},{limit})")
        elif not isinstance(bound, str):
            fixes.append(f"{'lower' if big else 'raise'} the {side} bound to {'<=' if big else '>='} {limit}")
        wider = [
            d for d in ("int16", "int32", "int64") if np.iinfo(d).min <= info.min and np.iinfo(d).max >= info.max and d != dtype
        ]
        if wider:
            fixes.append(f"give the input a wider dtype ({', '.join(wider[:-1]) + ' or ' * (len(wider) > 1) + wider[-1]})")
        return why, " or ".join(fixes) or f"keep the range within {dtype} ([{info.min}, {info.max}])"
    lo, hi = pair
    if lo <= hi:
        return None
    why = f"low {lo} > high {hi}"
    low, high = bounds
    if not isinstance(low, str) and not isinstance(high, str):
        return why, f"give the smaller bound first: [{hi}, {lo}] ({hi}..{lo} on the command line)"
    if isinstance(high, str) and not isinstance(low, str):  # fails at the axis's min: the size grows from there
        amin, opt, amax = axes[high]
        raised = f"{low},{max(opt, low)},{max(amax, low)}"
        return (
            why,
            f"lower the low bound to <= {amin} ({high}'s min) or raise {high}'s min to >= {low} (--dynamic-axis {high}={raised})",
        )
    if isinstance(low, str) and not isinstance(high, str):  # must hold up to the axis's max
        amin, opt, amax = axes[low]
        lowered = f"{min(amin, high)},{min(opt, high)},{high}"
        return (
            why,
            f"raise the high bound to >= {amax} ({low}'s max) or lower {low}'s max to <= {high} (--dynamic-axis {low}={lowered})",
        )
    return why, (
        f"give the axes ranges where {low} <= {high} at their min and at their max (now {low} {list(axes[low])}, "  # type: ignore[index]
        f"{high} {list(axes[high])}), or an integer bound"  # type: ignore[index]
    )


def normal_range(name: str, dtype: str, shape: Sequence[int | str], value: Any) -> ValueRange | None:
    """``value`` (a spec's or a caller's ``value_range``: lists, tuples, numpy ints) as a
    :data:`ValueRange` of ints, checked.

    Args:
        name: The tensor, for messages.
        dtype: Its dtype name (the range is for integer inputs).
        shape: Its per-sample shape (a per-position range needs a fixed last axis of its length).
        value: ``None``, ``[low, high]`` or ``[[low, high], ...]``.

    Raises:
        ModelSpecError: a non-integer dtype, a pair that is not two integers or has low > high or
            leaves the dtype, a per-position range on a dynamic or missing last axis or of another
            length than it; one message each, with the flag and the spec-file form to give.
    """
    if value is None:
        return None
    if not dtypes.from_name(dtype).is_integer:
        raise ModelSpecError(
            f"tensor {name!r}: value_range is for integer inputs, but dtype is {dtype}",
            hint="drop value_range (floating inputs are drawn from N(0, 1))",
            flag="--input",
        )
    items = list(value) if isinstance(value, (list, tuple, np.ndarray)) else [value]
    nested = bool(items) and all(isinstance(v, (list, tuple, np.ndarray)) for v in items)
    pairs = [_pair(name, dtype, v, j) for j, v in enumerate(items)] if nested else [_pair(name, dtype, items, None)]
    if not nested:
        return pairs[0]
    last = shape[-1] if shape else None
    if not isinstance(last, int) or last != len(pairs):
        if last is None:
            where, fix = "has no per-sample axis", "give one [low, high] for every value"
        elif isinstance(last, str):
            where = f"has a dynamic last axis {last!r}"
            fix = "per-position ranges need a fixed last axis: give it a fixed size, or one [low, high] for every value"
        else:
            where = f"has {last} positions on its last axis"
            fix = f"give {last} ranges, one [low, high] per position in order, or one [low, high] for every value"
        raise ModelSpecError(
            f"tensor {name!r}: value_range gives {len(pairs)} ranges, one per position of the last axis, but the "
            f"input {where} (shape {list(shape)})",
            hint=f'{fix} (e.g. shape [3]: "value_range": [[0, 4], [0, 11], [0, 29]], --input {name}:{dtype}:3:0..4,0..11,0..29)',
            flag="--input",
        )
    return tuple(pairs)


def _pair(name: str, dtype: str, value: Any, position: int | None) -> tuple[int, int]:
    """One ``(low, high)`` of ``value``, checked (``position``: its place in a per-position range)."""
    at = f" at position {position} of the last axis" if position is not None else ""
    items = list(value)
    if len(items) != 2 or not all(_bound(v) for v in items):
        raise ModelSpecError(
            f"tensor {name!r}: value_range{at} is {_show(value)}, not [low, high] of two integers (or dynamic axis names)",
            hint=f"give {RANGE_FORMS}",
            flag="--input",
        )
    if any(isinstance(v, str) for v in items):  # the spec checks it against its axes (axis_problem)
        return tuple(v if isinstance(v, str) else int(v) for v in items)  # type: ignore[return-value]
    lo, hi = int(items[0]), int(items[1])
    problem = _pair_problem((lo, hi), (lo, hi), dtype, {})
    if problem is not None:
        raise ModelSpecError(f"tensor {name!r}: value_range{at} {[lo, hi]}: {problem[0]}", hint=problem[1], flag="--input")
    return lo, hi


def shape_problem(value: Any) -> str | None:
    """Why ``value`` (a spec file's ``value_range``, before any type is read) has none of the
    forms of :data:`RANGE_FORMS`, in one line, or ``None`` (break test B13: a malformed axis
    bound got one line per member of the record's union, blaming the valid ``"time"``)."""
    if value is None:
        return None
    items = list(value) if isinstance(value, (list, tuple)) else None
    pairs = items if items and all(isinstance(v, (list, tuple)) for v in items) else [items]
    if all(p is not None and len(p) == 2 and all(_bound(b) for b in p) for p in pairs):
        return None
    return f"{RANGE_FORMS}; found {_show(value)}"


def _bound(v: Any) -> bool:
    """Whether ``v`` is a bound: an integer (not a bool) or an axis name (an identifier)."""
    if isinstance(v, str):
        return v.isidentifier()
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _show(value: Any) -> str:
    try:
        return json.dumps(value)
    except TypeError:
        return repr(value)


def range_bounds(value_range: ValueRange, sizes: Mapping[str, int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Inclusive ``(low, high)`` as int64 arrays that broadcast against a sample (batch axis
    first): 0-d for one range, ``[n]`` (the last axis) per position. Axis bounds are the axes'
    ``sizes`` in the request (:func:`at_sizes`). Which range an input gets (its own, the build's,
    the default) is :func:`builders.model.range_source.input_range`'s to decide, never this one's.

    Raises:
        ValueError: no range (a caller that did not decide one).
    """
    if value_range is None:
        raise ValueError("no value range: decide it with builders.model.range_source.input_range")
    vr = at_sizes(value_range, sizes)
    a = np.asarray(vr, dtype=np.int64)
    return (a[..., 0], a[..., 1])


def draw_integers(
    value_range: ValueRange, shape: Sequence[int], rng: np.random.Generator, sizes: Mapping[str, int] | None = None
) -> np.ndarray:
    """Integers uniform within ``value_range`` (per position of the last axis where it gives
    one pair each; a bound that names an axis at its size in ``sizes``, the request's), of
    ``shape``, as int64: every generated integer input is drawn here."""
    lo, hi = range_bounds(value_range, sizes)
    if lo.ndim == 0:  # one range: the same stream as before per-position ranges (reference data, reuse keys)
        return rng.integers(int(lo), int(hi) + 1, size=tuple(shape))
    return rng.integers(lo, hi + 1, size=tuple(shape))


def overall(value_range: ValueRange, sizes: Mapping[str, int] | None = None) -> tuple[int, int]:
    """The smallest low and largest high of ``value_range`` (itself for one range; axis bounds at ``sizes``)."""
    lo, hi = range_bounds(value_range, sizes)
    return int(lo.min()), int(hi.max())


def zero_one(value_range: Any) -> bool:
    """Whether ``value_range`` is ``[0, 1]`` at every position: one ``[0, 1]``, or ``[0, 1]`` for
    each position of the last axis (what a mask or a 0/1 flag takes); ``False`` for ``None`` or
    anything that is not a range of either form (a mix such as ``[[0, 1], [0, 4]]`` is not)."""
    if value_range is None or range_axes(value_range):
        return False
    try:
        a = np.asarray(value_range, dtype=np.int64)
    except (TypeError, ValueError):
        return False
    if a.ndim not in (1, 2) or a.shape[-1] != 2 or not a.size:
        return False
    lo, hi = range_bounds(value_range)
    return bool((lo == 0).all() and (hi == 1).all())


def range_text(value_range: ValueRange) -> str:
    """The ``--input`` form: ``"0..999"``, ``"1..time"``, or ``"0..4,0..11,0..29"`` per position."""
    return ",".join(f"{lo}..{hi}" for lo, hi in _pairs(value_range))


def range_json(value_range: ValueRange) -> str:
    """The spec file's form: ``"[0, 999]"``, ``'[1, "time"]'`` or ``"[[0, 4], [0, 11], [0, 29]]"``."""
    pairs = [[b if isinstance(b, str) else int(b) for b in pair] for pair in _pairs(value_range)]
    return json.dumps(pairs if per_position(value_range) else pairs[0])


def range_words(value_range: ValueRange) -> str:
    """In words: ``"[0, 999]"``, ``"[1, time] (time: that axis's size in the same request)"``, or
    ``"[0, 4], [0, 11], [0, 29] (per position of the last axis)"``."""
    axes = range_axes(value_range)
    of = f" ({', '.join(axes)}: {'that axis' if len(axes) == 1 else 'each axis'}'s size in the same request)" if axes else ""
    if not per_position(value_range):
        lo, hi = _pairs(value_range)[0]
        return f"[{lo}, {hi}]{of}"
    return ", ".join(f"[{lo}, {hi}]" for lo, hi in _pairs(value_range)) + " (per position of the last axis)" + of


def parse_range_text(text: str) -> ValueRange | None:
    """The range of ``--input``'s fourth field (:func:`range_text`'s form), ``None`` when it is
    not one (a domain name, a typo)."""
    pairs: list[tuple[Bound, Bound]] = []
    for part in text.split(","):
        lo, sep, hi = part.strip().partition("..")
        low, high = _parse_bound(lo.strip()), _parse_bound(hi.strip())
        if not sep or low is None or high is None:
            return None
        pairs.append((low, high))
    return pairs[0] if len(pairs) == 1 else tuple(pairs)


def _parse_bound(text: str) -> Bound | None:
    """An integer, an axis name (an identifier), else ``None``."""
    if text.lstrip("-").isdigit():
        return int(text)
    return text if text.isidentifier() else None


def example_range(values: np.ndarray, shape: Sequence[int | str]) -> ValueRange | None:
    """The value range of an integer example input (``[batch, *shape]``): each position's own
    ``min..max`` when the last axis is fixed and its positions' ranges differ (a tabular input's
    columns, trial 11 F17), else the whole input's ``min..max``; ``None`` when it is empty."""
    if not values.size:
        return None
    whole = (int(values.min()), int(values.max()))
    if not shape or not isinstance(shape[-1], int) or shape[-1] < 2:
        return whole
    cols = values.reshape(-1, shape[-1])
    pairs = tuple((int(lo), int(hi)) for lo, hi in zip(cols.min(axis=0), cols.max(axis=0)))
    return whole if len(set(pairs)) == 1 else pairs
