"""Trial 29, T29-5: a run whose time budget ended its rounds after 1 of the 6 a verdict needs, its visits 5.9 s each
(``--perf-analyzer-arg=--warmup-request-count=3000``) and its ladders capped at concurrency 4. Its no-budget resume
advised "`--resume t29b --time-budget 3m` gives it the 5 of the 6 rounds a verdict needs it lacks (about 134 s: the
loads and rounds as measured)"; its resume given ``--time-budget 2m`` planned "about 7 rounds of 1.25 s visits:
estimated 84 s" and lifted the cap ("its ladders may grow up to 64"): 8 visits a round instead of 4, and it ended
with 4 of the 6 rounds. Now every plan of a resume is priced from the run's measured visits, loads and unloads
(perf.sweep.budget_scope.run_prices), sized for the rounds the verdict lacks, and keeps the earlier session's cap
unless its budget fits a verdict's rounds above it; its hint is the advice's words, at the advice's price."""

from __future__ import annotations

import dataclasses
import re
import time
from pathlib import Path
from typing import Any

import pytest
from factories import level_result, served_model
from python_models import write_measured_models

from clients.runtimes.identity import found_artifact
from clients.server import ServerOptions
from perf.records import results
from perf.records.rounds import BudgetRecord, Cut, LoadGroup, RoundRecord, Visit
from perf.sweep.opening import opening_lines
from perf.sweep.options import SweepOptions
from perf.sweep.run import Sweep

TOPS = {"a_mbs8": 500.0, "b_mbs8": 480.0}
LEVELS = (1, 4)  # the capped ladder's levels of a round (1, 2, 4: two a round)
VISIT_S = 5.9
ENDED = "time budget spent: 10.1 s left, the next round and the unloads (30.2 s estimated) do not fit; 1 of the 6 rounds a verdict needs"
ADVICE = re.compile(
    r"`--resume t29b --time-budget (\d+)m` gives it the 5 of the 6 rounds a verdict needs it lacks \(about (\d+) s: [^)]*\)[^)]*\)"
)


def _finished(tmp_path: Path) -> SweepOptions:
    """The run as its 60 s session left it: 1 round of 4 visits of 5.9 s, the ladders capped at 4, ended for time."""
    repo = write_measured_models(tmp_path / "repo", TOPS)
    opts = SweepOptions(
        ServerOptions(repo, runtime="bundled"),
        results_dir=tmp_path / "results",
        run_id="t29b",
        time_budget_s=60.0,
        baseline=False,
    )
    sw = Sweep(opts)
    run, rr = sw.run, sw.run.rounds
    assert rr is not None and run.search is not None
    run.settings = sw._settings()  # type: ignore[assignment]
    run.search.order = list(TOPS)
    for n, top in TOPS.items():
        vr = run.variant(n) or results.VariantResult(n)
        vr.levels = [level_result(c, top * c / 4, 2.0 * c, trial=0) for c in LEVELS]
        vr.served = [served_model(n, max_batch_size=8, artifact=found_artifact(repo / n))]
        vr.status = "ok"
        if run.variant(n) is None:
            run.variants.append(vr)
    group = LoadGroup(0, list(TOPS), "every contender fits on the server", "localhost:1", 12.0, ended=ENDED, ended_by="time")
    group.unload_s = 4.0
    rr.groups = [group]
    rr.rounds = [RoundRecord(0, 0, rr.seed, "then", 24.0, [Visit(n, c, wall_s=VISIT_S) for n in TOPS for c in LEVELS])]
    rr.budget = BudgetRecord(60.0, 1.25, 5.0, 58.0, 7, 4, spent_s=55.0)
    rr.ended, rr.ended_by, run.finished = ENDED, "time", "then"
    run.sessions[-1].ended = "finished"
    results.save(run, sw.run_dir)
    sw.close()
    return dataclasses.replace(opts, resume=True)


def _advice(opts: SweepOptions) -> tuple[str, int, int]:
    """The no-budget resume's advice: its words, its minutes and its seconds."""
    sw = Sweep(dataclasses.replace(opts, given=frozenset()))
    try:
        line = " ".join(opening_lines(sw)[0].split())
    finally:
        sw.close()
    found = ADVICE.search(line)
    assert found is not None, line
    return found.group(0), int(found.group(1)), int(found.group(2))


def _plan(monkeypatch: pytest.MonkeyPatch, opts: SweepOptions, budget_s: float) -> tuple[str, Sweep]:
    """The plan line of a resume given ``budget_s`` (its rounds not run), and the sweep."""
    said: list[dict[str, Any]] = []
    monkeypatch.setattr(Sweep, "run_rounds", lambda self, engine, names, fit=None: None)
    sw = Sweep(dataclasses.replace(opts, time_budget_s=budget_s, given=frozenset({"time_budget_s"})), said.append)
    try:
        assert sw.rounds_ended is None  # its rounds go on (s22z, Z-14)
        now = time.monotonic()
        sw._rounds(now, now + budget_s)
    finally:
        sw.close()
    (plan,) = [e["text"] for e in said if e["event"] == "plan"]
    return " ".join(plan.split()), sw


