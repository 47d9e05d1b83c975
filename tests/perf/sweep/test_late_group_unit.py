"""The variants a time budget's plan cut, measured after the rounds when the time they left fits
them (perf.sweep.rounds + perf.search.late.late): the sweep's own group code on the simulated
host of tests/support/simulated_host.py (fake clock and measure, no server)."""

from __future__ import annotations

import pytest
import simulated_host
from simulated_host import SimHost, SimSweep, sim_run

from perf.records.rounds import RoundRules
from perf.records.search import SearchRules
from perf.search import budget as budgets
from perf.search.rounds import Rounds, Setup

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


def _sweep(monkeypatch: pytest.MonkeyPatch, budget_s: float, seed: int = 3, noise: float = 0.02):
    """A rounds sweep of :data:`SIX` fitted to ``budget_s`` as perf.sweep.run fits it: ``(run, fit, host, events)``."""
    for n, curve in SIX.items():
        monkeypatch.setitem(simulated_host.TRUE, n, curve)
    host = SimHost(seed, amplitude=0.0, noise=noise, visit_s=1.0)
    rules = RoundRules()
    run, plans, levels, adaptive = sim_run(SIX, seed, rules)
    fit = budgets.fit(list(SIX), levels, adaptive, 1, rules, SearchRules(), budget_s, False)
    for cut in fit.cuts:  # as perf.sweep.run records the plan's cuts
        run.rounds.cut(cut)
        if cut.kind == "variant":
            vr = run.variant(cut.variant)
            vr.status, vr.error = "skipped", f"cut for time: {cut.reason}"
    setup = Setup(plans, levels, adaptive, SearchRules(), rules, "prune", None, fit.cap)
    engine = Rounds(run, setup, fit.visit_s, host.clock, host.clock() + budget_s)
    events: list = []
    SimSweep(run, plans, host, events, LOAD_S).run_rounds(engine, fit.variants, fit)
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
