"""The numbers a co-location decision is made on, from a step's visits: per-round weighted
throughput, each model's median p99 against its budget, and the paired verdict of a move.

Weighted throughput of a combination in one round: ``sum(weight_m * throughput_m)`` over its
models (infer/s; weights from the traffic mix, 1.0 by default), ``None`` when any model of the
visit has no numbers. A move is judged with the project's one paired rule
(:func:`perf.analysis.stats.paired.paired`: a sign test at 5 % over at least 6 rounds, or a large,
consistent gap sooner): the candidate's weighted throughput against the held combination's, round
by round. A combination *meets its targets* when every model's median p99 over the step's
rounds (its rounds not host busy where some were and enough were not: :mod:`perf.analysis.ranking.budget_latency`) is at
most that model's own latency budget (``--latency-budget-ms``, per model) and its
median throughput at least its required throughput (``--required-throughput``, where given).
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Mapping, Sequence

from perf.analysis.ranking.budget_latency import MIN_QUIET_ROUNDS, Judged, judge_rounds
from perf.analysis.stats.paired import Paired, paired
from perf.colocate import host
from perf.markdown import fmt, fmt_given
from perf.records.colocation import ColocatedModel, ColocationRecord
from perf.records.colocation_measured import ColocationVisit

Combination = Mapping[str, str]
#: What a combination's weighted throughput over a step is (:attr:`Measured.weighted`), for a label
#: or a table's intro: not the weighted sum of the models' own medians (trial 11, F24: a table's
#: 1,010 beside mlp 338 and tabnet 644, weights 1 and 1, read as a sum that did not add up).
WEIGHTED_WORDS = "median over the rounds of each round's weighted sum"


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


def visit_series(
    visits: Sequence[ColocationVisit], step: int, combination: Combination, rounds: int, field: str
) -> list[float | None]:
    """A visit-level ``field`` (``gpu_utilization_pct``, ``gpu_memory_used_bytes``) per round of ``combination`` in ``step``."""
    return [None if v is None else getattr(v, field) for v in by_round(visits, step, combination, rounds)]


def judged_p99(
    visits: Sequence[ColocationVisit], step: int, combination: Combination, rounds: int, model: str, *, cores: int | None
) -> Judged | None:
    """One model's p99 over the step's rounds as a latency budget judges it (its median; over the
    rounds not host busy where some were and enough were not: :mod:`perf.analysis.ranking.budget_latency`),
    with how it was taken (:attr:`~perf.analysis.ranking.budget_latency.Judged.quieter`,
    :attr:`~perf.analysis.ranking.budget_latency.Judged.loaded`); ``None`` without a p99. ``cores``: the cores of the
    host that measured the visits (:func:`perf.colocate.host.cores`), what the load sampled there is judged against."""
    p99 = model_series(visits, step, combination, rounds, model, "latency_p99_ms")
    load = visit_series(visits, step, combination, rounds, "host_busy_pct")
    busy = visit_series(visits, step, combination, rounds, "host_busy")
    # a step's rounds: the level's rule; the load was sampled on the run's host, so its cores bound it (not this host's)
    return judge_rounds(((v, pct, bool(b)) for v, pct, b in zip(p99, load, busy)), cores=cores)


def budget_p99(visits: Sequence[ColocationVisit], step: int, combination: Combination, rounds: int, model: str) -> float | None:
    """One model's p99 as the budget judges it (ms; :func:`judged_p99`)."""
    j = judged_p99(visits, step, combination, rounds, model, cores=None)  # its ms: the cores change only its words
    return None if j is None else j.ms


def p99_words(quieter: bool) -> str:
    """What a p99 of :func:`budget_p99` is, for a label or a table's intro: ``"median over rounds"``,
    or, where some were taken on their quieter rounds (``quieter``), that (trial 11 review: the
    trade-off plot's axis said "median over rounds" under a p99 taken on the quieter rounds)."""
    return (
        f"median over the quieter rounds (not host busy, at least {MIN_QUIET_ROUNDS}) where some were host busy, as the budget judges it"
        if quieter
        else "median over rounds"
    )


def median(values: Sequence[float | None]) -> float | None:
    """Median of the measured values; ``None`` without any."""
    got = [v for v in values if v is not None]
    return statistics.median(got) if got else None


def budget_words(record: ColocationRecord) -> str:
    """The p99 budgets in words: ``"none"``, ``"25 ms (each model's p99)"`` when one for all,
    else ``"each model's own p99 budget (mlp 25 ms, tiny 10 ms)"``."""
    return _per_model_words(record.budgets, "ms", "each model's p99", "each model's own p99 budget")


