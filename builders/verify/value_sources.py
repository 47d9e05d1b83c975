"""The values a build verified each integer input with, and where that range came from.

An integer input without a ``value_range`` is drawn in
:data:`builders.model.value_ranges.DEFAULT_INT_RANGE` by verification (the one rule:
:func:`builders.model.range_source.input_range`), and clients, perf and
warmup send the same values; for a ``lengths`` input of valid samples (1000..16000) that means
the model was only verified on near-empty clips. The build records every integer input's range
with its source in the manifest (``value_ranges``), and its summary says them, advising a real
range where the default was used (trial 12, F17).
"""

from __future__ import annotations

from typing import Any

from builders.model.lookups.index_ranges import index_uses
from builders.model.lookups.probe import Use
from builders.model.range_source import DEFAULT_SOURCE, InputRange, default_words
from builders.model.spec import ModelSpec
from builders.model.value_ranges import range_axes, range_text
from builders.verify.input_draws import describe_draws

__all__ = ["DEFAULT_SOURCE", "InputRange", "bool_lines", "input_ranges", "range_lines"]


def input_ranges(spec: ModelSpec, origin: str, module: Any = None) -> dict[str, InputRange]:
    """Integer input (without a domain, whose values the domain sets) -> its :class:`InputRange`,
    as :meth:`builders.model.tensor.TensorSpec.input_range` decides it: the spec's ``value_range``
    from ``origin``, else the default; with the eager ``module``, the embedding tables it indexes
    and the rows of the smallest (:func:`builders.model.lookups.index_ranges.index_uses` on the export's
    example inputs; ``None`` without one)."""
    ranges = {t.name: r for t in spec.inputs if (r := t.input_range(origin)) is not None}
    found = index_uses(module, spec, spec.export_inputs()) if module is not None and ranges else None
    if found is None:
        return ranges
    shapes = {t.name: t.shape for t in spec.inputs}
    return {
        n: r.model_copy(
            update={
                "tables": list(dict.fromkeys(u.name for u in found.get(n, []))),
                "rows": table_rows(found.get(n, []), shapes[n]),
            }
        )
        for n, r in ranges.items()
    }


def table_rows(uses: list[Use], shape: tuple[Any, ...]) -> int | list[int | None] | None:
    """The rows of the smallest table an input's lookups ``uses`` index (:attr:`InputRange.rows`): one
    number when the whole input indexes them, one per position of its fixed last axis (``shape``'s)
    when its columns feed tables of their own (``None``: a position that feeds none); ``None``: no table."""
    if not uses:
        return None
    width = shape[-1] if shape and isinstance(shape[-1], int) else None
    if width is None or all(u.source is None or u.source[1] is None for u in uses):
        return min(u.rows for u in uses)
    per = [[u.rows for u in uses if u.source is not None and u.source[1] in (j, None)] for j in range(width)]
    return [min(r) if r else None for r in per]


def range_lines(ranges: dict[str, InputRange], spec: ModelSpec) -> list[str]:
    """One line per integer input for the build's summary: its range and source, and for a
    default range what to give instead (the ``--input`` flag and the spec file's key)."""
    lines = []
    shapes = {t.name: t for t in spec.inputs}
    for name, r in ranges.items():
        values = range_text(r.value_range)  # type: ignore[arg-type]
        axes = range_axes(r.value_range)  # type: ignore[arg-type]
        values += f" ({', '.join(axes)}: the size of that axis in the same request)" if axes else ""
        if r.source != DEFAULT_SOURCE:
            lines.append(f"integer input {name!r}: verified with values {values} (value_range from {r.source})")
            continue
        t = shapes.get(name)
        # the table it indexes, when the build found one: its rows are the range (trial 23, T23-13)
        fill = f"0..{r.rows - 1}" if isinstance(r.rows, int) else "LOW..HIGH"
        table = f" (it indexes {', '.join(map(repr, r.tables or []))}, of {r.rows} rows)" if isinstance(r.rows, int) else ""
        flag = f"--input {name}:{t.dtype}:{','.join(map(str, t.shape))}:{fill}" if t else f"--input NAME:DTYPE:SHAPE:{fill}"
        pair = f"[0, {r.rows - 1}]" if isinstance(r.rows, int) else "[LOW, HIGH]"
        lines.append(
            f"integer input {name!r}: no value_range given: verified with values {values} ({default_words(t.dtype if t else '', r.value_range)}), and clients, "
            f"perf and warmup send the same -> give the values it really takes{table}: {flag}, or "
            f'"value_range": {pair} for it in the spec file'
        )
    return lines


def bool_lines(spec: ModelSpec) -> list[str]:
    """One line per bool input without a ``domain`` for the build's summary (trial 20, T20-12: a padding mask given
    in a spec file without ``"domain": "mask"`` was verified on all-True and all-False rows, its reference data all
    True, so ``clients check`` never sent a padded step, and nothing said so): the values each verification draw
    gives it (:func:`builders.verify.input_draws.describe_draws`), what is sent, and how to declare a mask."""
    draws = describe_draws(spec)
    lines = []
    for t in spec.inputs:
        if t.dtype != "bool" or t.domain is not None:
            continue
        given: dict[str, list[str]] = {}
        for draw, per_input in draws.items():
            given.setdefault(per_input[t.name], []).append(draw)
        values = "; ".join(f"{v} ({', '.join(d)})" for v, d in given.items())
        flag = f"--input {t.name}:bool:{','.join(map(str, t.shape))}:mask"
        lines.append(
            f"bool input {t.name!r}: no domain given: verified with {values}; the reference data (what clients check "
            f"sends) and the inputs clients and triton-perf generate are all True, so no False is ever checked on the "
            f'server -> if it is a padding mask (a True in every row), give "domain": "mask" for it in the spec file, '
            f"or {flag}"
        )
    return lines
