"""A resumed rounds run stopped after its rounds had ended (trial 13, T13-5): Ctrl-C after the 10th round
of its group (max_rounds), before the run finished, 2 of 4 variants cut for time. Its resume said "will
measure: more rounds ... then the in-process baseline", loaded both ranked variants (32 s), measured 0
rounds ("ended: 10 rounds, the most a group gets") and never planned the cut ones. Now the rule that ends
a group's rounds is asked before anything is loaded (perf.search.ending.ends), the resume line says that
plan, no server starts when the cut variants fit no final group, and those that fit are that final."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from efficiency_runs import KEY
from factories import level_result, served_model
from python_models import write_measured_models

from clients.runtimes.identity import found_artifact
from clients.server import ServerOptions
from perf.analysis.recommendation import cuts
from perf.cli import main as perf_cli
from perf.profile.estimate import BaselineEstimate
from perf.records import results
from perf.records.baseline import BaselinePoint, BaselineResult, BaselineSettings, BaselineTarget
from perf.records.rounds import BudgetRecord, Cut, LoadGroup, RoundRecord, Visit
from perf.sweep.opening import opening_lines
from perf.sweep.options import SweepOptions
from perf.sweep.run import Sweep
from perf.sweep.servers import ServerPool

RANKED = {"a_mbs8": 900.0, "b_mbs8": 500.0}  # best throughput at the top level: a leads by far
CUT = ["c_mbs8", "d_mbs8"]
LEVELS = (1, 2, 4)


def _interrupted(tmp_path: Path, **kw: Any) -> tuple[Path, int]:
    """The run as the trial's Ctrl-C left it (its results dir, and the rounds its group got: max_rounds)."""
    repo = write_measured_models(tmp_path / "repo", [*RANKED, *CUT])
    opts = SweepOptions(
        ServerOptions(repo, runtime="bundled"), results_dir=tmp_path / "results", run_id="t13", time_budget_s=120.0, **kw
    )
    sw = Sweep(opts)
    run, rr = sw.run, sw.run.rounds
    assert rr is not None and run.search is not None
    run.settings = sw._settings()  # type: ignore[typeddict-item]
    run.search.order = [*RANKED, *CUT]
    done = rr.rules.max_rounds
    for n, top in RANKED.items():
        vr = run.variant(n) or results.VariantResult(n)
        vr.levels = [level_result(c, top * c / 4 * (1 + 0.01 * t), 2.0 * c, trial=t) for t in range(done) for c in LEVELS]
        vr.served = [served_model(n, max_batch_size=8, artifact=found_artifact(repo / n))]
        vr.status = "pending"  # as an interrupted session leaves them
        if run.variant(n) is None:
            run.variants.append(vr)
    for n in CUT:
        vr = results.VariantResult(n, status="skipped", error="cut for time: 4 variants need about 116 s")
        run.variants.append(vr)
        rr.cut(Cut("variant", "not measured: 4 variants need about 116 s for the 6 rounds a verdict needs", n))
    rr.groups = [LoadGroup(0, list(RANKED), "every contender fits on the server", "localhost:1", 20.0)]
    rr.rounds = [
        RoundRecord(t, 0, rr.seed + t, "then", 6.0, [Visit(n, c, wall_s=1.0) for n in RANKED for c in LEVELS])
        for t in range(done)
    ]
    rr.budget = BudgetRecord(120.0, 1.0, 5.0, 100.0, 7, 4, spent_s=75.0)
    run.sessions[-1].ended = "interrupted"
    results.save(run, sw.run_dir)
    return tmp_path / "results", done


def _resume(results_dir: Path, budget: str) -> Any:
    args = [
        "sweep",
        "--resume",
        "t13",
        "--results-dir",
        str(results_dir),
        "--time-budget",
        budget,
        "--no-baseline",
        "--no-report",
    ]
    return CliRunner().invoke(perf_cli.cli, args)


