"""A simulated host for the rounds scheduler: variants with known true throughput curves,
measured under a drifting background load with noise, on a simulated clock. No server.

``SimHost.measure`` has the signature of :data:`perf.search.rounds.Measure`: the tests drive
the sweep's own scheduler and verdict code with it (the rounds design), and
:func:`sequential_pick` measures the same variants one after another (the old design).
:func:`sim_run` starts a rounds run of any variants, and :class:`SimSweep` runs the sweep's own
group code (loads, groups, refits) on the host.
"""

from __future__ import annotations

import dataclasses
import math
import random
import threading
from collections.abc import Iterable
from types import SimpleNamespace

from perf.analysis.ranking.budget_latency import host_cores
from perf.analysis.ranking.rank import rank_variants
from perf.records.levels import LevelResult
from perf.records.provenance import stamp
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import BudgetRecord, LoadGroup, RoundRules, RoundsRecord
from perf.records.search import SearchRecord, SearchRules
from perf.search import budget as budgets
from perf.search.plan import LevelKey, plan_levels
from perf.search.policy import AUTO, Budget, ladder, resolve_mode
from perf.search.rounds import Rounds, Setup
from perf.sweep.rounds import RoundsSweep

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
    stamp(run)  # swept by today's code, as perf.sweep.run stamps a sweep
    run.search = SearchRecord(mode, adaptive)  # type: ignore[arg-type]
    run.rounds = RoundsRecord(seed=seed, rules=rules)
    budget = Budget(latency_ms, cores=None) if latency_ms else None  # simulated: no host load sampled
    setup = Setup(plans, levels, adaptive, SearchRules(), rules, mode, budget)  # type: ignore[arg-type]
    deadline = None if budget_s is None else host.clock() + budget_s
    sched = Rounds(run, setup, VISIT_S, host.clock, deadline)
    tie = sched.run_group(list(TRUE), 0, host.measure)
    for v in run.variants:
        v.status = "ok"
    return run, sched, tie


def sim_run(names: Iterable[str], seed: int, rules: RoundRules = RoundRules()) -> tuple[RunResult, dict, tuple[int, ...], bool]:
    """A new rounds run of ``names`` (the search prunes, on the automatic ladder), as the sweep starts
    one: ``(run, plans, ladder levels, adaptive)``, each variant planned at max_batch_size 8, batch 1."""
    names = list(names)
    levels, adaptive = ladder(AUTO, SearchRules())
    plans = {n: plan_levels(n, 8, levels, [1]) for n in names}
    run = RunResult("sim", "now", variants=[VariantResult(n) for n in names])
    stamp(run)  # swept by today's code, as perf.sweep.run stamps a sweep
    run.search = SearchRecord("prune", adaptive)
    run.rounds = RoundsRecord(seed=seed, rules=rules)
    return run, plans, levels, adaptive


class SimSweep(RoundsSweep):
    """The rounds sweep's group code (:mod:`perf.sweep.rounds`) with the server parts replaced by the
    simulated ``host``: each load takes ``load_s`` a variant of its clock, each unload
    :data:`perf.search.budget.UNLOAD_S`; the names unloaded together are kept in ``unloaded``."""

    def __init__(self, run: RunResult, plans: dict, host: SimHost, events: list, load_s: float):
        self.run, self.plans, self.host, self.load_s = run, plans, host, load_s
        self.unloaded: list[str] = []
        self.servers = SimpleNamespace(
            lanes=[None],
            each=lambda keys, f: [f(int(k), k) for k in keys],
            unload_all=lambda names, _t: self.unloaded.extend(names),
        )
        self._lock = threading.RLock()  # as the sweep's (perf.sweep.context)
        self.progress, self.has_listener = events.append, True
        self.opts = SimpleNamespace(max_loaded=None, unload_timeout_s=10.0)

    def _save(self) -> None:
        pass

    def _load_group(self, engine: Rounds, names: list[str], why: str) -> tuple[list[str], list[str], int]:
        for n in names:
            vr = self._variant(n)
            vr.status, vr.error = "pending", None
        self.host.t += self.load_s * len(names)
        self._load_times += [self.load_s] * len(names)  # each load's time, as the sweep's load loop keeps them
        groups = self.run.rounds.groups
        groups.append(LoadGroup(len(groups), list(names), why or "every contender fits", "sim", self.load_s * len(names)))
        return list(names), [], groups[-1].index

    def _measure_group(self, engine: Rounds, loaded: list[str], group: int) -> list[str]:
        try:
            return engine.run_group(loaded, group, self.host.measure, reserve_s=len(loaded) * budgets.UNLOAD_S)
        finally:
            self.host.t += budgets.UNLOAD_S * len(loaded)


class SimLoads(SimSweep):
    """:class:`SimSweep` with the sweep's own load loop (:meth:`perf.sweep.rounds.RoundsSweep._load_group`):
    one variant loaded at a time, each taking ``load_s`` of the host's clock (or its own, from
    ``load_times``); the names loaded, in order, kept in ``loads``."""

    _load_group = RoundsSweep._load_group

    def __init__(self, *args, load_times: dict[str, float] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.load_times, self.loads = load_times or {}, []
        self.server_ns = SimpleNamespace(http_url="sim", opts=SimpleNamespace(urls=["sim"]))  # remote: no memory read

    def _server(self):
        return self.server_ns

    def _load(self, engine: Rounds, name: str) -> bool:
        self._variant(name).status = "pending"
        self.host.t += self.load_times.get(name, self.load_s)
        self.loads.append(name)
        return True


#: Five variants' true curves (peak throughput, scale) for the time-budget tests of the loads.
FIVE = {"w_a": (1000.0, 2.0), "w_b": (900.0, 2.0), "w_c": (700.0, 1.5), "w_d": (600.0, 1.0), "w_e": (500.0, 1.0)}
#: A load three times as slow as the budget's plan assumes (:data:`perf.search.budget.LOAD_S`), and one faster.
SLOW_LOAD_S, FAST_LOAD_S = 3 * budgets.LOAD_S, 0.8 * budgets.LOAD_S


def budgeted_sweep(monkeypatch, budget_s: float, load_s: float, sweep_class: type[SimSweep] = SimSweep, **sweep_kwargs):
    """The rounds sweep of :data:`FIVE` on a quiet simulated host within a ``budget_s`` time budget,
    its plan fitted as the sweep fits it, each load taking ``load_s`` (``sweep_kwargs`` go to
    ``sweep_class``): ``(run, fit, host, events, sweep)`` once the rounds ended."""
    for n, curve in FIVE.items():
        monkeypatch.setitem(TRUE, n, curve)
    host = SimHost(3, amplitude=0.0, noise=0.3, visit_s=1.0)
    rules = RoundRules()
    run, plans, levels, adaptive = sim_run(FIVE, 3, rules)
    fit = budgets.fit(list(FIVE), levels, adaptive, 1, rules, SearchRules(), budget_s, False)
    run.rounds.budget = BudgetRecord(budget_s, fit.visit_s, fit.load_s, fit.estimate_s, fit.rounds, fit.cap)
    setup = Setup(plans, levels, adaptive, SearchRules(), rules, "prune", None, fit.cap)
    events: list = []
    engine = Rounds(run, setup, fit.visit_s, host.clock, host.clock() + budget_s, events=events.append)
    sweep = sweep_class(run, plans, host, events, load_s, **sweep_kwargs)
    sweep.run_rounds(engine, fit.variants, fit)
    return run, fit, host, events, sweep


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
    return rank_variants(run.variants, cores=host_cores(run)).names
