"""Which value range an input's values are drawn from and checked against, and where that range
came from: one rule (:func:`input_range`) that every generator and every check reads.

- An input that is not an integer (floats are drawn from N(0, 1), bools are all true), or that has
  a domain (a ``mask``: its values are the domain's, :mod:`builders.model.domains`), gets none.
- An input read back from a build gets the range the build recorded for it (the manifest's
  ``value_ranges``: what it verified with), with the recorded source:
  :func:`builders.repository.view.with_ranges` puts it on the input
  (:attr:`builders.model.tensor.TensorSpec.recorded`), so that clients and the sweep draw and
  check what the build verified even when this toolkit's default differs from the build's.
- Else the spec's ``value_range``, from the spec (a spec file, ``--input`` flags, example inputs).
- Else the dtype's default (:func:`default_range`), from :data:`DEFAULT_SOURCE`: the whole range of a dtype whose
  every value is an obvious meaning (uint8: an image's pixels, 0..255; int8: -128..127), else
  :data:`builders.model.value_ranges.DEFAULT_INT_RANGE` (int16..int64: token ids, indices, where a wide draw is past
  a table's rows; trial 27, T27-1: a uint8 image input was verified and sent with pixels 0..100).

Verification draws, the export's example inputs, reference and warmup data (through
:meth:`builders.model.tensor.TensorSpec.draw` and ``bounds``), the manifest's record
(:func:`builders.verify.value_sources.input_ranges`), ``clients infer``'s generated requests and
checks, and the sweep's generated ``--input-data`` (:func:`clients.request_ranges.request_range`) all call it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import Field, StrictInt, StrictStr

from builders.model.value_ranges import DEFAULT_INT_RANGE, ValueRange, per_position
from core import dtypes
from core.records import Record

#: :attr:`InputRange.source` of an input whose spec gives no range.
DEFAULT_SOURCE = "default"
#: :attr:`InputRange.source` of a spec's own ``value_range`` when the caller does not say where the spec came from.
SPEC_SOURCE = "the spec's value_range"
#: Integer dtypes whose default range is their whole range (each value a pixel or a quantized level, no index).
WHOLE_RANGE_DTYPES = ("uint8", "int8")


def default_range(dtype: str) -> tuple[int, int]:
    """The inclusive ``(low, high)`` an integer input of ``dtype`` whose spec gives no range is drawn from: the
    whole range of a :data:`WHOLE_RANGE_DTYPES` dtype, else :data:`DEFAULT_INT_RANGE` (module docstring)."""
    if dtype in WHOLE_RANGE_DTYPES:
        info = np.iinfo(dtype)
        return int(info.min), int(info.max)
    return DEFAULT_INT_RANGE


def default_words(dtype: str, value_range: Any = None) -> str:
    """``"the default range for uint8: its whole range"`` / ``"the default range for int64, safe for token ids and
    indices"``: which default ``value_range`` (``None``: :func:`default_range`'s) is for ``dtype``; ``"the default
    range"`` for a range of neither kind (an older build's record) or no dtype."""
    if not dtype:
        return "the default range"
    given = tuple(value_range) if value_range is not None else default_range(dtype)
    if dtype in WHOLE_RANGE_DTYPES and given == default_range(dtype):
        return f"the default range for {dtype}: its whole range"
    if given == DEFAULT_INT_RANGE and dtype not in WHOLE_RANGE_DTYPES:
        return f"the default range for {dtype}, safe for token ids and indices"
    return "the default range"


class InputRange(Record):
    """One integer input's values (what a build verified it with, and what is sent) and where their range came from."""

    value_range: (
        tuple[StrictInt | StrictStr, StrictInt | StrictStr] | list[tuple[StrictInt | StrictStr, StrictInt | StrictStr]]
    ) = Field(
        description="inclusive [low, high] of every value, or one [low, high] per position of the last axis; a bound "
        'may name a dynamic axis, its size in the same request ([1, "time"])'
    )
    source: str = Field(
        description=f"'{DEFAULT_SOURCE}' (the spec gives none: the dtype's default, uint8 and int8 their whole range, "
        "other integers builders.model.value_ranges.DEFAULT_INT_RANGE), else the "
        "spec it came from: a spec file, --input flags, example_inputs or a built-in model's spec "
        "(builders.model.range_source.input_range decides both)"
    )
    tables: list[str] | None = Field(
        None,
        description="the embedding tables (nn.Embedding / nn.EmbeddingBag module names, or the weight of a functional "
        "F.embedding / F.embedding_bag) the build found this input "
        "indexing, whole or by a position of its last axis; []: none; null: not looked (a scripted model, a run that "
        "failed, a build before this was recorded)",
    )
    rows: int | list[int | None] | None = Field(
        None,
        description="the rows of the smallest table this input's values index (a value at or past it is past a table): "
        "one number, or one per position of its last axis when its columns feed tables of their own (null: a position "
        "that feeds none); null: none found or not known",
    )

    @property
    def default(self) -> bool:
        """Whether the range is the default one (the spec gives none)."""
        return self.source == DEFAULT_SOURCE

    @property
    def range(self) -> ValueRange:
        """:attr:`value_range` as a :data:`~builders.model.value_ranges.ValueRange` (pairs as tuples)."""
        vr: Any = self.value_range
        return tuple(tuple(p) for p in vr) if isinstance(vr, list) else tuple(vr)


def input_range(
    dtype: str,
    domain: str | None = None,
    value_range: ValueRange | None = None,
    source: str | None = None,
    recorded: InputRange | None = None,
) -> InputRange | None:
    """The range an input's values are drawn from and checked against, and its source (module docstring).

    Args:
        dtype: The input's dtype name (``"int64"``).
        domain: Its domain, or ``None``.
        value_range: Its spec's ``value_range``, or ``None``.
        source: Where the spec's ``value_range`` came from (its origin); ``None``: :data:`SPEC_SOURCE`.
        recorded: The build's record of the input (the manifest's ``value_ranges``), if read back from a build.

    Returns:
        ``None`` for an input that is not an integer or has a domain; else the range and its source.
    """
    if domain is not None or not dtypes.from_name(dtype).is_integer:
        return None
    if recorded is not None:
        return recorded
    if value_range is None:
        return InputRange(value_range=default_range(dtype), source=DEFAULT_SOURCE)
    given: Any = value_range
    vr = [tuple(p) for p in given] if per_position(value_range) else tuple(given)
    return InputRange(value_range=vr, source=source or SPEC_SOURCE)