def test_a_resume_plans_at_the_visits_the_run_measured_and_its_advice_price(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    opts = _finished(tmp_path)
    advice, minutes, need = _advice(opts)
    assert "5.90 s visits (the run's mean of 4) up to concurrency 4" in advice, advice  # old: "the loads and rounds as measured"
    # its price: 2 loads (6 s) and unloads (2 s), 5 rounds of 2 visits a variant at 5.9 s: about 134 s, 3m with the margin
    assert need == round(2 * (6.0 + 2.0) + 5 * 2 * 2 * VISIT_S) and minutes == 3, advice
    plan, sw = _plan(monkeypatch, opts, 120.0)
    assert "of 5.90 s visits (the run's mean of 4)" in plan and "1.25 s" not in plan, plan  # old: 1.25 s visits
    assert re.search(r"about 4 rounds of 5\.90 s visits \(the run's mean of 4\): estimated 110 s", plan), plan
    assert "with the run's 1, 5 of the 6 rounds a verdict needs" in plan and advice in plan, plan  # the advice's words
    # the earlier session's cap is kept, said with why and what lifts it (old: "is lifted: ... up to 64")
    assert "is lifted" not in plan and "keeps the time budget's cap of concurrency 4 of an earlier session" in plan, plan
    rr = sw.run.rounds
    assert rr is not None and rr.budget is not None
    assert rr.budget.max_concurrency == 4 and rr.budget.lifted_cap is None and rr.budget.visit_s == VISIT_S
    lift = re.search(r"`--resume t29b --time-budget (\d+)m` fits a verdict's rounds with ladders above it \(up to (\d+)\)", plan)
    assert lift is not None, plan
    # the budget it names lifts the cap; a minute less keeps it
    lifted, sw = _plan(monkeypatch, _finished(tmp_path / "again"), int(lift.group(1)) * 60.0)
    assert f"is lifted: its ladders may grow up to {lift.group(2)}" in lifted and "keeps the time budget's cap" not in lifted, (
        lifted
    )
    kept, _ = _plan(monkeypatch, _finished(tmp_path / "less"), int(lift.group(1)) * 60.0 - 60.0)
    assert "keeps the time budget's cap of concurrency 4" in kept, kept


def test_the_advised_budget_gives_the_rounds_it_names(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The resume the advice names plans the 5 rounds it lacks, at the cap kept, no hint of fewer."""
    opts = _finished(tmp_path)
    _, minutes, _ = _advice(opts)
    plan, _ = _plan(monkeypatch, opts, minutes * 60.0)
    assert "rounds a verdict needs unless the gap is large" not in plan, plan
    found = re.search(r"about (\d+) rounds of 5\.90 s visits", plan)
    assert found is not None and int(found.group(1)) >= 5, plan
    assert "keeps the time budget's cap of concurrency 4" in plan, plan


@pytest.mark.parametrize("budget_s", [120.0, 3600.0])
def test_a_cap_an_earlier_resume_lifted_stays_recorded_whatever_this_plan_caps(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, budget_s: float
) -> None:
    """s24a's note: a run capped at 4 whose first resume lifted the cap and capped its own ladders at 16; a later resume
    (keeping 16, or lifting it) recorded no lifted cap, or 16, so the notes of what was measured above 4 went."""
    opts = _finished(tmp_path)
    run = results.load(opts.results_dir / "t29b")
    assert run.rounds is not None and run.rounds.budget is not None
    run.rounds.budget.max_concurrency, run.rounds.budget.lifted_cap = 16, 4
    results.save(run, opts.results_dir / "t29b")
    _, sw = _plan(monkeypatch, opts, budget_s)
    rr = sw.run.rounds
    assert rr is not None and rr.budget is not None and rr.budget.lifted_cap == 4, rr.budget


def test_a_resume_whose_rounds_go_on_drops_the_earlier_sessions_rounds_cut(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """Trial 31, F14: after a resume given the time gave a time-ended run its rounds (2 -> 10), report.md still listed
    the first session's "rounds after the first 2 of group 1 not measured ... 2 of the 6 rounds a verdict needs". The
    rounds go on in this session (one that ends for time again records its own cut); the earlier one is dropped."""
    opts = _finished(tmp_path)
    run = results.load(opts.results_dir / "t29b")
    assert run.rounds is not None
    run.rounds.cut(Cut("rounds", f"rounds after the first 1 of group 1 not measured: {ENDED}"))
    run.rounds.cut(Cut("variant", "not measured: about 90 s", "c_mbs8"))
    results.save(run, opts.results_dir / "t29b")
    _, sw = _plan(monkeypatch, opts, 600.0)
    rr = sw.run.rounds
    assert rr is not None and [c.kind for c in rr.cuts] == ["variant"], rr.cuts
