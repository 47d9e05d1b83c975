"""The time budget's plan fitted again once the loads are done, before the first round (trial 7,
F20: the plan assumed 5 s a load, the model's loads took 3.7-18.1 s, and 2 of the 6 planned
rounds ran): the sweep's own group code on the simulated host (tests/support/simulated_host.py)."""

from __future__ import annotations

import logging

import pytest
import simulated_host
from simulated_host import FAST_LOAD_S, FIVE, SLOW_LOAD_S, SimHost, SimSweep, budgeted_sweep, sim_run

from perf.analysis.ranking.operating import MIN_ROUNDS
from perf.records.rounds import BudgetRecord, RoundRules
from perf.records.search import SearchRules
from perf.report.sections.rounds_budget import budget_lines
from perf.search import budget as budgets
from perf.search.ladder import seen as ladders_seen
from perf.search.policy import AUTO, ladder
from perf.search.rounds import Rounds, Setup


def _sweep(monkeypatch: pytest.MonkeyPatch, budget_s: float, load_s: float):
    return budgeted_sweep(monkeypatch, budget_s, load_s)


def test_loads_slower_than_planned_refit_the_plan_before_the_first_round(monkeypatch: pytest.MonkeyPatch) -> None:
    budget_s = 150.0
    run, fit, host, events, sweep = _sweep(monkeypatch, budget_s, load_s=SLOW_LOAD_S)
    assert fit.variants == list(FIVE) and fit.rounds >= MIN_ROUNDS  # the first plan kept every variant
    assert host.clock() <= budget_s
    (said,) = [e["text"] for e in events if e["event"] == "plan" and e["text"].startswith("rounds: fitted again")]
    assert (
        f"after the loads took {SLOW_LOAD_S:.1f} s a variant to load and warm up (the plan assumed {fit.load_s:.1f} s)" in said
    )  # why, both load times
    b = run.rounds.budget  # the report's Time budget line says the plan the rounds ran under, beside the first
    assert (b.refit_load_s, b.refit_rounds) == (SLOW_LOAD_S, int(said.split("about ")[1].split(" round")[0]))
    line = budget_lines(run)[0]
    assert (
        f"{fit.load_s:.1f} s per variant to load and warm up)" in line
        and f"fitted again after the loads took {SLOW_LOAD_S:.1f} s a variant to load and warm up: about {b.refit_rounds} round"
        in line
    )
    first = [r for r in run.rounds.rounds if r.group == 0]
    ended = run.rounds.groups[0].ended or ""
    assert not ended.startswith("time budget") and len(first) >= MIN_ROUNDS - 1, ended  # not cut short by the loads
    cut = [n for n in FIVE if f"{n} not measured: after the loads" in said]
    assert cut and cut == list(FIVE)[len(FIVE) - len(cut) :]  # the least promising go, as the first plan cuts
    assert sweep.unloaded[: len(cut)] == cut  # unloaded before the rounds, never in one
    assert not any(v.variant in cut for r in first for v in r.order)
    for n in cut:  # then, as the first plan's cuts, measured after the rounds if their time fits, else said cut
        reason = next((c.reason for c in run.rounds.cuts if c.variant == n and c.kind == "variant"), None)
        assert run.variant(n).status == "ok" or (reason or "").startswith("not measured: after the rounds")


def test_loads_as_fast_as_planned_keep_the_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    run, fit, _, events, sweep = _sweep(monkeypatch, 150.0, load_s=FAST_LOAD_S)
    assert not any("after the loads" in c.reason for c in run.rounds.cuts) and not sweep.unloaded[: len(FIVE) - 1]
    assert not any(e["event"] == "plan" and "fitted again" in e["text"] for e in events)
    assert run.rounds.budget.refit_rounds is None and "fitted again" not in budget_lines(run)[0]


def test_the_baselines_reserve_is_not_taken_off_twice() -> None:
    """Reviewer: the engine's deadline already leaves the baseline's reserve aside; refit took it off
    again, so loads as fast as planned still cut levels ("after the loads took 5.0 s a variant (the
    plan assumed 5.0 s)")."""
    from perf.search.refit import refit

    levels, adaptive = ladder(AUTO, SearchRules())
    rules, budget_s = RoundRules(), 300.0
    fit = budgets.fit(list(FIVE), levels, adaptive, 1, rules, SearchRules(), budget_s, True)
    assert fit.reserve_s > 0  # the baseline's time kept up front
    left = budget_s - fit.reserve_s - len(FIVE) * fit.load_s  # the engine's deadline, after loads as planned
    assert refit(fit, list(fit.variants), fit.load_s, levels, adaptive, 1, rules, SearchRules(), left, set()) is None


def _cap_said(reason: str) -> int:
    """N of a levels cut "concurrency above N not measured ..."."""
    return int(reason.split("concurrency above ")[1].split(" ")[0])