def required_words(record: ColocationRecord) -> str:
    """The required throughputs in words, as :func:`budget_words` says the budgets."""
    return _per_model_words(record.required, "infer/s", "each model", "each model's own")


def _per_model_words(values: dict[str, float | None], unit: str, each: str, own: str) -> str:
    given = {k: v for k, v in values.items() if v is not None}
    if not given:
        return "none"
    if len(set(given.values())) == 1 and len(given) == len(values):
        return f"{fmt_given(next(iter(given.values())), 0)} {unit} ({each})"
    return f"{own} (" + ", ".join(f"{k} {'none' if v is None else f'{fmt_given(v, 0)} {unit}'}" for k, v in values.items()) + ")"


def targets_words(record: ColocationRecord) -> str:
    """What every model must meet: ``"every model's budget"``, with ``" and required throughput"``
    when a model has one."""
    return "every model's budget" + (" and required throughput" if any(record.required.values()) else "")


def missed(
    visits: Sequence[ColocationVisit],
    step: int,
    combination: Combination,
    rounds: int,
    models: Sequence[ColocatedModel],
    *,
    cores: int | None,
) -> list[tuple[str, bool]]:
    """The targets the models of ``combination`` miss over the step's rounds (:func:`misses`' words), each with
    whether the miss is verified: ``False`` for a p99 over its budget that the host's load may explain (``"not
    verified here"``, the sweep's rule: :meth:`Judged.too_few_quiet`), ``True`` for every other miss."""
    targets = {m.name: m for m in models}
    out = []
    for model in sorted(combination):
        j = judged_p99(visits, step, combination, rounds, model, cores=cores)
        thr = median(model_series(visits, step, combination, rounds, model, "throughput_infer_per_s"))
        m = targets.get(model)
        if j is None or thr is None:
            out.append((f"{model} has no numbers", True))
            continue
        if m is not None and m.latency_budget_ms is not None and j.ms > m.latency_budget_ms:
            far = j.far_over(99, m.latency_budget_ms)  # the sweep's words (budget_latency.Judged.far_over)
            unsure = not far and (j.loaded or j.short)
            loaded = f" ({far})" if far else f" (not verified here: {j.too_few_quiet()})" if unsure else ""
            out.append((f"{model} p99 {fmt(j.ms, 2)} ms > {fmt_given(m.latency_budget_ms, 0)} ms{loaded}", not unsure))
        if m is not None and m.required_throughput is not None and thr < m.required_throughput:
            out.append((f"{model} {thr:,.0f} infer/s < {fmt_given(m.required_throughput, 0)} required", True))
    return out


def misses(
    visits: Sequence[ColocationVisit],
    step: int,
    combination: Combination,
    rounds: int,
    models: Sequence[ColocatedModel],
    *,
    cores: int | None,
) -> list[str]:
    """The targets the models of ``combination`` miss over the step's rounds, in words: a median
    p99 above the model's own budget (``"mlp p99 12.3 ms > 10 ms"``), a median throughput below
    its required one (``"tiny 180 infer/s < 200 required"``); a model without numbers misses.
    Empty: every model meets its targets. ``cores``: as :func:`judged_p99`'s."""
    return [words for words, _ in missed(visits, step, combination, rounds, models, cores=cores)]


def worst_ratio(
    visits: Sequence[ColocationVisit], step: int, combination: Combination, rounds: int, models: Sequence[ColocatedModel]
) -> float | None:
    """How far the combination is from its targets: the largest, over its models, of median p99 /
    own budget and required / median throughput (at most 1: every target met); ``None`` when no
    model has a target or a model has no numbers."""
    targets = {m.name: m for m in models}
    worst: float | None = None
    for model in combination:
        p99 = budget_p99(visits, step, combination, rounds, model)
        thr = median(model_series(visits, step, combination, rounds, model, "throughput_infer_per_s"))
        if p99 is None or not thr:
            return None
        m = targets.get(model)
        if m is not None and m.latency_budget_ms is not None:
            worst = max(worst or 0.0, p99 / m.latency_budget_ms)
        if m is not None and m.required_throughput is not None:
            worst = max(worst or 0.0, m.required_throughput / thr)
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


