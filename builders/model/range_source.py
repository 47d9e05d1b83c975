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
- Else :data:`builders.model.value_ranges.DEFAULT_INT_RANGE`, from :data:`DEFAULT_SOURCE`.

Verification draws, the export's example inputs, reference and warmup data (through
:meth:`builders.model.tensor.TensorSpec.draw` and ``bounds``), the manifest's record
(:func:`builders.verify.value_sources.input_ranges`), ``clients infer``'s generated requests and
checks, and the sweep's generated ``--input-data`` (:func:`clients.request_ranges.request_range`) all call it.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, StrictInt, StrictStr

from builders.model.value_ranges import DEFAULT_INT_RANGE, ValueRange, per_position
from core import dtypes
from core.records import Record

#: :attr:`InputRange.source` of an input whose spec gives no range.
DEFAULT_SOURCE = "default"
#: :attr:`InputRange.source` of a spec's own ``value_range`` when the caller does not say where the spec came from.
SPEC_SOURCE = "the spec's value_range"


class InputRange(Record):
    """One integer input's values (what a build verified it with, and what is sent) and where their range came from."""

    value_range: (
        tuple[StrictInt | StrictStr, StrictInt | StrictStr] | list[tuple[StrictInt | StrictStr, StrictInt | StrictStr]]
    ) = Field(
        description="inclusive [low, high] of every value, or one [low, high] per position of the last axis; a bound "
        'may name a dynamic axis, its size in the same request ([1, "time"])'
    )
    source: str = Field(
        description=f"'{DEFAULT_SOURCE}' (the spec gives none: builders.model.value_ranges.DEFAULT_INT_RANGE), else the "
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
        return InputRange(value_range=DEFAULT_INT_RANGE, source=DEFAULT_SOURCE)
    given: Any = value_range
    vr = [tuple(p) for p in given] if per_position(value_range) else tuple(given)
    return InputRange(value_range=vr, source=source or SPEC_SOURCE)
