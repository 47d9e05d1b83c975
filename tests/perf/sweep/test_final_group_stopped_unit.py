"""A final group after the rounds stopped part-way (break-it F23): a resume's final group of the variants the time
budget cut, SIGTERM'd after its first round, left a run still marked finished: the next ``--resume`` said "will
measure: no round (its rounds had ended ...)" and measured nothing, the late variants kept 1 round of 6, the cut
caveat was gone and ``export-deployment`` bundled the pick unasked. Now the final group is recorded as under way
(``RoundsRecord.late``) until its rounds end, a resume that measures makes the run unfinished until it ends, and
the next resume measures that final group again, its rounds so far counted. Both the resume's final group
(perf.sweep.final) and a fresh sweep's (perf.sweep.rounds.RoundsSweep._late) are checked."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from factories import level_result, served_model
from python_models import write_measured_models

from clients.runtimes.identity import found_artifact
from clients.server import ServerOptions
from core.errors import PerfError
from perf.deploy.choose import choose_variant
from perf.records import results
from perf.records.rounds import BudgetRecord, Cut, LoadGroup, RoundRecord, Visit
from perf.records.unfinished import resume_budget_words, unfinished_text
from perf.sweep.budget_scope import spent_words
from perf.sweep.opening import opening_lines
from perf.sweep.options import SweepOptions
from perf.sweep.run import Sweep
from perf.sweep.servers import ServerPool

#: The simulated sweep's variants (tests/perf/sweep/test_late_group_unit.py's): the plan cuts the last, the true best.
SIX = {
    "v_a": (1000.0, 2.0),
    "v_b": (900.0, 2.0),
    "v_c": (700.0, 1.5),
    "v_d": (600.0, 1.0),
    "v_e": (500.0, 1.0),
    "v_f": (1200.0, 2.0),
}
LOAD_S = 3.0
RANKED = {"a_mbs8": 900.0, "b_mbs8": 500.0}  # a leads by far: the rounds' tie set is `a_mbs8`
CUT = ["c_mbs8", "d_mbs8"]
LEVELS = (1, 2, 4)


def _finished_run(tmp_path: Path) -> Path:
    """A finished run whose rounds ended with 2 of its 4 variants cut for time (their results dir)."""
    repo = write_measured_models(tmp_path / "repo", [*RANKED, *CUT])
    opts = SweepOptions(
        ServerOptions(repo, runtime="bundled"), results_dir=tmp_path / "results", run_id="f23", time_budget_s=120.0
    )
    sw = Sweep(opts)
    run, rr = sw.run, sw.run.rounds
    assert rr is not None and run.search is not None
    run.settings = sw._settings()  # type: ignore[assignment]
    run.search.order = [*RANKED, *CUT]
    done = 6
    for n, top in RANKED.items():
        vr = run.variant(n) or results.VariantResult(n)
        vr.levels = [level_result(c, top * c / 4 * (1 + 0.01 * t), 2.0 * c, trial=t) for t in range(done) for c in LEVELS]
        vr.served = [served_model(n, max_batch_size=8, artifact=found_artifact(repo / n))]
        vr.status = "ok"
        if run.variant(n) is None:
            run.variants.append(vr)
    for n in CUT:
        run.variants.append(results.VariantResult(n, status="skipped", error="cut for time: 4 variants need about 116 s"))
        rr.cut(Cut("variant", "not measured: 4 variants need about 116 s for the 6 rounds a verdict needs", n))
    rr.groups = [LoadGroup(0, list(RANKED), "every contender fits", "localhost:1", 20.0, "ranking decided (after 6 rounds)")]
    rr.groups[0].tie_set = ["a_mbs8"]
    rr.rounds = [
        RoundRecord(t, 0, rr.seed + t, "then", 6.0, [Visit(n, c, wall_s=1.0) for n in RANKED for c in LEVELS])
        for t in range(done)
    ]
    rr.budget = BudgetRecord(120.0, 1.0, 5.0, 100.0, 7, 4, spent_s=75.0)
    rr.ended, run.finished = "ranking decided (after 6 rounds)", "then"
    run.sessions[-1].ended = "finished"
    results.save(run, sw.run_dir)
    sw.close()
    return tmp_path / "results"


def _one_round(sweep: Sweep, names: list[str], why: str) -> list[str]:
    """A final group's first round, as the sweep records it (its group, its round, its members' numbers)."""
    rr = sweep.run.rounds
    assert rr is not None
    group = LoadGroup(len(rr.groups), list(names), why, "localhost:1", 5.0)
    rr.groups.append(group)
    index = rr.next_index()
    rr.rounds.append(RoundRecord(index, group.index, rr.seed + index, "now", 3.0, [Visit(n, 4, wall_s=1.0) for n in names]))
    for n in names:
        vr = sweep._variant(n)
        vr.status = "pending"  # as a load leaves it (perf.sweep.rounds.RoundsSweep._load)
        vr.levels.append(level_result(4, 950.0 if n == CUT[0] else 400.0, 8.0, trial=index))
    sweep._save()
    return group.tie_set


def _resume(results_dir: Path, monkeypatch: pytest.MonkeyPatch, groups: Any) -> Sweep:
    monkeypatch.setattr(ServerPool, "start_all", lambda self: None)
    monkeypatch.setattr(ServerPool, "stop", lambda self: None)
    monkeypatch.setattr("perf.sweep.run.refuse_changed", lambda *a, **k: None)
    monkeypatch.setattr(Sweep, "start_session", lambda self, fit, refitted: None)
    monkeypatch.setattr(Sweep, "_groups", groups)
    repo = results_dir.parent / "repo"
    opts = SweepOptions(ServerOptions(repo, runtime="bundled"), results_dir=results_dir, run_id="f23", baseline=False)
    return Sweep(dataclasses.replace(opts, resume=True, time_budget_s=600.0, given=frozenset({"time_budget_s"})))


def test_a_resumes_final_group_stopped_part_way_is_measured_by_the_next_resume(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    results_dir = _finished_run(tmp_path)

    def stopped(self: Sweep, engine: Any, names: list[str], why: str) -> list[str]:
        _one_round(self, names, why)
        raise KeyboardInterrupt("SIGTERM")  # after the final group's first round

    sw = _resume(results_dir, monkeypatch, stopped)
    assert sw.final is not None and sw.final.variants == CUT
    with pytest.raises(KeyboardInterrupt):
        sw.run_all()
    run = results.load(results_dir / "f23")
    assert run.rounds is not None
    assert run.finished is None  # it was "finished": report.md and export-deployment read a partial group as complete
    assert run.rounds.late is not None and run.rounds.late.variants == CUT and run.rounds.late.tie == ["a_mbs8"]
    assert [run.variant(n).status for n in CUT] == ["pending", "pending"]  # type: ignore[union-attr]
    said = unfinished_text(run) or ""
    assert f"2 of them part-measured: `{CUT[0]}`, `{CUT[1]}`" in said, said
    with pytest.raises(PerfError, match="did not finish"):  # it bundled the pick unasked
        choose_variant(run, results_dir=results_dir)

    rounds: list[int] = []

    def measured(self: Sweep, engine: Any, names: list[str], why: str) -> list[str]:
        assert self.run.rounds is not None
        rounds.append(len(self.run.rounds.rounds_of(names)))  # the stopped group's round counts towards this one's
        _one_round(self, names, why)
        self.run.rounds.groups[-1].ended, self.run.rounds.groups[-1].tie_set = "ranking decided", ["c_mbs8"]
        return ["c_mbs8"]

    again = _resume(results_dir, monkeypatch, measured)
    assert again.rounds_ended == "ranking decided (after 6 rounds)" and not again.nothing_to_measure
    assert again.final is not None and again.final.variants == CUT and again.final_tie == ["a_mbs8"]
    line = " ".join(opening_lines(again)[0].split())
    assert "will measure: no round" not in line, line  # "no round (its rounds had ended ...)": nothing measured
    assert f"part-measured before, measured further: `{CUT[0]}`, `{CUT[1]}`) with the tie set `a_mbs8` in a final group" in line
    # priced for the rounds it lacks, as the engine counts the stopped group's round towards it
    assert sw.final is not None and again.final.estimate_s < sw.final.estimate_s
    assert "s for the 5 rounds of the 6 a verdict needs, within" in line, line
    assert "for the 5 rounds of the 6 a verdict needs" in again.final.reason
    again.run_all()
    assert rounds == [1]
    run = results.load(results_dir / "f23")
    assert run.rounds is not None and run.rounds.late is None and run.finished is not None
    assert [run.variant(n).status for n in CUT] == ["ok", "ok"]  # type: ignore[union-attr]


def test_a_stop_before_the_final_groups_first_load_leaves_it_to_the_next_resume(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A stop while the resume's server starts (before its final group loads anything): the run is unfinished and the
    next resume plans the same final group (its cut variants, never measured, still said cut for time)."""
    results_dir = _finished_run(tmp_path)
    sw = _resume(results_dir, monkeypatch, lambda *a: pytest.fail("no group was expected"))

    def stopped_start(self: Any) -> None:
        raise KeyboardInterrupt("SIGINT")

    monkeypatch.setattr(ServerPool, "start_all", stopped_start)
    with pytest.raises(KeyboardInterrupt):
        sw.run_all()
    run = results.load(results_dir / "f23")
    assert run.finished is None and run.rounds is not None and run.rounds.late is not None
    assert "cut for time (`c_mbs8`, `d_mbs8`)" in (unfinished_text(run) or "")
    again = _resume(results_dir, monkeypatch, lambda *a: [])
    assert again.final is not None and again.final.variants == CUT and again.rounds_ended == "ranking decided (after 6 rounds)"


