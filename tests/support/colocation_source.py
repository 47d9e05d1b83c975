"""A synthetic co-location host: models with known costs per variant that interfere with each
other, measured under a drifting background load with noise, on a simulated clock. No server.

:class:`SynthSource` has the shape of :class:`perf.colocate.search.Source`; :func:`brute_force`
measures every combination in rounds with the same source (the product the search avoids), and
:func:`true_best` is the answer without noise.

The space (3 models x 4 variants: instance counts 1..4 on a shared CPU): a model's throughput
alone grows with its instances until the host is over-subscribed; every instance of a neighbour
takes a share of the CPU (``CPU`` per instance), dividing the model's throughput by
``1 + sum(neighbours' instances x their CPU)`` and multiplying its p99 by the same factor.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
import statistics
from collections.abc import Mapping

from perf.records.build_check import BuildCheck
from perf.records.colocation import ColocatedModel, ColocationRecord, SearchStep
from perf.records.colocation_measured import ColocationVisit, ModelSample

MODELS = ("big", "mid", "small")
VARIANTS = {m: [f"{m}_x{k}" for k in (1, 2, 3, 4)] for m in MODELS}
#: Throughput alone (infer/s) per instance count 1..4 (more instances than the host holds lose).
ALONE = {
    "big": (260.0, 390.0, 1250.0, 2040.0),
    "mid": (160.0, 450.0, 2300.0, 2440.0),
    "small": (830.0, 2130.0, 2860.0, 2520.0),
}
#: p99 alone (ms) per instance count.
P99_ALONE = {"big": (3.3, 7.1, 9.8, 9.8), "mid": (7.4, 9.1, 10.1, 11.6), "small": (1.6, 2.2, 5.2, 11.0)}
#: What one instance of a model takes from its neighbours (share of the CPU).
CPU = {"big": 0.25, "mid": 0.09, "small": 0.21}
WEIGHTS = {"big": 0.5, "mid": 2.0, "small": 4.0}
BUDGET_MS = 20.0
VISIT_S = 1.8


def instances(variant: str) -> int:
    return int(variant.rsplit("_x", 1)[1])


def true_numbers(combination: Mapping[str, str]) -> dict[str, tuple[float, float]]:
    """Model -> (throughput, p99) without noise (module docstring)."""
    out = {}
    for m, v in combination.items():
        k = instances(v)
        others = sum(CPU[j] * instances(w) for j, w in combination.items() if j != m)
        out[m] = (ALONE[m][k - 1] / (1 + others), P99_ALONE[m][k - 1] * (1 + others))
    return out


def true_weighted(combination: Mapping[str, str]) -> float:
    return sum(WEIGHTS[m] * t for m, (t, _p) in true_numbers(combination).items())


def within_budget(combination: Mapping[str, str], budgets: Mapping[str, float] | None = None) -> bool:
    """Every model's p99 without noise within its budget (``budgets``: model -> ms; default :data:`BUDGET_MS` each)."""
    return all(p <= (budgets or {}).get(m, BUDGET_MS) for m, (_t, p) in true_numbers(combination).items())


def combinations() -> list[dict[str, str]]:
    return [dict(zip(MODELS, vs)) for vs in itertools.product(*(VARIANTS[m] for m in MODELS))]


def true_best(budgets: Mapping[str, float] | None = None) -> dict[str, str]:
    return max((c for c in combinations() if within_budget(c, budgets)), key=true_weighted)


def record(seed: int = 0, required: Mapping[str, float] | None = None, objective: str = "throughput") -> ColocationRecord:
    """The synthetic run's record: each variant's instances from its name, the 20 ms budget each,
    ``required`` throughputs (infer/s) and the ``objective``."""
    models = [
        ColocatedModel(
            m,
            list(VARIANTS[m]),
            concurrency=4,
            weight=WEIGHTS[m],
            latency_budget_ms=BUDGET_MS,
            required_throughput=(required or {}).get(m),
            instances={v: instances(v) for v in VARIANTS[m]},
        )
        for m in MODELS
    ]
    checks = {v: BuildCheck() for m in models for v in m.variants}  # recorded ok: no repository to read
    return ColocationRecord(
        "synthetic",
        "2026-12-01T00:00:00",
        "synthetic",
        models,
        seed=seed,
        objective=objective,
        build_checks=checks,  # type: ignore[arg-type]
    )


def feasible(combination: Mapping[str, str], required: Mapping[str, float], slow: float = 1.0) -> bool:
    """Every model within the 20 ms budget and at its required throughput without noise, its
    throughput divided by ``slow`` (the drift's worst is 1.25)."""
    return all(p <= BUDGET_MS and t / slow >= required.get(m, 0.0) for m, (t, p) in true_numbers(combination).items())


def total_instances(combination: Mapping[str, str]) -> int:
    return sum(instances(v) for v in combination.values())


def fewest_best(required: Mapping[str, float]) -> dict[str, str]:
    """The fewest instances that meet every target even at the drift's slowest, then the highest weighted throughput."""
    ok = [c for c in combinations() if feasible(c, required, slow=1.3)]
    return min(ok, key=lambda c: (total_instances(c), -true_weighted(c)))


