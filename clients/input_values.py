"""A user's input values against the build's spec: one rule for every path that sends them.

The build verified an integer input on values drawn from its ``value_range`` (inclusive, one
range or one per position of the last axis: :mod:`builders.model.value_ranges`; the
default :data:`~builders.model.tensor.DEFAULT_INT_RANGE` when the spec gives none; the range the
build recorded, :func:`builders.model.range_source.input_range`) and a domain
input (a ``mask``) on values that respect it (:mod:`builders.model.domains`). A user's own values
(``clients infer --input-data``, ``triton-perf sweep --input-data``) are checked by
:func:`check_values`, one rule for both ends of the range:

- a value outside the verified range (of its position), below it or above it, is sent with a
  warning naming the input, the values found (and the positions, for a per-position range), the
  verified range and what to do. It is not refused: the range is what the build drew from, not
  always all the model accepts. An index past a table the model indexes is refused
  by the server (:func:`clients.infer.run_requests` says so), but an index below 0 is not always:
  ONNX Runtime's Gather reads ``-1`` as the last row where eager PyTorch refuses it (trial 11 F7);
- a value at or past the rows of a table the build found the input indexing (the manifest's
  ``value_ranges``' ``tables`` and ``rows``) is refused before anything is sent, and a sweep's
  ``--input-data`` before its server starts (:func:`past_table`, trial 23 T23-6): the server would
  refuse every request that holds it;
- a value that breaks the input's domain (a mask row with no 1) is refused: the model's outputs
  for it are undefined.

Generated inputs (``clients infer`` without a file, cold starts, perf_analyzer's generated data)
are drawn from these ranges and domains, so they need no check.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping, Sequence

import numpy as np

from builders.model.domains import DOMAINS, domain_problem
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from builders.model.value_ranges import ValueRange, overall, per_position, range_axes, range_bounds, range_text
from core.errors import ClientError, ToolkitError

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Verified:
    """The range the build drew an integer input's values from.

    Attributes:
        value_range: Inclusive ``(low, high)``, or one per position of the last axis
            (:mod:`builders.model.value_ranges`).
        source: Where it came from, in words (``"its value_range"``).
        tables: The embedding tables the build found the input indexing (``()``: none, so no table
            lookup to explain); ``None``: not known (a scripted model, a build before this was recorded).
        rows: The rows of the smallest of those tables, one per position of the last axis where its
            columns feed tables of their own (``None``: a position that feeds none); ``None``: not known.
    """

    value_range: ValueRange
    source: str
    tables: tuple[str, ...] | None = None
    rows: int | tuple[int | None, ...] | None = None

    @property
    def text(self) -> str:
        """``"0..3"``, or ``"0..4,0..11,0..29"`` per position."""
        return range_text(self.value_range)


def verified_range(t: TensorSpec) -> Verified | None:
    """The range the build drew integer input ``t``'s values from and its source in words, or
    ``None`` for an input that is not an integer or has a domain (which says its values): what
    :meth:`builders.model.tensor.TensorSpec.input_range` decides, the build's recorded range for a
    spec read back from a build."""
    r = t.input_range()  # the one rule; the build's recorded range for a spec read back from a build
    if r is None:
        return None
    tables = tuple(r.tables) if r.tables is not None else None
    rows = tuple(r.rows) if isinstance(r.rows, list) else r.rows
    if r.default:
        return Verified(r.range, "the default range: its spec gives none", tables, rows)
    each = ", one range per position of the last axis" if per_position(r.range) else ""
    return Verified(r.range, f"its value_range{each}", tables, rows)


def past_table(t: TensorSpec, values: Sequence[np.ndarray], where: str) -> tuple[str, str] | None:
    """Why integer input ``t``'s ``values`` cannot be sent, and what to send: a value at or past the
    rows of a table the build found it indexing (:attr:`Verified.rows`, per position where its columns
    feed tables of their own), which the server refuses (ONNX Runtime's Gather, torch's embedding);
    ``None`` when none is, or the tables are not known (a build before they were recorded, a scripted
    model). A value below 0 is not one: ONNX Runtime reads ``-1`` as the last row (the range's warning says so)."""
    verified = verified_range(t)
    if verified is None or verified.rows is None or not verified.tables:
        return None
    arrays = [np.asarray(a) for a in values if np.asarray(a).size and np.issubdtype(np.asarray(a).dtype, np.integer)]
    limits: list[tuple[int | None, int]]
    if isinstance(verified.rows, int):
        limits = [(None, verified.rows)]
    else:
        limits = [(j, r) for j, r in enumerate(verified.rows) if r is not None]
    said, within = [], []
    for j, rows in limits:
        cols = [a if j is None else a[..., j] for a in arrays if j is None or (a.ndim and a.shape[-1] > j)]
        past = sum(int((c >= rows).sum()) for c in cols)
        at = "" if j is None else f" at position {j} of its last axis"
        within.append(f"0..{rows - 1}{at}")
        if past:
            top = max(int(c.max()) for c in cols)
            said.append(f"{past} of its values{at} are {rows} or more (up to {top}), past a table of {rows} rows (0..{rows - 1})")
    if not said:
        return None
    low, high = min(int(a.min()) for a in arrays), max(int(a.max()) for a in arrays)
    return (
        f"{where}: an integer input holds an index past a table the model indexes: input {t.name!r} holds {low}..{high}; "
        f"{'; '.join(said)} (the build found it indexing {', '.join(map(repr, verified.tables))}); the server refuses "
        f"such a request, so nothing was sent",
        f"send values within {', '.join(within)}; the build verified {t.name!r} {verified.text} ({verified.source})",
    )


@dataclasses.dataclass(frozen=True)
class OutsideRange:
    """An integer input's values outside the range the build verified.

    Attributes:
        name: The input (as served).
        low: The smallest value found.
        high: The largest value found.
        below: How many values are below the verified range (of their position).
        above: How many values are above it.
        size: How many values there are.
        verified: The verified range and its source (:func:`verified_range`).
        flag: The ``--input`` flag that gives the input a range, with ``LOW..HIGH`` to fill in.
        positions: For a per-position range, each position of the last axis with values outside
            its own range, in words (``"position 1 holds 0..15 (verified 0..11)"``).
        example: For a range whose bound names an axis, the first value outside it with its
            request's sizes (``"20000 where time=12000 (range 1..12000)"``); ``""`` otherwise.
    """

    name: str
    low: int
    high: int
    below: int
    above: int
    size: int
    verified: Verified
    flag: str
    positions: tuple[str, ...] = ()
    example: str = ""

    def line(self, where: str) -> str:
        """The warning: ``where`` names the values' source (a file)."""
        if range_axes(self.verified.value_range):
            return self._axis_line(where)
        lo, hi = overall(self.verified.value_range)
        counts = ", ".join(f"{n} {side}" for n, side in ((self.below, f"below {lo}"), (self.above, f"above {hi}")) if n)
        if self.positions:
            counts = ", ".join(f"{n} {side}" for n, side in ((self.below, "below"), (self.above, "above")) if n)
            counts = f"{'; '.join(self.positions)}: {counts} their position's range"
        text = self.verified.text
        return (
            f"input {self.name!r} from {where} holds {self.low}..{self.high}, outside the build's verified range "
            f"{text} ({self.verified.source}): {counts} of its {self.size} values. The build never ran the model on such values, "
            f"so nothing checked the answers to them{self._lookups()} -> send values within {text}, or rebuild with the range the model accepts "
            f'({self.flag}, or "value_range" in the spec file)'
        )

    def _lookups(self) -> str:
        """What a value outside the range does to a table lookup, for an index input only: the tables the
        build found it indexing, or, where that is not known, on condition that the model indexes one."""
        tables = self.verified.tables
        if tables == ():
            return ""
        said = (
            "a value below 0 is no row: eager PyTorch refuses it and ONNX Runtime's Gather reads it from the table's "
            "end; one past the table is refused by the server"
        )
        if tables is None:
            return f" (if the model indexes a table with them, {said})"
        return f" (the model indexes {', '.join(map(repr, tables))} with them: {said})"

    def _axis_line(self, where: str) -> str:
        """:meth:`line` of a range whose bound names a dynamic axis (a ``lengths`` input ``1..time``): the
        bound is that axis's size in the same request, which the values exceeded (or fell below)."""
        axes = ", ".join(range_axes(self.verified.value_range))
        counts = ", ".join(f"{n} {side}" for n, side in ((self.below, "below"), (self.above, "above")) if n)
        return (
            f"input {self.name!r} from {where} holds {self.low}..{self.high}: {counts} the build's verified range "
            f"{self.verified.text} ({self.verified.source}; {axes}: the size of that axis in the same request) of its "
            f"{self.size} values, e.g. {self.example}. The build never ran the model on such values, so nothing checked "
            f"the answers to them -> send values within {self.verified.text} of each request's own sizes"
        )


def outside_range(
    t: TensorSpec, values: Sequence[np.ndarray], sizes: Sequence[Mapping[str, int]] | None = None
) -> OutsideRange | None:
    """What of ``values`` (one input's arrays) lies outside ``t``'s verified range, at either end
    (per position of the last axis where the range gives one each: :meth:`TensorSpec.bounds`);
    ``None`` when all lie within, or for an input with no verified range (:func:`verified_range`)
    or non-integer values (the dtype check refuses those).

    Args:
        t: The input's spec.
        values: Its arrays (one per request or file entry).
        sizes: Each array's request's dynamic-axis sizes (:meth:`builders.model.spec.ModelSpec.sizes_of`),
            for a range bound that names an axis; an array whose sizes lack that axis is not checked.
    """
    verified = verified_range(t)
    axes = range_axes(verified.value_range) if verified is not None else []
    given = list(sizes or ())
    pairs = [(np.asarray(v), dict(given[i]) if i < len(given) else {}) for i, v in enumerate(values)]
    pairs = [(a, s) for a, s in pairs if a.size and np.issubdtype(a.dtype, np.integer) and all(x in s for x in axes)]
    arrays = [a for a, _ in pairs]
    if verified is None or not arrays:
        return None
    bounds = []
    for a, s in pairs:
        lo, hi = range_bounds(verified.value_range, s)
        if lo.ndim and a.shape[-1:] != lo.shape:  # another last axis: the shape check says so
            lo, hi = (np.asarray(v) for v in overall(verified.value_range, s))
        bounds.append((lo, hi))
    below = sum(int((a < lo).sum()) for a, (lo, hi) in zip(arrays, bounds))
    above = sum(int((a > hi).sum()) for a, (lo, hi) in zip(arrays, bounds))
    if not below and not above:
        return None
    example = ""
    if axes:  # the first value past its request's bound, with that request's sizes
        i = next(i for i, (a, (lo, hi)) in enumerate(zip(arrays, bounds)) if ((a < lo) | (a > hi)).any())
        a, (lo, hi) = arrays[i], bounds[i]
        v = int(a[(a < lo) | (a > hi)].reshape(-1)[0])
        example = f"{v} where {', '.join(f'{x}={pairs[i][1][x]}' for x in axes)} (range {int(lo)}..{int(hi)})"
    lo, hi = bounds[0]
    positions = []
    for j in range(lo.size if lo.ndim else 0):
        col_lo, col_hi = min(int(a[..., j].min()) for a in arrays), max(int(a[..., j].max()) for a in arrays)
        if col_lo < lo[j] or col_hi > hi[j]:
            positions.append(f"position {j} holds {col_lo}..{col_hi} (verified {lo[j]}..{hi[j]})")
    shape = ",".join(str(d) for d in t.shape) or "''"
    fill = f"LOW..HIGH,... (one per position, verified {verified.text})" if positions else "LOW..HIGH"
    return OutsideRange(
        t.name,
        min(int(a.min()) for a in arrays),
        max(int(a.max()) for a in arrays),
        below,
        above,
        sum(a.size for a in arrays),
        verified,
        f"--input {t.name}:{t.dtype}:{shape}:{fill}",
        tuple(positions),
        example,
    )


def check_values(
    where: str, spec: ModelSpec | None, arrays: Mapping[str, Sequence[np.ndarray]], *, error: type[ToolkitError] = ClientError
) -> list[OutsideRange]:
    """Check a user's input values against the build's spec by the module's rule: refuse a
    domain break, warn (logged) for values outside an integer input's verified range at either end.

    Args:
        where: The values' source in words (the file's path).
        spec: The build's spec under served names; ``None``: nothing to check against.
        arrays: Input name -> its arrays (batch axis first; several for a file of entries of
            different shapes). Inputs the spec does not name are left to the config checks.
        error: The error class to raise (``PerfError`` for ``triton-perf``).

    Returns:
        The inputs with values outside their verified range (each also logged as a warning).

    Raises:
        ClientError: (or ``error``) an input that breaks its domain, naming it, the rows and
            what the domain asks.
    """
    found = []
    entries = max((len(v) for v in arrays.values()), default=0)  # entry k of each input is one request
    sizes = [spec.sizes_of({n: np.shape(v[k]) for n, v in arrays.items() if k < len(v)}) for k in range(entries)] if spec else []
    for t in spec.inputs if spec is not None else ():
        if t.name not in arrays:
            continue
        for a in arrays[t.name]:
            problem = domain_problem(t.domain, np.asarray(a), per_sample_axis=len(t.shape) > 0)
            if problem is not None:
                raise error(
                    f"{where}: input {t.name!r} {problem}; the build's spec gives it the domain {t.domain!r} "
                    f"({DOMAINS[t.domain or '']}), and the model's outputs for such a row are undefined",
                    hint=f"give {t.name!r} what its domain takes: {DOMAINS[t.domain or '']}",
                )
        refused = past_table(t, arrays[t.name], where)
        if refused is not None:  # the server would refuse it: said once, before any server starts (trial 23, T23-6)
            raise error(refused[0], hint=refused[1])
        outside = outside_range(t, arrays[t.name], sizes)
        if outside is not None:
            log.warning("%s", outside.line(where))
            found.append(outside)
    return found