def unpaired(visits: Sequence[ColocationVisit], step: int, a: Combination, b: Combination, rounds: int, b_label: str) -> str:
    """Why ``a`` and ``b`` of ``step`` have no paired comparison (:func:`paired` gave ``None``), from what is
    missing: no round measured both, or every round that did lacked a model's numbers, which model's and in how
    many of them (trial 16, T16-13: "not measured in the same rounds as the held combination" of two
    combinations measured in each of the same 3 rounds, where b's windows had seen no request complete)."""
    va, vb = by_round(visits, step, a, rounds), by_round(visits, step, b, rounds)
    shared = [(x, y) for x, y in zip(va, vb) if x is not None and y is not None]
    if not shared:
        return f"not measured in the same rounds as {b_label}"
    lacking: dict[str, int] = {}
    for x, y in shared:
        for m in sorted({s.model for s in (*x.samples, *y.samples) if not s.ok}):
            lacking[m] = lacking.get(m, 0) + 1
    n = len(shared)
    said = ", ".join(f"{m} had none in {k} of them" for m, k in lacking.items())
    return f"measured in the same {n} {'round' if n == 1 else 'rounds'} as {b_label}, none with numbers for every model of both ({said})"


@dataclasses.dataclass(frozen=True)
class Measured:
    """One combination as last measured: the step, its rounds' medians.

    Attributes:
        combination: Model -> variant.
        step: The last step that measured it.
        weighted: Median over the rounds of each round's weighted throughput (infer/s; :data:`WEIGHTED_WORDS`).
        throughput: Model -> its own median throughput over the rounds (infer/s).
        p99_ms: Model -> p99 as the budget judges it (ms, :func:`budget_p99`).
        p99_quieter: Some model's p99 was taken on its quieter rounds (:func:`judged_p99`; :func:`p99_words`).
        over: The targets missed, in words (:func:`misses`; empty: every one met).
        unverified: Every target in :attr:`over` is a p99 over its budget "not verified here" (:func:`missed`).
        instances: Its instances in all (:meth:`ColocationRecord.instances`).
        worst: How far from its targets (:func:`worst_ratio`; ``None``: no target or no numbers).
        gpu_utilization_pct, gpu_memory_used_bytes: Medians over the rounds of the visits' GPU
            utilisation (%) and peak GPU memory (bytes); ``None`` without GPU readings.
    """

    combination: dict[str, str]
    step: int
    weighted: float | None
    throughput: dict[str, float | None]
    p99_ms: dict[str, float | None]
    over: list[str]
    instances: int = 0
    worst: float | None = None
    gpu_utilization_pct: float | None = None
    gpu_memory_used_bytes: float | None = None
    p99_quieter: bool = False
    unverified: bool = False


def measured_combinations(record: ColocationRecord) -> list[Measured]:
    """Every combination (of every model) the run measured, by its last step, best weighted first."""
    last: dict[tuple[tuple[str, str], ...], tuple[dict[str, str], int, int]] = {}
    for step in record.steps:
        for t in step.targets:
            if len(t) == len(record.models) and step.rounds:
                last[key(t)] = (t, step.index, step.rounds)
    out = [measured_in(record, at, rounds, combo) for combo, at, rounds in last.values()]
    return sorted(out, key=lambda r: -(r.weighted or 0.0))


def measured_in(record: ColocationRecord, at: int, rounds: int, combo: Combination) -> Measured:
    """``combo``'s numbers over the first ``rounds`` rounds of step ``at``."""
    judged = {m: judged_p99(record.visits, at, combo, rounds, m, cores=host.cores(record)) for m in combo}
    miss = missed(record.visits, at, combo, rounds, record.models, cores=host.cores(record))
    return Measured(
        dict(combo),
        at,
        median(series(record.visits, at, combo, rounds, record.models)),
        {m: median(model_series(record.visits, at, combo, rounds, m, "throughput_infer_per_s")) for m in combo},
        {m: None if j is None else j.ms for m, j in judged.items()},
        [words for words, _ in miss],
        record.instances(dict(combo)),
        worst_ratio(record.visits, at, combo, rounds, record.models),
        median(visit_series(record.visits, at, combo, rounds, "gpu_utilization_pct")),
        median(visit_series(record.visits, at, combo, rounds, "gpu_memory_used_bytes")),
        any(j is not None and j.quieter for j in judged.values()),
        bool(miss) and not any(verified for _, verified in miss),
    )


def nearness(
    visits: Sequence[ColocationVisit], step: int, combination: Combination, rounds: int, record: ColocationRecord
) -> tuple[float, int] | None:
    """How near ``combination`` is to its targets over the step's rounds, the one rule the search
    moves by and the verdict names the closest by: its :func:`worst_ratio`, then its instances in
    all (lower is nearer: compare the tuples); ``None`` when no model has a target or one has no
    numbers."""
    worst = worst_ratio(visits, step, combination, rounds, record.models)
    return None if worst is None else (worst, record.instances(dict(combination)))


def last_held(record: ColocationRecord) -> dict[str, str] | None:
    """The combination the search held last (the last step's held one: the pick, or what the
    search ended on without one); ``None`` when no step held one (brute force)."""
    return next((dict(s.held) for s in reversed(record.steps) if s.held), None)