@dataclasses.dataclass
class TableSource:
    """Models that do not interfere: each variant's throughput and p99 from ``table``, lognormal
    noise (``noise`` sigma) per model per visit; time advances 1 s per visit."""

    table: Mapping[str, tuple[float, float]]
    seed: int = 0
    noise: float = 0.02
    t: float = 0.0

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def clock(self) -> float:
        return self.t

    def prepare(self, step: SearchStep) -> None:
        self.t += 1.0
        timed_loads(self, step, 1.0)

    def visit(self, step: int, round_index: int, order: int, combination: Mapping[str, str]) -> ColocationVisit:
        samples = []
        for m, v in combination.items():
            thr, p99 = self.table[v]
            noise = math.exp(self.rng.gauss(0, self.noise))
            samples.append(ModelSample(m, v, thr * noise, p99 / noise, 10.0, 100.0))
        self.t += 1.0
        return ColocationVisit(step, round_index, order, dict(combination), samples, wall_s=1.0)


def timed_loads(source: object, step: SearchStep, seconds: float) -> None:
    """Record a step's loads on it as :meth:`perf.colocate.source.ServerSource.prepare` does: the variants its targets
    need that ``source`` does not hold yet (its ``held``, kept here), ``seconds`` over them all."""
    needed = {v for t in step.targets for v in t.values()}
    new = needed - getattr(source, "held", set())
    step.load_s += [seconds / len(new)] * len(new) if new else []
    source.held = needed  # type: ignore[attr-defined]


def with_budgets(rec: ColocationRecord, budgets: Mapping[str, float | None]) -> ColocationRecord:
    """``rec`` with these models' p99 budgets (ms) replaced."""
    rec.models = [dataclasses.replace(m, latency_budget_ms=budgets.get(m.name, m.latency_budget_ms)) for m in rec.models]
    return rec


@dataclasses.dataclass
class SynthSource:
    """A background load that drifts over ``period_s`` slows the throughput of every visit alike
    (by up to ``amplitude``), plus lognormal noise (``noise`` sigma) per model per visit on
    throughput and p99 (p99 carries no drift, so the budget's boundary stays where the costs
    put it); time advances ``visit_s`` per visit."""

    seed: int
    period_s: float = 300.0
    amplitude: float = 0.25
    noise: float = 0.02
    visit_s: float = VISIT_S
    t: float = 0.0

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.phase = self.rng.uniform(0, 2 * math.pi)
        self.visits = 0

    def clock(self) -> float:
        return self.t

    def prepare(self, step: SearchStep) -> None:
        self.t += 1.0  # loads: outside every window
        timed_loads(self, step, 1.0)

    def visit(self, step: int, round_index: int, order: int, combination: Mapping[str, str]) -> ColocationVisit:
        slow = 1 + self.amplitude * (1 + math.sin(2 * math.pi * self.t / self.period_s + self.phase)) / 2
        samples = []
        for m, (thr, p99) in true_numbers(combination).items():
            noise = math.exp(self.rng.gauss(0, self.noise))
            samples.append(ModelSample(m, combination[m], thr / slow * noise, p99 / noise, 10.0, 100.0))
        self.t += self.visit_s
        self.visits += 1
        return ColocationVisit(step, round_index, order, dict(combination), samples, wall_s=self.visit_s)


def brute_force(source: SynthSource, rounds: int = 6, seed: int = 0) -> tuple[dict[str, str] | None, int]:
    """Every combination in ``rounds`` shuffled rounds with ``source``; the highest median
    weighted throughput among those whose every model's median p99 is within the budget, and the
    visits it took."""
    combos = combinations()
    got: dict[int, list[ColocationVisit]] = {i: [] for i in range(len(combos))}
    for r in range(rounds):
        order = list(range(len(combos)))
        random.Random(seed + r).shuffle(order)
        for place, i in enumerate(order):
            got[i].append(source.visit(0, r, place, combos[i]))
    best, best_w = None, -1.0
    for i, c in enumerate(combos):
        p99s = {m: statistics.median(next(s.latency_p99_ms for s in v.samples if s.model == m) for v in got[i]) for m in c}
        if any(p > BUDGET_MS for p in p99s.values()):
            continue
        w = statistics.median(sum(WEIGHTS[s.model] * (s.throughput_infer_per_s or 0.0) for s in v.samples) for v in got[i])
        if w > best_w:
            best, best_w = c, w
    return best, rounds * len(combos)


class TimedLoads(SynthSource):
    """A step's loads and unloads take time, timed on the step as ``perf.colocate.source.ServerSource.prepare`` times
    them (it unloads what the step does not need and loads what it needs): ``load_s`` a load, ``unload_s`` an unload
    (subclasses set their own)."""

    load_s: float = 4.0
    unload_s: float = 2.9

    def prepare(self, step: SearchStep) -> None:
        needed = {v for t in step.targets for v in t.values()}
        held = getattr(self, "held", set())
        self.t += self.load_s * len(needed - held) + self.unload_s * len(held - needed)
        step.load_s += [self.load_s] * len(needed - held)
        step.unload_s += [self.unload_s] * len(held - needed)
        self.held = needed
