"""The rounds engine (:mod:`perf.search.rounds`) with several client workloads (swept input sizes,
client batch sizes: :mod:`perf.records.workloads`): each workload's series are ranked on their own,
as the report ranks them (trial 10, F8: a b=8 level dropped the b=1 pick on a b=8 vs b=1 ratio).
A drop compares like with like, and a variant is dropped only when beaten at every workload it is
measured at (one that leads at b=1 stays measured); the ranking is decided when each workload's
is, the words naming each workload (F10); no round is narrowed (:mod:`perf.search.focus`), since
a variant's levels serve every workload.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from perf.analysis.ranking.operating import Comparison, Side, levels_of
from perf.analysis.ranking.rank import Ranking
from perf.records.results import RunResult, VariantResult
from perf.records.workloads import split_by_workload, variant_of, workload

Rank = Callable[[list[VariantResult]], tuple[Ranking, bool]]
#: A drop: (variant, its level, the reason in words, the variant that beat it, that one's levels that
#: beat it: one per workload, each a series' side with the series' name undone).
Drop = tuple[str, int, str, str, list[Side]]


def series(run: RunResult, variants: Sequence[VariantResult]) -> dict[str, list[VariantResult]] | None:
    """The series of ``variants`` per client workload label (:func:`perf.records.workloads.split_by_workload`),
    ``None`` when they were measured at one workload (its ranking is the variants' own)."""
    out: dict[str, list[VariantResult]] = {}
    for sr in split_by_workload(dataclasses.replace(run, variants=list(variants))).variants:
        if label := workload(sr):
            out.setdefault(label, []).append(sr)
    return out if len(out) > 1 else None


def drops(per: dict[str, list[VariantResult]], rank: Rank, beaten: Callable[[str, Comparison], bool]) -> list[Drop]:
    """The variants beaten at every workload they are measured at (module docstring), each with the
    comparisons of every workload in words; ``beaten(variant, comparison)``: the rule called it and its
    ladder cannot lift it."""
    won: dict[str, dict[str, Comparison]] = {}
    measured: dict[str, list[str]] = {}
    for label, group in per.items():
        for sr in group:
            if levels_of(sr):
                measured.setdefault(variant_of(sr.name, label), []).append(label)
        for comp in rank(group)[0].comparisons:
            if beaten(name := variant_of(comp.b.variant, label), comp):
                won.setdefault(name, {})[label] = comp
    out = []
    for name, labels in measured.items():
        got = won.get(name, {})
        if any(label not in got for label in labels):
            continue
        reason = "; ".join(f"at {label}: {got[label].sentence().rstrip('.')}" for label in labels)
        reason += f" (beaten at every client workload it is measured at: {', '.join(labels)})."
        first, by = got[labels[0]], variant_of(got[labels[0]].a.variant, labels[0])
        beating = [dataclasses.replace(got[label].a, variant=by) for label in labels]
        out.append((name, first.b.concurrency, reason, by, beating))
    return out