def test_a_fresh_sweeps_final_group_stopped_part_way_is_measured_by_its_resume(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh sweep stopped in its final group (perf.sweep.rounds.RoundsSweep._late) is resumed into that final group,
    its rounds so far counted; it re-planned every variant in new rounds, its late variants' round ignored."""
    import simulated_host
    from simulated_host import SimHost, SimSweep, sim_run

    from perf.records.rounds import RoundRules
    from perf.records.search import SearchRules
    from perf.search import budget as budgets
    from perf.search.rounds import Rounds, Setup
    from perf.sweep.final import ResumedRounds

    for n, curve in SIX.items():
        monkeypatch.setitem(simulated_host.TRUE, n, curve)
    host = SimHost(3, amplitude=0.0, noise=0.02, visit_s=1.0)
    rules = RoundRules()
    run, plans, levels, adaptive = sim_run(SIX, 3, rules)
    fit = budgets.fit(list(SIX), levels, adaptive, 1, rules, SearchRules(), 120.0, False)
    for cut in fit.cuts:
        run.rounds.cut(cut)
        if cut.kind == "variant":
            vr = run.variant(cut.variant)
            vr.status, vr.error = "skipped", f"cut for time: {cut.reason}"
    setup = Setup(plans, levels, adaptive, SearchRules(), rules, "prune", None, fit.cap)
    engine = Rounds(run, setup, fit.visit_s, host.clock, host.clock() + 120.0)

    class Stopped(SimSweep):
        def _measure_group(self, engine: Rounds, loaded: list[str], group: int) -> list[str]:
            if not self.run.rounds.groups[group].reason.startswith("after the rounds"):
                return super()._measure_group(engine, loaded, group)
            first = engine.record.next_index()

            def measure(name: str, key: Any) -> Any:
                if key[2] > first:  # its first round measured, then a stop
                    raise KeyboardInterrupt("SIGTERM")
                return host.measure(name, key)

            return engine.run_group(loaded, group, measure)

    sweep = Stopped(run, plans, host, [], LOAD_S)
    with pytest.raises(KeyboardInterrupt):
        sweep.run_rounds(engine, fit.variants, fit)
    late = run.rounds.late
    assert late is not None and late.variants and set(late.variants) <= set(fit.cut_variants)
    assert late.after == run.rounds.groups[0].ended and late.tie == run.rounds.groups[0].tie_set
    assert run.finished is None and all(run.variant(n).status == "pending" for n in late.variants)

    class Resumed(SimSweep, ResumedRounds):
        def clock(self) -> float:
            return host.clock()

    run.search.order = list(SIX)
    resumed = Resumed(run, plans, host, [], LOAD_S)
    resumed.levels, resumed.adaptive, resumed.budget, resumed.recorded_budget_s = levels, adaptive, None, 600.0
    resumed.opts = type("Opts", (), {"max_loaded": None, "unload_timeout_s": 10.0, "resume": True, "time_budget_s": 600.0})()
    assert resumed.rounds_ended == late.after and resumed.final is not None
    assert resumed.final.variants[: len(late.variants)] == late.variants and resumed.final_tie == late.tie
    stopped_rounds = len(run.rounds.group_rounds(len(run.rounds.groups) - 1))
    assert stopped_rounds == 1
    resumed.run_final(host.clock(), host.clock() + 600.0)
    assert run.rounds.late is None
    final = run.rounds.groups[-1]
    assert len(run.rounds.group_rounds(final.index)) > len([r for r in run.rounds.measured() if r.group == final.index])
    for n in late.variants:
        assert run.variant(n).status == "ok"


def test_a_stopped_final_group_no_budget_fits_is_cut_with_its_numbers_and_its_advice_measures_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The resume after the stop is given too short a budget for the final group: the late variants are cut with their
    numbers (their caveat: "`--resume RUN --time-budget Xm` measures them further"), and the resume that advice names
    measures them in a final group (it measured nothing: their numbers counted them as ranked)."""
    from perf.analysis.recommendation.cuts import unmeasured_caveat

    results_dir = _finished_run(tmp_path)

    def stopped(self: Sweep, engine: Any, names: list[str], why: str) -> list[str]:
        _one_round(self, names, why)
        raise KeyboardInterrupt("SIGTERM")

    with pytest.raises(KeyboardInterrupt):
        _resume(results_dir, monkeypatch, stopped).run_all()
    short = _resume(results_dir, monkeypatch, lambda *a: pytest.fail("no group was expected"))
    short.opts = dataclasses.replace(short.opts, time_budget_s=30.0)
    assert short.nothing_to_measure
    short.run_all()
    run = results.load(results_dir / "f23")
    assert run.rounds is not None and run.rounds.late is None and run.finished is not None
    cuts = {c.variant: c for c in run.rounds.cuts if c.kind == "variant"}
    assert set(cuts) == set(CUT) and all(c.final for c in cuts.values())
    caveat = unmeasured_caveat(run) or ""
    assert "measured in 1 round each only" in caveat and "`--resume f23 --time-budget " in caveat, caveat
    again = _resume(results_dir, monkeypatch, lambda *a: [])
    assert not again.nothing_to_measure and again.final is not None and again.final.variants == CUT


def test_a_final_group_stopped_after_its_rounds_ended_is_not_measured_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A stop in the unloads after the final group's rounds ended (its end recorded): the next resume loads nothing
    for it (its rounds, counted, had ended: loads for no round) and finishes the run."""
    results_dir = _finished_run(tmp_path)

    def ended_then_stopped(self: Sweep, engine: Any, names: list[str], why: str) -> list[str]:
        _one_round(self, names, why)
        assert self.run.rounds is not None
        self.run.rounds.groups[-1].ended, self.run.rounds.groups[-1].tie_set = "ranking decided", ["c_mbs8"]
        raise KeyboardInterrupt("SIGTERM")  # while its variants are unloaded

    with pytest.raises(KeyboardInterrupt):
        _resume(results_dir, monkeypatch, ended_then_stopped).run_all()
    assert results.load(results_dir / "f23").finished is None
    again = _resume(results_dir, monkeypatch, lambda *a: pytest.fail("no group was expected"))
    assert again.nothing_to_measure and again.rounds_ended == "ranking decided"  # the final group's end
    again.run_all()
    run = results.load(results_dir / "f23")
    assert run.rounds is not None and run.rounds.late is None and run.finished is not None
    assert [run.variant(n).status for n in CUT] == ["ok", "ok"]  # type: ignore[union-attr]


def test_a_stop_during_the_final_groups_loads_leaves_its_variants_not_measured_and_its_budget_whole(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Trial 23, T23-4: Ctrl-C during a resume's final group's loads, before its first visit, said the loaded variants
    "failed: no level produced a measurement", the printed --resume then measured nothing and exited 3; the time words
    said "the run's own 253 s time budget: 148 s after the 105 s it spent" (the first session's in-process baseline,
    counted in 253, was dropped from what it spent when the resume recorded its plan). Now they are not measured, the
    next resume measures them (no "part-measured": they have no numbers), and budget = spent + left, the loads
    spending none of it."""
    results_dir = _finished_run(tmp_path)
    run = results.load(results_dir / "f23")
    assert run.rounds is not None and run.rounds.budget is not None
    run.rounds.budget.baseline_s = 20.0  # the first session's in-process baseline: spent of its 120 s
    # cut after the rounds, as a fresh sweep's final group cuts them (RoundsSweep._late)
    run.rounds.cuts = [dataclasses.replace(c, final=True) for c in run.rounds.cuts]
    results.save(run, results_dir / "f23")

    def loads_stopped(self: Sweep, engine: Any, names: list[str], why: str) -> list[str]:
        self._variant(CUT[0]).status = "pending"  # loaded (perf.sweep.rounds.RoundsSweep._load), no visit yet
        raise KeyboardInterrupt("SIGTERM")  # during the next load

    sw = _resume(results_dir, monkeypatch, loads_stopped)
    assert sw.final is not None and sw.final.variants == CUT
    line = " ".join(opening_lines(sw)[0].split())
    assert "part-measured" not in line, line  # they have no numbers: said so of never-measured variants
    with pytest.raises(KeyboardInterrupt):
        sw.run_all()
    run = results.load(results_dir / "f23")
    assert run.finished is None and run.rounds is not None and run.rounds.late is not None
    assert [(v.status, v.levels) for v in map(run.variant, CUT)] == [("pending", []), ("skipped", [])]  # type: ignore[union-attr]
    said = unfinished_text(run) or ""
    assert "failed" not in said and "part-measured" not in said and f"1 not measured (`{CUT[0]}`)" in said, said
    # the resume's own: its 600 s and the 75 + 20 s spent before it; the loads before its first visit spend none
    spent = spent_words(run.rounds, (len(run.rounds.rounds), len(run.rounds.groups)), 12.0, 70.0, 75.0)
    assert spent.endswith(  # the 95 s the resume's budget line says (s22z, Z-10: "75 s before this resume" beside it)
        "12 s of the budget's clock so far (not counted on the time budget: no visit; estimated 70 s; 95 s of the run's time budget spent before this "
        "resume (75 s of rounds and loads, 20 s of the in-process baseline))"
    ), spent
    assert "the run's own 695 s time budget: 600 s after the 95 s it spent" in resume_budget_words(run)

    again = _resume(results_dir, monkeypatch, lambda *a: [])
    assert again.final is not None and again.final.variants == CUT and not again.nothing_to_measure
    line = " ".join(opening_lines(again)[0].split())
    assert f"`{CUT[0]}`, `{CUT[1]}` (cut for time) with the tie set `a_mbs8` in a final group" in line, line


def test_a_run_whose_stopped_final_group_an_earlier_version_recorded_failed_is_measured_by_its_resume(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Trial 23, T23-4, as the old code left the run: its resume's final group stopped in its loads, the run still
    finished and its cut variants "failed: no level produced a measurement" (no level at all); every later --resume said
    "no round (its rounds had ended ...)" and exited 3. Its resume now measures them as the cut variants they were."""
    results_dir = _finished_run(tmp_path)
    run = results.load(results_dir / "f23")
    for n in CUT:
        vr = run.variant(n)
        assert vr is not None
        vr.status, vr.error = "failed", "no level produced a measurement"
    results.save(run, results_dir / "f23")

    def measured(self: Sweep, engine: Any, names: list[str], why: str) -> list[str]:
        assert [self._variant(n).status for n in CUT] == ["pending", "pending"]  # not failed while measured
        _one_round(self, names, why)
        assert self.run.rounds is not None
        self.run.rounds.groups[-1].ended, self.run.rounds.groups[-1].tie_set = "ranking decided", ["c_mbs8"]
        return ["c_mbs8"]

    sw = _resume(results_dir, monkeypatch, measured)
    assert not sw.nothing_to_measure and sw.final is not None and sw.final.variants == CUT
    line = " ".join(opening_lines(sw)[0].split())
    assert "will measure: no round" not in line and f"`{CUT[0]}`, `{CUT[1]}` (cut for time) with the tie set" in line, line
    sw.run_all()
    run = results.load(results_dir / "f23")
    assert run.finished is not None and [run.variant(n).status for n in CUT] == ["ok", "ok"]  # type: ignore[union-attr]
