"""Which input (or position of its last axis) feeds each table lookup, told apart over several runs.

:func:`builders.model.lookups.probe.probe` traces a lookup's indices to every integer input, or
position of one's last axis, that holds the same values in its run (:attr:`Use.candidates`). In one
run several can: at a range's low end every column of ``cats:int64:3:0..11`` holds 0 (trial 30, F2:
the first equal column was taken, so a 7-row table fed by position 2 was blamed on position 0 and
the advice failed twice before it was right). :func:`attributed` keeps, for each lookup (a table's
k-th lookup in a run), only the sources that held its indices in every run; while one is left
ambiguous, it runs the model on :func:`telling_runs`, each position of every integer input at its
range's low or high end by one bit of its own number, so that any two positions whose range is not
one value differ in some run. What is still ambiguous stays so (``source`` ``None``, the candidates
kept): the messages say so instead of guessing. An index computed from the input (``cats[:, 0] * 2``)
matches no source in some run: not traced.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from builders.model.lookups.probe import Source, Use, probe
from builders.model.spec import ModelSpec


def range_ends(spec: ModelSpec) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]] | None:
    """The export's example inputs with every integer input (one with a range: not a domain's)
    at the low end of its range, and at the high end; ``None`` when no input has a range."""
    ranged = [t for t in spec.inputs if t.input_range() is not None]
    if not ranged:
        return None
    base, sizes = spec.export_inputs(), spec.export_axis_sizes()
    ends: tuple[dict[str, np.ndarray], dict[str, np.ndarray]] = (dict(base), dict(base))
    for t in ranged:
        for end, inputs in zip(t.bounds(sizes), ends):
            inputs[t.name] = np.broadcast_to(np.asarray(end), base[t.name].shape).astype(base[t.name].dtype)
    return ends


def telling_runs(spec: ModelSpec, ints: list[str]) -> list[dict[str, np.ndarray]]:
    """Inputs that tell the positions of the integer inputs ``ints`` apart (module docstring): the
    positions of their last axes numbered across the inputs, run ``b`` holds each at its range's high
    end where bit ``b`` of its number is set, else at the low end."""
    ends = range_ends(spec)
    if ends is None:
        return []
    low, high = ends
    names = [n for n in ints if n in low and np.ndim(low[n]) >= 1]
    widths = [int(np.shape(low[n])[-1]) for n in names]
    total = sum(widths)
    if total < 2:
        return []
    runs = []
    for b in range(int(total - 1).bit_length()):
        run = dict(low)
        first = 0
        for n, w in zip(names, widths):
            at_high = ((np.arange(first, first + w) >> b) & 1).astype(bool)
            run[n] = np.where(at_high, high[n], low[n]).astype(low[n].dtype)
            first += w
        runs.append(run)
    return runs


def _keyed(uses: list[Use]) -> dict[tuple[str, int], Use]:
    """Each lookup of a run by (its table, how many of that table's lookups came before it)."""
    count: dict[str, int] = {}
    keyed = {}
    for u in uses:
        keyed[(u.name, count.get(u.name, 0))] = u
        count[u.name] = count.get(u.name, 0) + 1
    return keyed


def _common(runs: list[list[Use]]) -> dict[tuple[str, int], tuple[Source, ...]]:
    """Each lookup -> the sources that held its indices in every run that made it."""
    common: dict[tuple[str, int], tuple[Source, ...]] = {}
    for uses in runs:
        for key, u in _keyed(uses).items():
            kept = common.get(key, u.candidates)
            common[key] = tuple(c for c in kept if c in u.candidates)
    return common


def attributed(module: Any, spec: ModelSpec, runs: list[dict[str, Any]], ints: list[str]) -> list[list[Use]] | None:
    """The lookups of ``module`` in each of ``runs`` (name -> torch tensor; :func:`probe`), each
    lookup's source the one left over every run and, while one is ambiguous, the
    :func:`telling_runs` (module docstring); an ambiguous lookup keeps its candidates, ``source``
    ``None``. ``None`` when a run of ``runs`` cannot be seen (:func:`probe`); a telling run that
    cannot is left out."""
    import torch

    seen: list[list[Use]] = []
    for tensors in runs:
        uses = probe(module, spec, tensors, ints)
        if uses is None:
            return None
        seen.append(uses)
    common = _common(seen)
    if any(len(c) > 1 for c in common.values()):
        telling = [
            uses
            for inputs in telling_runs(spec, ints)
            if (uses := probe(module, spec, {n: torch.from_numpy(np.ascontiguousarray(a)) for n, a in inputs.items()}, ints))
            is not None
        ]
        common = _common(seen + telling)
    for uses in seen:
        for key, u in _keyed(uses).items():
            u.candidates = common[key]
            u.source = u.candidates[0] if len(u.candidates) == 1 else None
    return seen