def test_a_resume_after_the_rounds_ended_loads_nothing_when_no_final_fits(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    results_dir, done = _interrupted(tmp_path)
    monkeypatch.setattr(ServerPool, "start_all", lambda self: pytest.fail("a server was started for rounds that had ended"))
    res = _resume(results_dir, "30s")
    said = " ".join(res.output.split())
    assert res.exit_code == 0, res.output
    assert "will measure: more rounds" not in said
    assert "will measure: no round (its rounds had ended (" in said
    assert f"nor its 2 variants cut for time, within a time budget of 30 s: `{CUT[0]}` not measured: after the rounds" in said
    assert said.count(f"`{CUT[0]}` not measured") == 1, said  # the end line points at the resume line (T18-13)
    assert "no longer measured" not in said  # the replay's retirements were said when they were measured (T18-13)
    run = results.load(results_dir / "t13")
    assert run.rounds is not None and len(run.rounds.measured()) == done  # no round added
    assert [v.status for v in run.variants if v.name in RANKED] == ["ok", "ok"]  # settled on the rounds it had
    assert run.finished is not None and run.rounds.ended
    for n in CUT:  # the real numbers of the re-made plan, said in its cut
        vr = run.variant(n)
        assert (
            vr is not None and vr.status == "skipped" and "after the rounds 30 s of the time budget were left" in (vr.error or "")
        )


def test_resume_takes_the_run_folders_path_as_report_does(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Re-check 19: `perf/run_sweep.sh --resume results/rc19b` was refused ("there is no run 'results/rc19b' to
    resume in results") while `report results/rc19b` takes the path."""
    results_dir, _ = _interrupted(tmp_path)
    monkeypatch.setattr(ServerPool, "start_all", lambda self: pytest.fail("a server was started for rounds that had ended"))
    monkeypatch.chdir(tmp_path)
    for folder in ("results/t13", str(results_dir / "t13")):  # relative to here, and absolute; no --results-dir
        args = ["sweep", "--resume", folder, "--time-budget", "30s", "--no-baseline", "--no-report"]
        res = CliRunner().invoke(perf_cli.cli, args)
        assert res.exit_code == 0 and "will measure: no round (its rounds had ended (" in " ".join(res.output.split()), res.output
    args = ["sweep", "--resume", "results/t13", "--results-dir", str(tmp_path / "other"), "--no-report"]
    res = CliRunner().invoke(perf_cli.cli, args)
    assert res.exit_code == 2 and "results/t13 is a run folder in results, but --results-dir names" in res.output
    # the default's value typed is a folder named too (re-check 20, NEW-5: a run in another folder was resumed there)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    args = ["sweep", "--resume", str(results_dir / "t13"), "--results-dir", "results", "--no-report"]
    res = CliRunner().invoke(perf_cli.cli, args)
    assert res.exit_code == 2 and "is a run folder in " in res.output and "but --results-dir names results" in res.output


def test_a_resume_after_the_rounds_ended_plans_the_cut_variants_in_a_final_group(tmp_path: Path):
    results_dir, _ = _interrupted(tmp_path)
    opts = SweepOptions(ServerOptions(tmp_path / "repo", runtime="bundled"), results_dir=results_dir, run_id="t13")
    sw = Sweep(dataclasses.replace(opts, resume=True, time_budget_s=600.0, given=frozenset({"time_budget_s"})))
    assert sw.rounds_ended is not None and not sw.nothing_to_measure
    assert sw.final is not None and sw.final.variants == CUT and sw.final_tie == ["a_mbs8"]
    from perf.sweep.opening import opening_lines

    line = opening_lines(sw)[0]
    # why: on the rounds line that follows, said once there (T23-13: the resume line said it too)
    assert (
        "will measure: no more rounds of the variants it ranked (their rounds had ended: why, on the rounds line below); " in line
    )
    assert f"`{CUT[0]}`, `{CUT[1]}` (cut for time) with the tie set `a_mbs8` in a final group, about " in line
    assert (
        line.endswith("within a time budget of 600 s; no in-process baseline (--no-baseline)")
        or "within a time budget of 600 s" in line
    )


def test_the_final_group_of_a_resume_measures_the_cut_variants_with_the_tie_set_only() -> None:
    """The resumed session's rounds (perf.sweep.final.ResumedRounds.run_final) on a simulated host: no
    round of the ranked variants in a group of their own; the cut ones meet the tie set in one final group."""
    from types import SimpleNamespace

    from simulated_host import SimHost, SimSweep, sim_run

    from perf.analysis.ranking.operating import MIN_ROUNDS
    from perf.records.rounds import RoundRules
    from perf.search.rounds import Rounds, Setup
    from perf.sweep import load_cuts
    from perf.sweep.final import ResumedRounds

    class SimFinal(SimSweep, ResumedRounds):
        def clock(self) -> float:
            return self.host.clock()

        def _groups(self, engine: Any, names: Any, why: str) -> Any:
            # the session state a real group's loads read (perf.sweep.rounds._load_group): a resume that went
            # straight to its final group ended in AttributeError '_groups_before' (re-check of trial 13's T13-5)
            assert not load_cuts.adds_nothing(self.run.rounds.groups[self._groups_before :], self._final, names)
            return super()._groups(engine, names, why)

    names, ranked, cut = ["v_best", "v_second", "v_third", "v_fourth"], ["v_best", "v_second"], ["v_third", "v_fourth"]
    run, plans, levels, adaptive = sim_run(names, 5, RoundRules(max_rounds=MIN_ROUNDS))  # its rounds end at max_rounds
    host = SimHost(5, amplitude=0.0)
    assert run.rounds is not None and run.search is not None
    setup = Setup(plans, levels, adaptive, run.search.rules, run.rounds.rules, "prune", None)
    run.rounds.groups.append(LoadGroup(0, ranked, "every contender fits", "sim", 10.0))
    Rounds(run, setup, 1.8, host.clock).run_group(ranked, 0, host.measure)  # the first session's rounds, to their end
    first = len(run.rounds.measured())
    run.rounds.groups[0].ended, run.rounds.ended = None, None  # Ctrl-C before the run recorded their end
    run.search.order = names
    for n in cut:
        vr = run.variant(n)
        assert vr is not None
        vr.status, vr.error = "skipped", "cut for time: 4 variants need about 116 s"
        run.rounds.cut(Cut("variant", "not measured: 4 variants need about 116 s", n))
    events: list[Any] = []
    sweep = SimFinal(run, plans, host, events, 5.0)
    sweep.levels, sweep.adaptive, sweep.budget, sweep.recorded_budget_s = levels, adaptive, None, 600.0
    sweep.opts = SimpleNamespace(max_loaded=None, unload_timeout_s=10.0, resume=True, time_budget_s=600.0)
    g0 = run.rounds.groups[0]
    g0.ended, g0.tie_set = "ranking decided", ["v_second"]  # a tie set the rounds recorded at their end is the final's
    recorded = SimFinal(run, plans, host, [], 5.0)
    recorded.levels, recorded.adaptive, recorded.budget, recorded.opts = levels, adaptive, None, sweep.opts
    assert recorded.final_tie == ["v_second"]
    g0.ended, g0.tie_set = None, []
    assert sweep.rounds_ended and sweep.final is not None and sorted(sweep.final.variants) == sorted(cut)
    tie = sweep.final_tie
    sweep.run_final(host.clock(), host.clock() + 600.0)
    final = run.rounds.groups[-1]
    assert len(run.rounds.groups) == 2 and sorted(final.variants) == sorted([*tie, *cut])  # one final group, nothing else loaded
    later = run.rounds.measured()[first:]
    assert later and all(r.group == final.index for r in later)
    for n in cut:
        vr = run.variant(n)
        assert vr is not None and vr.status == "ok" and any(lv.ok for lv in vr.levels)
    assert all(not (c.kind == "variant" and c.variant in cut) for c in run.rounds.cuts)  # measured: no longer cut
    for n in set(ranked) - set(tie):  # a ranked variant out of the tie set gets no round
        assert all(v.variant != n for r in later for v in r.order)


def test_a_resume_that_only_owes_its_baseline_times_it_within_the_time_budget(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """Re-check of trial 13 (T13-16 on the resume path): a resume of a run whose rounds had ended, with nothing
    left to measure but its in-process baseline, timed the baseline with no deadline (``_baseline(None)``): a
    30 s resume's baseline ran ~100 s. It now gets this session's deadline, as a sweep's own baseline does."""
    import perf.sweep.final
    import perf.sweep.run as sweep_run

    results_dir, _ = _interrupted(tmp_path)
    monkeypatch.setattr(ServerPool, "start_all", lambda self: pytest.fail("a server was started for rounds that had ended"))
    monkeypatch.setattr(perf.sweep.final, "baseline_missing", lambda run, opts: True)
    monkeypatch.setattr(sweep_run, "refuse_changed", lambda *a, **k: None)
    deadlines: list[float | None] = []
    monkeypatch.setattr(Sweep, "_baseline", lambda self, deadline: deadlines.append(deadline))
    res = _resume(results_dir, "30s")
    assert res.exit_code == 0, res.output
    assert len(deadlines) == 1 and deadlines[0] is not None


def _plan_line(output: str) -> str:
    """The resume's plan line (perf.sweep.final.ResumedRounds.finished_before), one line whatever the console's width."""
    said = " ".join(output.split())
    return said[said.index(" nothing more is measured into it") :]


def test_a_resume_names_each_variant_it_cannot_fit_with_its_own_time(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """Issue 26: the resume said the first cut's time and "(and 1 more)": the second variant's final needs more
    (it holds the first too), and that number was said nowhere."""
    results_dir, _ = _interrupted(tmp_path)
    monkeypatch.setattr(ServerPool, "start_all", lambda self: pytest.fail("a server was started for rounds that had ended"))
    res = _resume(results_dir, "30s")
    assert res.exit_code == 0, res.output
    run = results.load(results_dir / "t13")
    assert run.rounds is not None
    cuts = {c.variant: c for c in run.rounds.cuts if c.kind == "variant"}
    assert len({cuts[n].need_s for n in CUT}) == len(CUT)  # each its own time
    said = " ".join(res.output.split())  # said once, in the resume line; the end line points at it (T18-13)
    assert "more)" not in said
    for n in CUT:
        assert said.count(f"`{n}` {cuts[n].reason.rsplit(' (measured: ', 1)[0]}") == 1, said
    assert said.count("s a visit,") == 1, said  # the costs both cuts share, said once (T23-13)


def test_a_resume_of_a_finished_run_keeps_its_recorded_cuts_and_says_its_own_beside_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    """Issue 26: a resume of a run that had finished rewrote the cut reasons it finished with (the plan's "4
    variants need about 116 s") with the resume's numbers ("after the rounds 30 s ... were left"): the run's
    record now keeps what it finished with, and the resume's finding is said beside it."""
    results_dir, _ = _interrupted(tmp_path)
    run = results.load(results_dir / "t13")
    assert run.rounds is not None
    run.finished, run.rounds.ended = "then", "ranking decided (after 10 rounds)"
    for n in RANKED:
        vr = run.variant(n)
        assert vr is not None
        vr.status = "ok"
    results.save(run, results_dir / "t13")
    recorded = ([dataclasses.asdict(c) for c in run.rounds.cuts], [(v.status, v.error) for v in run.variants])
    monkeypatch.setattr(ServerPool, "start_all", lambda self: pytest.fail("a server was started for a finished run"))
    res = _resume(results_dir, "30s")
    assert res.exit_code == 0, res.output
    again = results.load(results_dir / "t13")
    assert again.rounds is not None
    assert ([dataclasses.asdict(c) for c in again.rounds.cuts], [(v.status, v.error) for v in again.variants]) == recorded
    line, said = _plan_line(res.output), " ".join(res.output.split())
    assert "cut for time keep the reasons recorded when it finished (this session's: the resume line above)" in line
    for n in CUT:  # this session's finding: in the resume line, once (T18-13)
        assert said.count(f"`{n}` not measured: after the rounds 30 s of the time budget were left") == 1, said


def test_a_resume_does_not_say_again_the_levels_its_rounds_retired(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """Trial 18, T18-13: a resume printed six "no longer measured: its p99 ... is over the budget" lines, the
    retirements its ladders' replay found again, before the resume line; they were said when measured."""
    results_dir, _ = _interrupted(tmp_path, latency_budget_ms=5.0)  # c=4's p99 of 8 ms: over it in every round
    monkeypatch.setattr(ServerPool, "start_all", lambda self: pytest.fail("a server was started for rounds that had ended"))
    res = _resume(results_dir, "30s")
    assert res.exit_code == 0, res.output
    said = " ".join(res.output.split())
    assert said.startswith("resume t13 — kept:"), said  # its first line says what it kept (README)
    assert "no longer measured" not in said


def _minutes(text: str) -> int:
    return int(text.split("--time-budget ")[1].split("m")[0])


def _resumed(tmp_path: Path, budget_s: float) -> Sweep:
    results_dir, _ = _interrupted(tmp_path)
    opts = SweepOptions(ServerOptions(tmp_path / "repo", runtime="bundled"), results_dir=results_dir, run_id="t13")
    return Sweep(dataclasses.replace(opts, resume=True, time_budget_s=budget_s, given=frozenset({"time_budget_s"})))


def test_the_resume_line_says_when_its_final_group_leaves_the_baseline_too_little(tmp_path: Path) -> None:
    sw = _resumed(tmp_path, 600.0)
    assert sw.final is not None and sw.final.variants == CUT
    roomy = opening_lines(sw)[0]
    assert roomy.endswith(", then the in-process baseline"), roomy
    group, need = sw.final.estimate_s, 87.0
    tight = _resumed(tmp_path / "tight", group + 1.0)  # the final group fits; the baseline does not
    assert tight.final is not None and tight.final.variants == CUT
    priced = BaselineEstimate(need, 4, 12, False)  # these python-backend stand-ins have no in-process model to price
    tight.baseline_estimate = lambda names: priced  # type: ignore[method-assign]
    line = opening_lines(tight)[0]
    assert ", then the in-process baseline only if the final group leaves it " in line, line
    assert f"(it needs an estimated {need:.0f} s; the final group's estimate leaves 1 s)" in line, line
    assert _minutes(line.split("`--resume t13 ")[1]) * 60 >= (group + need) * (1 + cuts.MARGIN), line


def test_a_skipped_baseline_names_the_resume_that_measures_the_cut_variants_and_keeps_it(tmp_path: Path) -> None:
    """Session 1 of T21-1 said "--time-budget 4m keeps it" (a new run's) beside the resume's "--time-budget 4m";
    session 2 said only "a longer --time-budget keeps it"."""
    sw = _resumed(tmp_path, 240.0)
    rr = sw.run.rounds
    assert rr is not None
    rr.cuts = [dataclasses.replace(c, need_s=193.0, final=True) for c in rr.cuts]
    rr.budget = BudgetRecord(240.0, 1.35, 11.9, 226.0, 6, sessions=2, session_budget_s=240.0)
    hint = sw._keeps_now(87.0)
    assert hint.startswith("`--resume t13 --time-budget ") and "measures them and keeps it" in hint, hint
    assert _minutes(hint) * 60 >= (193.0 + 87.0) * (1 + cuts.MARGIN), hint
    assert "about 193 s for their final group with the tie set and 87 s for it" in hint
    rr.cuts = []  # nothing left to a resume: the plan's own hint
    assert "measures them" not in sw._keeps_now(87.0)
    results.save(sw.run, sw.run_dir)


#: A resume owes the in-process baseline its run was asked for and has no whole one of (perf.sweep.resuming.baseline_missing,
#: the one rule of its resume line, of what it measures and of the advice that sends a resume for it).
SKIP = "skipped: 3 s of the time budget left, it needs an estimated 87 s; a longer --time-budget keeps it"


def _stopped_part_way() -> BaselineResult:
    """A baseline of ``a_mbs8`` Ctrl-C stopped in its 3rd of 8 rounds."""
    settings = BaselineSettings("timer", 0.1, 0.05, 3, 100, "inputs", 2, "rule", {}, rounds=8, host_busy_threshold_pct=10.0)
    target = BaselineTarget("a_mbs8", KEY, 1, [1], "python")
    point = BaselinePoint(KEY, 1, latency_p50_ms=0.5, latency_median_ms=0.5, throughput_infer_per_s=2000.0)
    point.rounds_ms = [0.5, 0.5]
    return BaselineResult("now", settings, [target], [point])


def _resume_with(results_dir: Path, *flags: str) -> Any:
    args = ["sweep", "--resume", "t13", "--results-dir", str(results_dir), "--time-budget", "30s", "--no-report", *flags]
    return CliRunner().invoke(perf_cli.cli, args)


def _resumed_baseline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, setup: str, *flags: str) -> tuple[list, str]:
    """Resume a run whose rounds had ended and which has ``setup`` of a baseline; the deadlines it timed one with."""
    import perf.sweep.run as sweep_run

    results_dir, _ = _interrupted(tmp_path)
    run = results.load(results_dir / "t13")
    assert run.rounds is not None
    if setup == "skipped":
        run.rounds.cut(Cut("baseline", SKIP))
    elif setup == "part-way":
        run.baseline = _stopped_part_way()
    elif setup in ("whole", "of one variant"):  # of one: b_mbs8, ranked, has none (trial 29, T29-1: "not owed")
        run.baseline = _stopped_part_way()
        run.baseline.points[0].rounds_ms = [0.5] * 8
        if setup == "whole":
            run.baseline.targets.append(BaselineTarget("b_mbs8", KEY, 1, [1], "python"))
    results.save(run, results_dir / "t13")
    monkeypatch.setattr(ServerPool, "start_all", lambda self: pytest.fail("a server was started for rounds that had ended"))
    monkeypatch.setattr(sweep_run, "refuse_changed", lambda *a, **k: None)
    deadlines: list[float | None] = []
    monkeypatch.setattr(Sweep, "_baseline", lambda self, deadline: deadlines.append(deadline))
    res = _resume_with(results_dir, *flags)
    assert res.exit_code == 0, res.output
    return deadlines, " ".join(res.output.split())


@pytest.mark.parametrize("setup", ["skipped", "part-way", "none", "of one variant"])
def test_a_resume_measures_a_baseline_the_run_has_no_whole_one_of(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, setup: str
) -> None:
    """A baseline the time budget skipped advised "a longer --time-budget keeps it" (on a resume "`--resume RUN
    --time-budget 8m` keeps it"), and the resume given it measured nothing ("nothing more is measured into it"): a
    skipped baseline counted as not owed; one Ctrl-C stopped in its 3rd of 8 rounds too (a real run: "continue with
    .../run_sweep.sh --resume r1", whose resume measured nothing)."""
    deadlines, said = _resumed_baseline(monkeypatch, tmp_path, setup)
    assert len(deadlines) == 1 and deadlines[0] is not None, said  # within the resume's time budget
    assert "then its missing in-process baseline" in said and "its in-process baseline is measured now" in said, said


@pytest.mark.parametrize("setup", ["skipped", "whole"])
def test_a_resume_measures_no_baseline_it_does_not_owe(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, setup: str) -> None:
    deadlines, said = _resumed_baseline(monkeypatch, tmp_path, setup, *(("--no-baseline",) if setup == "skipped" else ()))
    assert deadlines == [], said
    assert "missing in-process baseline" not in said and "baseline is measured now" not in said, said


def test_a_resumes_baseline_replaces_the_skip_an_earlier_session_recorded(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """The earlier skip stood beside the baseline the resume measured (the report and the demo's advice read it)."""
    import perf.sweep.baseline_step as step

    results_dir, _ = _interrupted(tmp_path)
    opts = SweepOptions(ServerOptions(tmp_path / "repo", runtime="bundled"), results_dir=results_dir, run_id="t13")
    sw = Sweep(dataclasses.replace(opts, resume=True))
    assert sw.run.rounds is not None
    sw.run.rounds.cut(Cut("baseline", SKIP))
    for n in RANKED:
        sw._variant(n).status = "ok"
    monkeypatch.setattr(step, "measure_after_sweep", lambda *a, **k: None)
    sw._baseline(None)
    assert not [c for c in sw.run.rounds.cuts if c.kind == "baseline"]


def test_a_final_group_keeps_the_cap_an_earlier_resume_lifted(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """T21-6's rest: the final group's session made a new budget record and lost ``lifted_cap`` (and with it the notes
    on what was measured above it)."""
    sw = _resumed(tmp_path, 600.0)
    assert sw.run.rounds is not None and sw.run.rounds.budget is not None and sw.final is not None
    sw.run.rounds.budget.lifted_cap = 2
    monkeypatch.setattr(Sweep, "start_session", lambda self, fit, refitted: None)
    monkeypatch.setattr(Sweep, "_groups", lambda self, engine, names, why: [])
    sw.run_final(0.0, None)
    assert sw.run.rounds.budget.lifted_cap == 2 and sw.run.rounds.budget.sessions == 2


# Trial 31, F4 and F7: what the line of a resume that measures no round says of what a later resume measures. F4: a resume
# of a finished run whose time budget fit no final group of its 2 cut variants said "nothing more is measured into it (a
# new --run-id measures again)", and the next command, ``--resume r2 --time-budget 2m``, measured both into it. F7: a
# resume owing only its in-process baseline said "nothing more is measured into it ...; its in-process baseline is
# measured now" in one line.


def test_a_resume_whose_budget_fits_no_final_group_names_the_resume_that_measures_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    results_dir, _ = _interrupted(tmp_path)
    run = results.load(results_dir / "t13")
    assert run.rounds is not None
    run.finished, run.rounds.ended, run.rounds.ended_by = "then", "ranking decided (after 10 rounds)", "decided"
    for n in RANKED:
        vr = run.variant(n)
        assert vr is not None
        vr.status = "ok"
    results.save(run, results_dir / "t13")
    monkeypatch.setattr(ServerPool, "start_all", lambda self: pytest.fail("a server was started for a finished run"))
    res = _resume(results_dir, "30s")
    assert res.exit_code == 0, res.output
    said = " ".join(res.output.split())
    assert "nothing more is measured into it (a new --run-id measures again)" not in said, said  # the rounds' own, kept
    found = re.search(r"nothing more is measured into it \(`--resume t13 --time-budget (\d+)m` measures them \(in a final", said)
    assert found is not None, said
    # the resume it names measures both cut variants into the run, in one final group
    opts = SweepOptions(ServerOptions(tmp_path / "repo", runtime="bundled"), results_dir=results_dir, run_id="t13")
    budget_s = int(found.group(1)) * 60.0
    sw = Sweep(dataclasses.replace(opts, resume=True, time_budget_s=budget_s, given=frozenset({"time_budget_s"})))
    try:
        assert sw.final is not None and sorted(sw.final.variants) == sorted(CUT) and not sw.final.cuts, sw.final
    finally:
        sw.close()


def test_a_resume_that_measures_its_baseline_does_not_say_nothing_more_is_measured_beside_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _, said = _resumed_baseline(monkeypatch, tmp_path, "none")
    assert "its in-process baseline is measured now, and nothing more is measured into it" in said, said
    assert "; its in-process baseline is measured now" not in said, said