@pytest.mark.parametrize("load_s", [4.0, 12.0])  # the first plan kept; fitted again after slow loads
def test_a_resume_plans_the_levels_it_measured_before(monkeypatch: pytest.MonkeyPatch, load_s: float) -> None:
    """Trial 8, F11: a run stopped after its first round (levels 1, 4, 16 measured) and resumed with
    133 s left planned "concurrency above 4 not measured", yet its rounds measured 16 again (the
    resumed ladder keeps every level with numbers) and its report's peak was at 16. The plan's
    ladder is not lowered below a level measured before: what is measured and what is said agree."""
    from perf.search import promise

    four = dict(list(FIVE.items())[:4])
    for n, curve in four.items():
        monkeypatch.setitem(simulated_host.TRUE, n, curve)
    host = SimHost(3, amplitude=0.0, noise=0.3, visit_s=1.0)
    rules = RoundRules()
    run, plans, levels, adaptive = sim_run(four, 3, rules)
    session1 = Rounds(run, Setup(plans, levels, adaptive, SearchRules(), rules, "prune", None, None), 1.0, host.clock, 20.0)
    session1.run_group(list(four), 0, host.measure)  # one round fits its deadline: the coarse 1, 4, 16
    assert promise.measured_top(run, list(four)) == 16
    before = len(run.rounds.rounds)
    left = 120.0  # without the floor: "concurrency above 4 not measured"
    names = promise.by_measurements(list(four), run)
    fit = budgets.fit(names, levels, adaptive, 1, rules, SearchRules(), left, False, set(names), promise.measured_top(run, names))
    assert fit.cap is not None and fit.cap >= 16
    run.rounds.budget = BudgetRecord(left, fit.visit_s, fit.load_s, fit.estimate_s, fit.rounds, fit.cap)
    setup = Setup(plans, levels, adaptive, SearchRules(), rules, "prune", None, fit.cap)
    engine = Rounds(run, setup, fit.visit_s, host.clock, host.clock() + left)
    sweep = SimSweep(run, plans, host, [], load_s)
    sweep.run_rounds(engine, fit.variants, fit)
    measured = {v.concurrency for r in run.rounds.rounds[before:] for v in r.order}
    assert measured and max(measured) <= (engine.setup.cap or levels[-1])  # the engine measures what the plan says
    for c in run.rounds.cuts:
        if c.kind == "levels":  # no cut the run's own numbers contradict
            tops = [max(ladders_seen(v)) for v in run.variants if ladders_seen(v)]
            assert max(tops) <= _cap_said(c.reason), c.reason
        if c.kind == "ladder":  # at the variant's own top
            assert c.concurrency == max(ladders_seen(run.variant(c.variant or ""))), c


def test_fitted_again_the_ladder_stays_at_the_levels_measured_before() -> None:
    """Trial 8, F11, the plan fitted again after slow loads (:func:`perf.search.refit.refit`): the
    one rule (:func:`perf.search.shrink.shrink`) keeps the first plan's floor, so the new cap is
    not below a level a resume measured before; the variants go instead."""
    from perf.search.refit import refit

    levels, adaptive = ladder(AUTO, SearchRules())
    rules, names = RoundRules(), list(FIVE)[:4]
    fit = budgets.fit(names, levels, adaptive, 1, rules, SearchRules(), 150.0, False, set(names), 16)
    again = refit(fit, names, SLOW_LOAD_S, levels, adaptive, 1, rules, SearchRules(), 70.0, set(names))
    assert again is not None and again.cap == 16 and len(again.variants) < len(names)
    assert all(_cap_said(c.reason) >= 16 for c in again.cuts if c.kind == "levels")


def test_each_message_is_said_once(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """Trial 8, F8: "rounds: fitted again ..." was printed twice, as a WARNING log line and as the plan
    event the CLI prints. With a listener an event's words are not logged as well (perf.search.events)."""
    with caplog.at_level(logging.DEBUG):
        run, _, _, events, sweep = _sweep(monkeypatch, 150.0, load_s=SLOW_LOAD_S)
        sweep._fail(run.variants[0], "boom")
    logged = [r.getMessage() for r in caplog.records]
    said = [e["text"] for e in events if e["event"] in ("plan", "spent")]
    assert any(t.startswith("rounds: fitted again") for t in said) and not set(said) & set(logged)
    assert any(e["event"] == "search_decision" and e["decision"] is not None for e in events)
    assert not [m for m in logged if "not measured further because" in m or "failed: boom" in m]


def test_without_a_listener_each_message_is_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    from perf.records.search import SearchDecision
    from perf.search.events import log_event

    d = SearchDecision(variant="a", rule="pruned", concurrency=4, reason="b beats it")
    with caplog.at_level(logging.INFO):
        log_event({"event": "plan", "text": "rounds: fitted again, about 6 rounds", "warn": True})
        log_event({"event": "plan", "text": "rounds: 5 variants"})
        log_event({"event": "search_decision", "variant": "a", "decision": d, "levels_left": 0})
        log_event({"event": "search_decision", "variant": "a", "decision": d, "provisional": True})
        log_event({"event": "variant_failed", "variant": "a", "error": "boom", "levels_left": 0})
        log_event({"event": "level_start", "variant": "a"})
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        ("WARNING", "rounds: fitted again, about 6 rounds"),
        ("INFO", "rounds: 5 variants"),
        ("INFO", "a: not measured further because b beats it"),
        ("WARNING", "variant a failed: boom"),
    ]
