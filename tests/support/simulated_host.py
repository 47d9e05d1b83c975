"""A simulated host for the rounds scheduler: variants with known true throughput curves,
measured under a drifting background load with noise, on a simulated clock. No server.

``SimHost.measure`` has the signature of :data:`perf.search.rounds.Measure`: the tests drive
the sweep's own scheduler and verdict code with it (the rounds design), and
:func:`sequential_pick` measures the same variants one after another (the old design).
"""

from __future__ import annotations

import dataclasses
import math
import random

from perf.analysis.ranking.rank import rank_variants
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundRules, RoundsRecord
from perf.records.search import SearchRecord, SearchRules
from perf.search.plan import LevelKey, plan_levels
from perf.search.policy import AUTO, Budget, ladder, resolve_mode
from perf.search.rounds import Rounds, Setup

#: Variant -> (peak infer/s, saturation concurrency): throughput ``peak * (1 - exp(-c / s))``.
TRUE = {"v_best": (1000.0, 2.0), "v_second": (880.0, 2.0), "v_third": (760.0, 1.5), "v_fourth": (620.0, 1.0)}
#: Seconds one visit of a round takes (3 windows of 500 ms plus perf_analyzer's start).
VISIT_S = 1.8
#: Seconds one level of the one-after-another design takes (2 s windows until 3 agree: 4 windows
#: plus perf_analyzer's start, the sequential sweep's defaults).
SEQUENTIAL_LEVEL_S = 8.5


def true_throughput(variant: str, concurrency: int) -> float:
    peak, sat = TRUE[variant]
    return peak * (1.0 - math.exp(-concurrency / sat))


@dataclasses.dataclass
class SimHost:
    """Background load ``0.35 + amplitude sin(2 pi t / period + phase)`` of the host's capacity,
    plus lognormal noise (``noise`` sigma) per visit; time advances ``visit_s`` per visit."""

    seed: int
    period_s: float = 300.0
    amplitude: float = 0.25
    noise: float = 0.03
    visit_s: float = VISIT_S
    t: float = 0.0

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.phase = self.rng.uniform(0, 2 * math.pi)

    def load(self) -> float:
        return 0.35 + self.amplitude * math.sin(2 * math.pi * self.t / self.period_s + self.phase)

    def clock(self) -> float:
        return self.t

    def observe(self, variant: str, concurrency: int) -> float:
        value = true_throughput(variant, concurrency) * (1.0 - self.load()) * math.exp(self.rng.gauss(0.0, self.noise))
        self.t += self.visit_s
        return value

    def measure(self, variant: str, key: LevelKey) -> LevelResult:
        c, b, trial, rate, shape = key
        thr = self.observe(variant, c)
        p99 = c / thr * 1000.0 * 1.6  # ms: Little's law, a tail 1.6x the mean
        return LevelResult(
            c,
            b,
            trial,
            throughput_infer_per_s=thr,
            latency_p50_ms=p99 / 1.6,
            latency_p90_ms=p99 / 1.2,
            latency_p95_ms=p99 / 1.1,
            latency_p99_ms=p99,
            shape=shape,
        )


def rounds_run(
    seed: int,
    mode: str | None = "prune",
    budget_s: float | None = None,
    concurrency: tuple[int, ...] | str = AUTO,
    latency_ms: float | None = None,
    host: SimHost | None = None,
    rules: RoundRules = RoundRules(),
) -> tuple[RunResult, Rounds, list[str]]:
    """One rounds sweep of :data:`TRUE` on a simulated host: ``(run, scheduler, tie set)``."""
    host = host or SimHost(seed)
    levels, adaptive = ladder(concurrency, SearchRules())
    mode = resolve_mode(mode, len(TRUE), SearchRules(), adaptive)  # as the sweep resolves it (perf.sweep.context)
    plans = {n: plan_levels(n, 8, levels, [1]) for n in TRUE}
    run = RunResult("sim", "now", variants=[VariantResult(n) for n in TRUE])
    run.search = SearchRecord(mode, adaptive)  # type: ignore[arg-type]
    run.rounds = RoundsRecord(seed=seed, rules=rules)
    budget = Budget(latency_ms) if latency_ms else None
    setup = Setup(plans, levels, adaptive, SearchRules(), rules, mode, budget)  # type: ignore[arg-type]
    deadline = None if budget_s is None else host.clock() + budget_s
    sched = Rounds(run, setup, VISIT_S, host.clock, deadline)
    tie = sched.run_group(list(TRUE), 0, host.measure)
    for v in run.variants:
        v.status = "ok"
    return run, sched, tie


def sequential_pick(seed: int, levels: tuple[int, ...] = (1, 2, 4, 8, 16)) -> str:
    """The one-after-another design on the same host: each variant's levels in turn, then the
    highest throughput measured wins."""
    host = SimHost(seed, visit_s=SEQUENTIAL_LEVEL_S)
    best: dict[str, float] = {}
    for name in TRUE:
        best[name] = max(host.observe(name, c) for c in levels)
    return max(best, key=lambda n: best[n])


def rounds_pick(run: RunResult) -> list[str]:
    """The tie set of a finished rounds run by the report's rule (leader first)."""
    return rank_variants(run.variants).names
