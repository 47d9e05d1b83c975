"""An integer input's range too wide for a table the model indexes, refused before any export.

An input's ``value_range`` (``--input ids:int64:8:0..1000``, a spec file's, the default) is what
every verification draw, reference batch, warmup file and client request takes values from; a
value past a table's rows makes the eager model (and every export of it) fail on it. A random draw
finds that only by chance, so :func:`refuse_ranges_past_tables` runs the eager model twice before
anything is exported, every integer input at the low end of its range and then at the high end
(per position of its last axis for a per-position range; a bound naming a dynamic axis at the
export's size), and sees every table lookup (:func:`builders.model.lookups.probe.probe`; when the ends
cannot tell which column fed a table, a few runs more that can: :mod:`builders.model.lookups.attribution`): one
refusal naming every table indexed past its rows, the input (or position) that fed it and the
range to give instead (trial 23, T23-1: an ``nn.EmbeddingBag(1000)`` given ``0..1000`` exported
every format, then failed on each with torch's "Index 3 of input takes value 1000").
"""

from __future__ import annotations

from typing import Any

import numpy as np

from builders.model.lookups.attribution import attributed, range_ends
from builders.model.lookups.index_ranges import diagnose, explain
from builders.model.lookups.probe import Use, looks_like_index_error
from builders.model.spec import ModelSpec

#: What found the values, in the refusal's words.
CHECKED = "checked before any export, by running the model on each integer input's lowest and highest values"


def _merged(uses: list[Use]) -> list[Use]:
    """``uses`` of one table from one source (or the same candidates) merged into one (the smallest
    low, the largest high), in first-seen order."""
    merged: dict[tuple[str, Any, Any], Use] = {}
    for u in uses:
        key = (u.name, u.source, u.candidates)
        if key in merged:
            m = merged[key]
            m.low, m.high = min(m.low, u.low), max(m.high, u.high)
        else:
            merged[key] = Use(u.name, u.kind, u.rows, u.low, u.high, u.source, u.candidates)
    return list(merged.values())


def refuse_ranges_past_tables(module: Any, spec: ModelSpec) -> None:
    """Refuse integer input ranges that index a table of ``module`` past its rows (module docstring).

    A run that fails for another reason at the ends proves nothing here: the build's own runs say
    what it is. A scripted model (whose lookups are not seen) is refused when a run at the ends
    raises torch's index error.

    Raises:
        ModelSpecError: every table indexed past its rows, what fed it and the range to give
            (:func:`builders.model.lookups.index_ranges.explain`).
    """
    import torch

    ends = range_ends(spec)
    if ends is None or module is None:
        return
    ints = [t.name for t in spec.inputs if np.issubdtype(ends[0][t.name].dtype, np.integer)]
    tensors = [{t.name: torch.from_numpy(np.ascontiguousarray(end[t.name])) for t in spec.inputs} for end in ends]
    seen = attributed(module, spec, tensors, ints)  # each lookup's source told apart (trial 30, F2)
    if seen is None:  # not seen: each end is run as it is
        for inputs_, given_ in zip(ends, tensors):
            _refuse_scripted(module, spec, inputs_, given_)
        return
    uses = [u for run in seen for u in run]
    both = {n: np.concatenate([ends[0][n], ends[1][n]]) for n in ends[0]}
    found = explain(spec, both, _merged(uses), CHECKED, held="the range's ends gave it")
    if found is not None:
        raise found


def refuse_sample_past_tables(module: Any, spec: ModelSpec, sample: dict[str, np.ndarray] | None, path: Any) -> None:
    """Refuse a ``--sample`` whose integer values index a table of ``module`` past its rows, before any export: the
    rule :func:`refuse_ranges_past_tables` applies to each range's ends, run on the user's own inputs (trial 31, F15:
    ``country`` 99 for an ``nn.Embedding(50)`` passed ``load_sample``'s size and row checks, both formats exported,
    and the build ended "every export failed"; clients refuse such a file before sending it).

    Raises:
        ModelSpecError: the table, the values the sample holds and what the table accepts
            (:func:`builders.model.lookups.index_ranges.explain`).
    """
    import torch

    if module is None or not sample:
        return
    ints = [t.name for t in spec.inputs if np.issubdtype(np.asarray(sample[t.name]).dtype, np.integer)]
    if not ints:
        return
    tensors = {t.name: torch.from_numpy(np.ascontiguousarray(sample[t.name])) for t in spec.inputs}
    seen = attributed(module, spec, [tensors], ints)
    if seen is None:  # lookups not seen (a scripted model): torch's own index error on the sample
        _refuse_scripted(module, spec, sample, tensors)
        return
    said = f"checked before any export, by running the model on --sample {path}; clients refuse such a file"
    found = explain(spec, sample, seen[0], said, held=f"--sample {path} holds")
    if found is not None:
        raise found


def _refuse_scripted(module: Any, spec: ModelSpec, inputs: dict[str, np.ndarray], tensors: dict[str, Any]) -> None:
    """For a model whose lookups are not seen: run it at these ends; torch's index error is refused
    (:func:`builders.model.lookups.index_ranges.diagnose`), any other failure left to the build's own runs."""
    import torch

    try:
        with torch.no_grad():
            module(*(tensors[t.name] for t in spec.inputs))
    except Exception as e:  # noqa: BLE001 - only an index error is this check's
        if looks_like_index_error(e) and (found := diagnose(module, spec, inputs, e)) is not None:
            raise found from None
