"""The numbers a co-location decision is made on, from a step's visits: per-round weighted
throughput, each model's median p99 against its budget, and the paired verdict of a move.

Weighted throughput of a combination in one round: ``sum(weight_m * throughput_m)`` over its
models (infer/s; weights from the traffic mix, 1.0 by default), ``None`` when any model of the
visit has no numbers. A move is judged with the project's one paired rule
(:func:`perf.analysis.paired.paired`: exact two-sided sign test at 5 % over the rounds, at
least 6 rounds): the candidate's weighted throughput against the held combination's, round
by round. A combination is *within budget* when every model's median p99 over the step's
rounds is at most the latency budget.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence

from perf.analysis.paired import Paired, paired
from perf.records.colocation import ColocatedModel, ColocationVisit

Combination = Mapping[str, str]


def key(combination: Combination) -> tuple[tuple[str, str], ...]:
    """A hashable, order-free key of a combination (or of one variant alone)."""
    return tuple(sorted(combination.items()))


def describe(combination: Combination) -> str:
    """``"mlp=mlp_onnx_cpu2, tiny=tiny_onnx_cpu1"`` (models in name order)."""
    return ", ".join(f"{m}={v}" for m, v in sorted(combination.items()))


def weighted(visit: ColocationVisit, models: Sequence[ColocatedModel]) -> float | None:
    """The visit's weighted throughput (infer/s; module docstring); ``None`` when a model has no numbers."""
    weights = {m.name: m.weight for m in models}
    total = 0.0
    for s in visit.samples:
        if not s.ok or s.throughput_infer_per_s is None:
            return None
        total += weights.get(s.model, 1.0) * s.throughput_infer_per_s
    return total


def by_round(visits: Sequence[ColocationVisit], step: int, combination: Combination, rounds: int) -> list[ColocationVisit | None]:
    """The visits of ``combination`` in ``step``, one slot per round (``None``: not measured)."""
    out: list[ColocationVisit | None] = [None] * rounds
    k = key(combination)
    for v in visits:
        if v.step == step and key(v.combination) == k and 0 <= v.round < rounds:
            out[v.round] = v
    return out


def series(
    visits: Sequence[ColocationVisit], step: int, combination: Combination, rounds: int, models: Sequence[ColocatedModel]
) -> list[float | None]:
    """Weighted throughput per round of ``combination`` in ``step`` (``None``: no numbers that round)."""
    return [None if v is None else weighted(v, models) for v in by_round(visits, step, combination, rounds)]


def model_series(
    visits: Sequence[ColocationVisit], step: int, combination: Combination, rounds: int, model: str, field: str
) -> list[float | None]:
    """One model's ``field`` (``throughput_infer_per_s``, ``latency_p99_ms``...) per round of ``combination`` in ``step``."""
    out: list[float | None] = []
    for v in by_round(visits, step, combination, rounds):
        sample = None if v is None else next((s for s in v.samples if s.model == model and s.ok), None)
        out.append(None if sample is None else getattr(sample, field))
    return out


def median(values: Sequence[float | None]) -> float | None:
    """Median of the measured values; ``None`` without any."""
    got = [v for v in values if v is not None]
    return statistics.median(got) if got else None


def over_budget(
    visits: Sequence[ColocationVisit], step: int, combination: Combination, rounds: int, budget_ms: float | None
) -> list[str]:
    """The models of ``combination`` whose median p99 over the step's rounds exceeds ``budget_ms``,
    in words (``"mlp p99 12.3 ms > 10 ms"``); a model without numbers counts as over. Empty:
    within budget (always, without a budget, when every model has numbers)."""
    out = []
    for model in sorted(combination):
        p99 = median(model_series(visits, step, combination, rounds, model, "latency_p99_ms"))
        if p99 is None:
            out.append(f"{model} has no numbers")
        elif budget_ms is not None and p99 > budget_ms:
            out.append(f"{model} p99 {p99:.3g} ms > {budget_ms:g} ms")
    return out


def worst_ratio(
    visits: Sequence[ColocationVisit], step: int, combination: Combination, rounds: int, budget_ms: float | None
) -> float | None:
    """The largest median p99 / budget over the models of ``combination`` (above 1: over budget);
    ``None`` without a budget or when a model has no numbers."""
    if budget_ms is None:
        return None
    worst = 0.0
    for model in combination:
        p99 = median(model_series(visits, step, combination, rounds, model, "latency_p99_ms"))
        if p99 is None:
            return None
        worst = max(worst, p99 / budget_ms)
    return worst


def compare(
    visits: Sequence[ColocationVisit],
    step: int,
    candidate: Combination,
    held: Combination,
    rounds: int,
    models: Sequence[ColocatedModel],
) -> Paired | None:
    """Candidate against held weighted throughput, paired over the step's rounds; ``None`` when
    no round measured both."""
    return paired(series(visits, step, candidate, rounds, models), series(visits, step, held, rounds, models))
