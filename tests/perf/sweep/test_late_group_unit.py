"""The variants a time budget's plan cut, measured after the rounds when the time they left fits
them (perf.sweep.rounds + perf.search.budget.late): the sweep's own group code on the simulated
host of tests/support/simulated_host.py (fake clock and measure, no server)."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest
import simulated_host
from simulated_host import SimHost

from perf.records.results import RunResult, VariantResult
from perf.records.rounds import LoadGroup, RoundRules, RoundsRecord
from perf.records.search import SearchRecord, SearchRules
from perf.search import budget as budgets
from perf.search.plan import plan_levels
from perf.search.policy import AUTO, ladder
from perf.search.rounds import Rounds, Setup
from perf.sweep.rounds import RoundsSweep

#: Six variants: (peak infer/s, saturation concurrency), most promising first by name order.
SIX = {
    "v_a": (1000.0, 2.0),
    "v_b": (900.0, 2.0),
    "v_c": (700.0, 1.5),
    "v_d": (600.0, 1.0),
    "v_e": (500.0, 1.0),
    "v_f": (1200.0, 2.0),  # the least promising by its order, cut first by the plan: the true best
}
LOAD_S = 3.0  # simulated load of one variant (s)


class SimSweep(RoundsSweep):
    """The rounds sweep's group code with the server parts replaced by the simulated host."""

    def __init__(self, run: RunResult, plans: dict, host: SimHost, events: list):
        self.run, self.plans, self.host = run, plans, host
        self.servers = SimpleNamespace(lanes=[None], each=lambda keys, f: [f(int(k), k) for k in keys])
        self._lock = threading.Lock()
        self.progress, self.has_listener = events.append, True
        self.opts = SimpleNamespace(max_loaded=None)

    def _save(self) -> None:
        pass

    def _load_group(self, engine: Rounds, names: list[str], why: str) -> tuple[list[str], list[str], int]:
        for n in names:
            vr = self._variant(n)
            vr.status, vr.error = "pending", None
        self.host.t += LOAD_S * len(names)
        groups = self.run.rounds.groups
        groups.append(LoadGroup(len(groups), list(names), why or "every contender fits", "sim", LOAD_S * len(names)))
        return list(names), [], groups[-1].index

    def _measure_group(self, engine: Rounds, loaded: list[str], group: int) -> list[str]:
        try:
            return engine.run_group(loaded, group, self.host.measure, reserve_s=len(loaded) * budgets.UNLOAD_S)
        finally:
            self.host.t += budgets.UNLOAD_S * len(loaded)


def _sweep(monkeypatch: pytest.MonkeyPatch, budget_s: float, seed: int = 3, noise: float = 0.02):
    """A rounds sweep of :data:`SIX` fitted to ``budget_s`` as perf.sweep.run fits it: ``(run, fit, host, events)``."""
    for n, curve in SIX.items():
        monkeypatch.setitem(simulated_host.TRUE, n, curve)
    host = SimHost(seed, amplitude=0.0, noise=noise, visit_s=1.0)
    levels, adaptive = ladder(AUTO, SearchRules())
    rules = RoundRules()
    plans = {n: plan_levels(n, 8, levels, [1]) for n in SIX}
    run = RunResult("sim", "now", variants=[VariantResult(n) for n in SIX])
    run.search = SearchRecord("prune", adaptive)
    run.rounds = RoundsRecord(seed=seed, rules=rules)
    fit = budgets.fit(list(SIX), levels, adaptive, 1, rules, SearchRules(), budget_s, False)
    for cut in fit.cuts:  # as perf.sweep.run records the plan's cuts
        run.rounds.cut(cut)
        if cut.kind == "variant":
            vr = run.variant(cut.variant)
            vr.status, vr.error = "skipped", f"cut for time: {cut.reason}"
    setup = Setup(plans, levels, adaptive, SearchRules(), rules, "prune", None, fit.cap)
    engine = Rounds(run, setup, fit.visit_s, host.clock, host.clock() + budget_s)
    events: list = []
    SimSweep(run, plans, host, events).run_rounds(engine, fit.variants, fit)
    return run, fit, host, events


def test_the_variants_the_plan_cut_are_measured_with_the_tie_set_when_the_rounds_leave_the_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    budget_s = 120.0  # the plan (an upper bound: 115 s) cuts `v_f`; the rounds end at 65 s
    run, fit, host, events = _sweep(monkeypatch, budget_s)
    cut = fit.cut_variants
    assert cut and set(cut) < set(SIX)  # the plan (an upper bound) cut some
    assert host.clock() <= budget_s  # never past the budget
    final = run.rounds.groups[-1]
    late = [n for n in final.variants if n in cut]
    assert late and final.reason.startswith("after the rounds: ")  # measured, said why, with the tie set
    tie = run.rounds.groups[0].tie_set
    assert final.variants[: len(tie)] == tie
    for n in late:
        vr = run.variant(n)
        assert vr.status == "ok" and vr.levels and vr.error is None
        assert not any(c.variant == n and c.kind == "variant" for c in run.rounds.cuts)  # no longer listed as cut
    for n in set(cut) - set(late):  # still cut: said with the numbers the rounds measured
        reason = next(c.reason for c in run.rounds.cuts if c.variant == n)
        assert reason.startswith("not measured: after the rounds ") and "measured: " in reason
    assert any(e["event"] == "plan" and "after the rounds" in e["text"] for e in events)
    assert final.tie_set == ["v_f"]  # and the variant the plan cut was the best


@pytest.mark.parametrize("noise", [0.02, 0.3])  # quiet: the rounds leave time for one of two; noisy: a larger tie set, for none
def test_the_variants_still_cut_say_the_real_numbers_and_the_most_promising_go_first(
    monkeypatch: pytest.MonkeyPatch, noise: float
) -> None:
    budget_s = 95.0  # the plan cuts `v_e` and `v_f`
    run, fit, host, _ = _sweep(monkeypatch, budget_s, noise=noise)
    assert fit.cut_variants == ["v_e", "v_f"] and host.clock() <= budget_s
    late = [
        n for g in run.rounds.groups if g.reason.startswith("after the rounds: ") for n in g.variants if n in fit.cut_variants
    ]
    assert late == fit.cut_variants[: len(late)]  # most promising first
    still = fit.cut_variants[len(late) :]
    assert still  # the budget is too short for both
    for n in still:
        vr = run.variant(n)
        assert vr.status == "skipped" and not vr.levels
        (cut,) = [c for c in run.rounds.cuts if c.variant == n]
        assert cut.reason.startswith("not measured: after the rounds ") and "s a visit" in cut.reason
        assert vr.error == "cut for time: " + cut.reason.removeprefix("not measured: ")
