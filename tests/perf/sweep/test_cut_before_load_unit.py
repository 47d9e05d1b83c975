"""The time budget's plan fitted again before each load of the first group, so a variant it cuts
is never loaded (trial 12, F6: two variants loaded in 10.4 s and 9.4 s, then cut "after the loads
took 12.7 s a variant": 20 s of a 120 s budget spent loading variants never measured). The
sweep's own load loop on the simulated host (tests/support/simulated_host.py)."""

from __future__ import annotations

import pytest
from simulated_host import FAST_LOAD_S, FIVE, SLOW_LOAD_S, SimLoads, budgeted_sweep

from perf.analysis.ranking.operating import MIN_ROUNDS
from perf.records.rounds import Cut
from perf.report.sections.rounds_budget import budget_lines
from perf.search.promise import RULE


def _sweep(
    monkeypatch: pytest.MonkeyPatch,
    budget_s: float,
    load_s: float,
    load_times: dict[str, float] | None = None,
    sweep_class: type[SimLoads] = SimLoads,
):
    run, fit, _, events, sweep = budgeted_sweep(monkeypatch, budget_s, load_s, sweep_class, load_times=load_times)
    return run, fit, events, sweep


def _refits(events: list) -> list[str]:
    """The words of each "rounds: fitted again" the sweep said."""
    return [e["text"] for e in events if e["event"] == "plan" and e["text"].startswith("rounds: fitted again")]


def _cut_by(said: list[str]) -> list[str]:
    """The variants those words cut, in the order cut."""
    return [n for t in said for n in FIVE if f"{n} not measured: after the" in t]


def test_a_variant_the_loads_so_far_cut_is_not_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    run, fit, events, sweep = _sweep(monkeypatch, 150.0, load_s=SLOW_LOAD_S)
    assert fit.variants == list(FIVE)  # the first plan kept every variant
    first = run.rounds.groups[0]
    assert first.variants == sweep.loads[: len(first.variants)]
    said = _refits(events)
    cut = _cut_by(said)
    assert cut and sorted(cut) == [n for n in FIVE if n not in first.variants]  # fitted again: some cut
    assert sorted(cut) == list(FIVE)[len(FIVE) - len(cut) :]  # the least promising go, as the plan cuts them
    assert not set(cut) & set(sweep.loads[: len(first.variants)])  # never loaded for the group
    assert not set(cut) & set(sweep.unloaded)  # so never unloaded before the rounds either
    assert (
        f"{cut[0]} not measured: after the first load took {SLOW_LOAD_S:.1f} s a variant to load and warm up (the plan assumed {fit.load_s:.1f} s), "
        in said[0]
    )
    assert all("for their loads and the" in t for t in said), said  # the loads still to come counted, in numbers
    for n in cut:  # "not measured (cut for time)" with the reason, or measured late in the time the rounds left
        vr = run.variant(n)
        assert vr.status == "ok" or (vr.status == "skipped" and (vr.error or "").startswith("cut for time: after the")), vr
    assert first.load_s == pytest.approx(SLOW_LOAD_S * len(first.variants))  # the loads' time, on the budget's clock
    rounds = [r for r in run.rounds.rounds if r.group == 0]
    assert len(rounds) >= MIN_ROUNDS - 1 and not (first.ended or "").startswith("time budget"), first.ended


def test_loads_as_fast_as_planned_load_every_variant(monkeypatch: pytest.MonkeyPatch) -> None:
    run, _, events, sweep = _sweep(monkeypatch, 150.0, load_s=FAST_LOAD_S)
    assert sweep.loads[: len(FIVE)] == list(FIVE) and run.rounds.groups[0].variants == list(FIVE)
    assert not _refits(events)


def test_a_slow_last_load_is_still_cut_after_the_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    """The loads before it as planned, the last one slow: nothing to cut before it; the plan fitted
    again after the loads (perf.sweep.rounds.RoundsSweep._refit) cuts what they left no time for, unloaded."""
    slow = {"w_e": 90.0}
    _, _, events, sweep = _sweep(monkeypatch, 150.0, load_s=FAST_LOAD_S, load_times=slow)
    mean = (FAST_LOAD_S * (len(FIVE) - 1) + slow["w_e"]) / len(FIVE)
    assert sweep.loads[: len(FIVE)] == list(FIVE)
    said = _refits(events)
    cut = _cut_by(said)
    assert len(said) == 1 and cut and f"not measured: after the loads took {mean:.1f} s a variant" in said[0], said
    assert sweep.unloaded[: len(cut)] == cut


def test_the_cut_order_is_said_once_in_the_report_not_in_each_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bench's console line carried the whole order rule (about 700 characters) after what was cut and
    its numbers, and the report repeated it in every cut's line: the rule is said once, where the cuts are listed."""
    run, _, events, _ = _sweep(monkeypatch, 150.0, load_s=SLOW_LOAD_S)
    plans = [e["text"] for e in events if e["event"] == "plan"]
    assert _cut_by(_refits(events)) and not any("cut in this order" in t or RULE in t for t in plans), plans
    assert not any(RULE in c.reason for c in run.rounds.cuts)
    cut = [c for c in run.rounds.cuts if c.kind == "variant"]
    old = Cut(
        "variant", f"{cut[0].reason} (cut in this order: {RULE}; measured after the rounds if the time they leave fits it)", "old"
    )
    run.rounds.cuts.append(old)  # a run recorded before: its reason carried the rule
    text = "\n".join(budget_lines(run))
    assert text.count(RULE) == 1 and f"variants cut in this order: {RULE}" in text, text


class _OneFails(SimLoads):
    """:class:`SimLoads` whose load of ``w_b`` fails after taking its time, as a refused model's does."""

    def _load(self, engine, name: str) -> bool:
        super()._load(engine, name)
        if name != "w_b":
            return True
        vr = self._variant(name)
        vr.status, vr.error = "failed", "the model refused to load"
        return False


def test_the_plan_is_fitted_to_one_load_time_before_and_after_the_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    """The two fits differed: before a load the loads so far were priced per attempt, after the loads at the
    group's time per variant loaded, so a failed load's time was counted and the load not: the words said a
    load time no load took. One number now: the mean of the load attempts, in the words, the report's record
    and the late group's estimate alike."""
    slow = {"w_e": 21 * FAST_LOAD_S}
    run, _, events, sweep = _sweep(monkeypatch, 150.0, load_s=FAST_LOAD_S, load_times=slow, sweep_class=_OneFails)
    assert sweep.loads[: len(FIVE)] == list(FIVE) and run.variant("w_b").status == "failed"
    mean = (FAST_LOAD_S * (len(FIVE) - 1) + slow["w_e"]) / len(FIVE)  # every attempt, the failed one too
    said = _refits(events)
    assert len(said) == 1 and f"after the loads took {mean:.1f} s a variant" in said[0], said
    assert run.rounds.budget.refit_load_s == pytest.approx(mean, abs=0.01)
    for c in run.rounds.cuts:  # the variants still cut after the rounds say the same load time
        assert "s a load" not in c.reason or f"{mean:.1f} s a load" in c.reason, c.reason
