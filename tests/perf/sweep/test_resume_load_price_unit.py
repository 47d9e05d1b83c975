"""Every load is priced from the run's loads and time-checked by the one rule (perf.sweep.load_cuts.fit_to_loads),
issue 26: a resumed session priced the loads of the variants cut for time (perf.sweep.rounds.RoundsSweep._late)
from its own loads only, the earlier sessions' recorded load times ignored; and the loads of a group after its
server died (perf.sweep.rounds.RoundsSweep._visit) had no time check at all. The sweep's own group code on the
simulated host (tests/support/simulated_host.py)."""

from __future__ import annotations

from collections import defaultdict

import pytest
from simulated_host import FAST_LOAD_S, FIVE, SLOW_LOAD_S, TRUE, SimHost, SimLoads, SimSweep, sim_run

from perf.records.rounds import LoadGroup, RoundRules
from perf.records.search import SearchRules
from perf.search import budget as budgets
from perf.search.rounds import Rounds, Setup


def _sweep(monkeypatch: pytest.MonkeyPatch, budget_s: float, sweep: type[SimSweep], load_s: float, earlier=(), **kw):
    """``(run, host, events, sweep)``: the rounds of :data:`FIVE` within ``budget_s``, after ``earlier`` groups an
    earlier session recorded (``(variants, seconds)`` each), each load of this session taking ``load_s``."""
    for n, curve in FIVE.items():
        monkeypatch.setitem(TRUE, n, curve)
    host, rules = SimHost(3, amplitude=0.0, noise=0.3, visit_s=1.0), RoundRules()
    run, plans, levels, adaptive = sim_run(FIVE, 3, rules)
    assert run.rounds is not None
    for i, (names, seconds) in enumerate(earlier):
        run.rounds.groups.append(LoadGroup(i, list(names), "an earlier session", "sim", seconds))
    fit = budgets.fit(list(FIVE), levels, adaptive, 1, rules, SearchRules(), budget_s, False)
    setup = Setup(plans, levels, adaptive, SearchRules(), rules, "prune", None, fit.cap)
    events: list = []
    engine = Rounds(run, setup, fit.visit_s, host.clock, host.clock() + budget_s, events=events.append)
    sw = sweep(run, plans, host, events, load_s, **kw)
    sw.run_rounds(engine, fit.variants, fit)
    return run, host, events, sw


def test_the_variants_cut_for_time_are_priced_from_every_sessions_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    earlier = [(["old_a", "old_b"], 8 * FAST_LOAD_S)]  # an earlier session's two loads took 4 times this session's
    run, _, _, sweep = _sweep(monkeypatch, 90.0, SimSweep, FAST_LOAD_S, earlier)
    assert run.rounds is not None
    cut = [c for c in run.rounds.cuts if c.kind == "variant" and "after the rounds" in c.reason]
    assert cut, run.rounds.cuts  # the plan's cuts priced again after the rounds (perf.search.late.late)
    session = sweep._load_times
    each = (8 * FAST_LOAD_S + sum(session)) / (2 + len(session))
    for c in cut:
        assert f", {each:.1f} s a load," in c.reason, c.reason


class _DiesOnce(SimLoads):
    """The server dies at the first visit after ``die_at`` s of the host's clock (the variant visited fails,
    the group's others are loaded again, :meth:`perf.sweep.rounds.RoundsSweep._visit`); loads take ``load_s``."""

    def __init__(self, *args, die_at: float, **kwargs):
        super().__init__(*args, **kwargs)
        self.die_at, self.died, self.loaded_after = die_at, None, []

    def start_session(self, fit, refitted):
        super().start_session(fit, refitted)
        self._args = defaultdict(lambda: defaultdict(list))

    def _load(self, engine, name):
        if self.died is not None:
            self.loaded_after.append((name, self.run.rounds.next_index()))  # the first round it could be measured in
        return super()._load(engine, name)

    def _measure(self, model, concurrency, batch, trial, in_args, request_rate=None, shape=None):
        return self.host.measure(model, (concurrency, batch, trial, request_rate, shape))

    def _server_alive_after(self, vr, level):
        if self.died is not None or self.host.clock() < self.die_at:
            return True
        self.died = vr.name
        level.error, vr.error = "tritonserver died", "tritonserver died"
        level.settle()
        return False

    def _measure_group(self, engine, loaded, group):
        try:
            visit = lambda n, k: self._visit(engine, loaded, n, k)  # noqa: E731
            return engine.run_group(loaded, group, visit, reserve_s=len(loaded) * budgets.UNLOAD_S)
        finally:
            self.host.t += budgets.UNLOAD_S * len(loaded)


def test_the_loads_after_the_server_died_are_time_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each variant loaded again is measured after it (a load the time left cannot afford is cut before it
    starts, as every load is), within the budget; the others are cut for time, and said so. Before, the
    server's death at 40 s of 150 loaded three variants again at 15 s each, and no round of them followed."""
    budget_s = 150.0
    run, host, events, sweep = _sweep(monkeypatch, budget_s, _DiesOnce, SLOW_LOAD_S, die_at=40.0)
    assert sweep.died is not None and run.rounds is not None
    assert host.clock() <= budget_s
    for n, first in sweep.loaded_after:
        assert any(v.variant == n and not v.failed for r in run.rounds.measured() if r.index >= first for v in r.order), (
            n,
            sweep.loaded_after,
        )
    said = "\n".join(e["text"] for e in events if e["event"] == "plan" and "cut for time: " in e["text"])
    for n in {n for g in run.rounds.groups for n in g.variants} - {sweep.died} - {n for n, _ in sweep.loaded_after}:
        assert f"{n} not measured" in said, said  # not loaded again: cut for time, and said so
