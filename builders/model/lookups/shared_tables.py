"""From ``example_inputs``: positions of an integer input that index one table get one range.

A spec made from the Python API's ``example_inputs`` gives an integer input the example's
``[min, max]``, per position of its last axis when the positions' ranges differ
(:func:`builders.model.value_ranges.example_range`): the README's rule, "each column its own", is for
a tabular input whose columns index tables of their own. For a bag of ids that all index one table
(8 ids into one ``nn.EmbeddingBag``), the positions' ranges differ only by sampling noise, and each
position was verified, warmed up and sent within its own draw's range (trial 23, T23-14: position 4
only within 236..941 of a 1000-row table). :func:`merge_shared_positions` looks at which tables each
position feeds (:func:`builders.model.lookups.index_ranges.index_uses`) and gives the positions that
feed the same tables the union of their ranges: still the example's own ``[min, max]`` over them,
as the README says example ranges are, not the table's ``0..rows-1`` (rows the example never held
may be reserved ones, a padding or out-of-vocabulary row, that the model is not meant to get).
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from builders.model.lookups.index_ranges import index_uses
from builders.model.lookups.probe import Use
from builders.model.spec import EXAMPLE_INPUTS, ModelSpec
from builders.model.tensor import TensorSpec
from builders.model.value_ranges import per_position, range_text

log = logging.getLogger(__name__)


def merge_shared_positions(module: Any, spec: ModelSpec) -> ModelSpec:
    """``spec`` with each per-position range of an integer input made from ``example_inputs`` merged
    over the positions that feed the same tables (module docstring); one range when they all do.
    ``spec`` itself when it is not from ``example_inputs``, no range is per position, or the model's
    lookups cannot be seen (a scripted model: the ranges stay as the example gave them). Each merge
    is logged (info)."""
    if spec.origin != EXAMPLE_INPUTS or not any(per_position(t.value_range) for t in spec.inputs):
        return spec
    found = index_uses(module, spec, spec.export_inputs())
    if found is None:
        return spec
    inputs = tuple(_merged(t, found.get(t.name, [])) for t in spec.inputs)
    return dataclasses.replace(spec, inputs=inputs) if inputs != spec.inputs else spec


def _merged(t: TensorSpec, uses: list[Use]) -> TensorSpec:
    """``t`` with its per-position range's positions that feed the same (non-empty) set of tables
    given the union of their pairs; one pair when every position ends up with the same one."""
    if not per_position(t.value_range) or not uses:
        return t
    pairs: list[tuple[Any, Any]] = list(t.value_range)  # type: ignore[arg-type]
    fed = [frozenset(u.name for u in uses if u.source is not None and u.source[1] in (j, None)) for j in range(len(pairs))]
    groups: dict[frozenset[str], list[int]] = {}
    for j, feeds in enumerate(fed):
        if feeds:
            groups.setdefault(feeds, []).append(j)
    merged = list(pairs)
    for positions in groups.values():
        union = (min(int(pairs[j][0]) for j in positions), max(int(pairs[j][1]) for j in positions))
        for j in positions:
            merged[j] = union
    vr: Any = merged[0] if len(set(merged)) == 1 else tuple(merged)
    if vr == t.value_range:
        return t
    tables = ", ".join(repr(n) for n in dict.fromkeys(u.name for u in uses))
    log.info(
        "integer input %r from example_inputs: %s instead of each position's own %s, since its positions index the same "
        "table (%s): the example's min..max over them",
        t.name,
        range_text(vr),
        range_text(t.value_range),  # type: ignore[arg-type]
        tables,
    )
    return dataclasses.replace(t, value_range=vr)
