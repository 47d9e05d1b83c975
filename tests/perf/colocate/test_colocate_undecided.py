"""A co-location search the time budget cut before it decided (perf.colocate.verdict): no pick, the leader
named with its rounds, the resume command that finishes it; the plan line's estimate up front
(perf.colocate.plan); the server's stop kept from the budget. Trial 15, T15-10: `--time-budget 1m` ended
after one round of step 2 and the console, report.md's "The pick" and the plot's star named the starting
point, which that round put behind another combination on both axes; nothing said up front that 1m could
not finish; the run ended 4 s over its budget. The synthetic host (tests/support/colocation_source.py);
no server."""

from __future__ import annotations

import math
import types
from pathlib import Path

import colocation_source as cs
import pytest
from click.testing import CliRunner
from colocation_repo import idle_perf_analyzer, variant_repo
from fake_colocation_server import fake_server_source

from core.cli import console as make_console
from core.errors import PerfError
from perf.cli.colocate import _finish
from perf.cli.main import cli
from perf.colocate import judge, plan, verdict
from perf.colocate.brute import run_brute
from perf.colocate.search import CoordinateSearch
from perf.plots.colocation import plot_tradeoff
from perf.records import colocation
from perf.records.colocation import ColocatedModel, ColocationRecord
from perf.report.colocation import report_lines

BUDGETS = range(20, 640, 13)


def _where(rec: ColocationRecord) -> str:
    """Where the cut fell: in the alone step, within a move step (after a round of it), before a move step's first
    round (between steps), or in the final step (the moves had ended)."""
    last = rec.steps[-1]
    if last.kind in ("alone", "final"):
        return last.kind
    return "within a move" if last.rounds else "between moves"


def _cut_runs() -> dict[str, list[ColocationRecord]]:
    """The synthetic search cut by each budget of :data:`BUDGETS`, by where the cut fell."""
    out: dict[str, list[ColocationRecord]] = {}
    for budget_s in BUDGETS:
        src, rec = cs.SynthSource(1), cs.record(1)
        CoordinateSearch(rec, src, clock=src.clock, time_budget_s=float(budget_s)).run()
        if rec.cuts:
            out.setdefault(_where(rec), []).append(rec)
    return out


@pytest.fixture(scope="module")
def cut_runs() -> dict[str, list[ColocationRecord]]:
    return _cut_runs()


def test_every_cut_before_the_moves_ended_is_no_pick_and_names_what_led(cut_runs: dict[str, list[ColocationRecord]]) -> None:
    assert {"alone", "within a move", "between moves", "final"} <= set(cut_runs), sorted(cut_runs)
    dominated = 0
    for where in ("alone", "within a move", "between moves"):
        for rec in cut_runs[where]:
            assert rec.pick is None, (where, rec.pick, rec.pick_reason)
            assert rec.pick_reason.startswith("no pick: the search was cut for time in step "), rec.pick_reason
            got = verdict.lead(rec)
            if got is None:  # nothing measured together yet: in the alone step, or before the first move's round
                assert where == "alone" or all(s.kind == "alone" or not s.rounds for s in rec.steps), where
                assert rec.leader is None
                assert verdict.lead_words(rec) == "no combination of every model was measured together yet"
                continue
            assert rec.leader == (got.leader.combination if got.leader else None)
            if got.decided:  # cut before the next step's first round: the last step decided, said as such (R16-6)
                stood = verdict.decided_combination(rec, got.step)
                assert where == "between moves" and stood is not None, where
                assert got.leader is None or got.leader.combination == stood
                words = verdict.lead_words(rec)
                assert words.startswith(f"step {got.step.index + 1} (move {got.step.model}) decided in its "), words
                assert f"the search stood at {judge.describe(stood)} at " in words and "leading" not in words, words
                assert words.endswith("not a pick: the search had not yet tried every model's other variants beside it")
                continue
            if got.leader is None:  # none of the step's combinations meets every target: said so, none named
                assert " meets every target" in verdict.lead_words(rec) and "leading" not in verdict.lead_words(rec)
                continue
            # the leader: of the step's combinations that meet every target, the highest median weighted throughput
            step = got.step
            numbers = [judge.measured_in(rec, step.index, step.rounds, t) for t in step.targets]
            best = max((c for c in numbers if not c.over), key=lambda c: c.weighted or 0.0)
            assert judge.key(best.combination) == judge.key(rec.leader)
            words = verdict.lead_words(rec)
            assert words.startswith(f"leading (not decided) in the {got.rounds} round"), words
            assert judge.describe(rec.leader) in words and f"{best.weighted:,.0f} weighted infer/s" in words
            if judge.key(rec.leader) != judge.key(step.held):  # the held one is named beside it, as no verdict
                dominated += 1
                assert f"ahead in {got.versus.wins} of" in words and judge.describe(step.held) in words, words
                assert words.endswith("not a verdict"), words
    assert dominated  # trial 15, T15-10: another combination led the held one in the rounds measured


def test_a_cut_in_the_final_step_keeps_the_decided_pick(cut_runs: dict[str, list[ColocationRecord]]) -> None:
    for rec in cut_runs["final"]:
        assert not verdict.undecided(rec) and rec.leader is None
        assert rec.pick is not None and verdict.decided_pick(rec) == rec.pick
        # the moves' own reason, not "the combination held when the search stopped"
        assert "no move of any model raised the weighted throughput by the paired rule" in rec.pick_reason, rec.pick_reason
        assert "## The pick" in report_lines(rec)


def test_brute_force_cut_in_its_one_step_is_no_pick_with_its_leader() -> None:
    seen = 0
    for budget_s in (100, 200, 300):  # 100: not started (its loads and first round need 145 s); 200, 300: cut in it
        src, rec = cs.SynthSource(2), cs.record(2)
        search = CoordinateSearch(rec, src, clock=src.clock, time_budget_s=float(budget_s))
        run_brute(search)
        if not rec.cuts or rec.steps[-1].kind != "brute" or not rec.steps[-1].rounds:
            continue
        seen += 1
        assert rec.pick is None and rec.pick_reason.startswith("no pick: the search was cut for time in step 1 (brute)")
        assert "before its one step over every combination decided anything" in rec.pick_reason
        got = verdict.lead(rec)
        assert got is not None and got.leader is not None and rec.leader == got.leader.combination
    assert seen


def _undecided(cut_runs: dict[str, list[ColocationRecord]]) -> ColocationRecord:
    """A run cut within a move step whose leader is not the combination it held."""
    return next(r for r in cut_runs["within a move"] if r.leader and judge.key(r.leader) != judge.key(r.steps[-1].held))


def _as_saved_before(rec: ColocationRecord) -> ColocationRecord:
    """``rec`` as a record saved before an undecided run had no pick: the held combination kept as its pick."""
    import copy

    old = copy.deepcopy(rec)
    old.pick, old.leader = dict(rec.steps[-1].held), None
    old.pick_reason = f"the time budget ended the search: {rec.cuts[0]}; the combination held when the search stopped"
    return old


@pytest.mark.parametrize("saved_before", [False, True])
def test_the_report_and_the_plot_say_no_pick_and_mark_the_leader_not_decided(
    cut_runs: dict[str, list[ColocationRecord]], tmp_path: Path, saved_before: bool
) -> None:
    rec = _undecided(cut_runs)
    leader = dict(rec.leader or {})
    if saved_before:
        rec = _as_saved_before(rec)
    text = "\n".join(report_lines(rec, tmp_path))
    assert "## No pick: the search was cut for time" in text and "## The pick" not in text
    assert "(the pick)" not in text and f"{judge.describe(leader)} (leading, not decided)" in text
    assert "Leading (not decided) in the " in text
    assert f"**To finish it**: `triton-perf colocate --resume --run-id {rec.run_id} --results-dir {tmp_path.resolve()}" in text
    assert "--time-budget " in text.split("**To finish it**")[1].split("\n")[0]
    drawn = plot_tradeoff(rec, tmp_path / "t.png")
    assert drawn is not None
    (panel,) = drawn.values()
    assert not [k for k in panel if k.startswith("the pick")]
    (label,) = [k for k in panel if k.startswith("leading after ")]
    assert label.endswith("(not decided: cut for time)")
    xs, ys = panel[label]
    lead = verdict.lead(rec)
    assert lead is not None and lead.leader is not None and ys == [lead.leader.weighted]


def test_the_console_says_no_pick_the_leader_and_the_resume_command(
    cut_runs: dict[str, list[ColocationRecord]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = _undecided(cut_runs)
    opts = types.SimpleNamespace(results_dir=tmp_path, time_budget_s=rec.time_budget_s)
    run = types.SimpleNamespace(
        record=rec, run_dir=tmp_path / rec.run_id, opts=opts, previous=None, session=(len(rec.visits), rec.spent_s or 0.0)
    )
    _finish(run, make_console(), True)  # no pick is no error: exit 0, as a sweep cut for time
    out = " ".join(capsys.readouterr().out.split())
    assert "combination: no pick: the search was cut for time in step " in out
    assert f"leading (not decided) in the {verdict.lead(rec).rounds} round" in out  # type: ignore[union-attr]
    assert f"to finish it: `triton-perf colocate --resume --run-id {rec.run_id} --results-dir {tmp_path.resolve()}" in out
    assert f"combination: {judge.describe(rec.steps[-1].held)}" not in out


def test_a_bundle_of_a_run_cut_before_it_decided_is_refused_with_the_resume_command(
    cut_runs: dict[str, list[ColocationRecord]], tmp_path: Path
) -> None:
    rec = _as_saved_before(_undecided(cut_runs))  # an old record: its held combination kept as the pick
    colocation.save(rec, tmp_path / "run")
    r = CliRunner().invoke(cli, ["export-deployment", str(tmp_path / "run")])
    assert isinstance(r.exception, PerfError), r.output
    said = str(r.exception)
    assert f"co-location run {rec.run_id}: no pick: the search was cut for time" in said and "leading (not decided)" in said
    assert "--resume --run-id" in (r.exception.hint or "")
    assert not (tmp_path / "run" / "deployment-combination").exists()


def test_the_plan_says_up_front_what_the_time_budget_covers_and_what_covers_it() -> None:
    rec = cs.record(0)
    steps = plan.planned_steps(rec)
    assert [s.label for s in steps] == ["alone", "move big", "move mid", "move small", "final"]
    assert [s.visits for s in steps] == [12 * 6, 4 * 6, 4 * 6, 4 * 6, 4 * 6]  # the record's 6 rounds a step
    # the search loads what a step needs and unloads the rest (perf.colocate.source.ServerSource.prepare): after every
    # variant alone, each move holds the others' variants and its own model's 4
    assert [s.loads for s in steps] == [12, 0, 3, 3, 0] and [s.unloads for s in steps] == [0, 6, 3, 3, 3]
    p = plan.prices(rec)
    full = plan.estimate(steps, p, None)
    assert full.total_s == pytest.approx(plan.START_S + sum(s.cost(p) for s in steps) + plan.STOP_S)  # start and stop
    short = plan.estimate(steps, p, 200.0)
    words = plan.plan_words(short, p, 200.0)
    assert words.startswith(f"one pass of the search needs about {math.ceil(full.total_s)} s")
    assert (
        "the time budget of 200 s covers step 1 (alone); step 2 (move big) and later will be cut, leaving no pick decided"
        in words
    )
    flag = plan.budget_flag(full.budget_s())  # the estimate and the margin, in whole minutes (trial 19, T19-15)
    assert words.endswith(f"--time-budget {flag} covers one pass (the estimate and 20%, in whole minutes)")
    assert "cut" not in plan.plan_words(plan.estimate(steps, p, full.budget_s()), p, full.budget_s())
    moves = plan.estimate(steps, p, full.total_s - 1)  # the moves fit, the final does not: a pick without its numbers
    assert "its final rounds (the pick alone and together) will be cut" in plan.plan_words(moves, p, full.total_s - 1)


def test_a_resumed_plan_counts_only_what_is_left(cut_runs: dict[str, list[ColocationRecord]]) -> None:
    rec = _undecided(cut_runs)
    last = rec.steps[-1]
    steps = plan.planned_steps(rec)
    assert steps[0].index == last.index and steps[0].visits == (rec.min_rounds - last.rounds) * len(last.targets)
    assert steps[0].loads == len({v for t in last.targets for v in t.values()})  # a new server loads them
    assert steps[-1].label == "final"


class _LoadsAndUnloads(cs.TimedLoads):
    """A step's loads and unloads take time (perf.colocate.source.ServerSource.prepare unloads what the step does
    not need and loads what it needs), the server's stop too (:meth:`stop`)."""

    load_s: float = 4.0
    unload_s: float = 2.9  # trial 15: one variant's unload between steps 1 and 2

    def stop(self) -> None:
        self.t += plan.STOP_S * 0.9  # trial 15: 4.1 s


def test_the_server_stop_and_a_steps_unloads_are_kept_from_the_time_budget() -> None:
    """Trial 15, T15-10: the search spent its whole 60 s and the server's stop took the run 4 s over it."""
    for budget_s in range(40, 400, 9):
        src, rec = _LoadsAndUnloads(5), cs.record(5)
        CoordinateSearch(rec, src, clock=src.clock, time_budget_s=float(budget_s)).run()
        src.stop()
        assert src.t <= budget_s, (budget_s, src.t, rec.cuts)


def test_the_cut_says_the_stop_is_kept() -> None:
    src, rec = _LoadsAndUnloads(5), cs.record(5)
    CoordinateSearch(rec, src, clock=src.clock, time_budget_s=200.0).run()
    assert rec.cuts and f"{plan.STOP_S:g} s kept for the server's stop)" in rec.cuts[0], rec.cuts


def test_a_cut_tells_the_need_and_the_time_it_may_use_apart() -> None:
    """Re-check 19: "≈5 s needed, 5 s left of 70 s, 4.5 s of it kept for the server's stop": the need was set against
    the time left less the stop, and neither that nor the need printed apart from the left (perf.markdown.apart)."""
    import re

    said = 0
    for tenth in range(400, 1400, 7):
        src, rec = _LoadsAndUnloads(5), cs.record(5)
        CoordinateSearch(rec, src, clock=src.clock, time_budget_s=tenth / 10).run()
        for cut in rec.cuts:
            got = re.search(
                r"≈([\d.]+) s needed(?:, its loads included)?, ([\d.]+) s usable: ([\d.]+) s left of \d+ s less ([\d.]+) s kept",
                cut,
            )
            assert got is not None, cut
            need, usable, left, stop = got.groups()
            assert float(need) > float(usable), cut  # the cut's two numbers printed apart (never "5 s needed, 5 s ...")
            assert f"{float(left) - float(stop):.{len(usable.partition('.')[2])}f}" == usable, cut  # the words add up
            said += 1
    assert said > 50


def test_colocate_prints_its_estimate_before_measuring_and_an_interruption_names_the_resume_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plan line (trial 15, T15-10), and the Ctrl-C line's command: "the same command with --run-id r and --resume"
    repeated --model, which --resume refuses."""

    repo = variant_repo(tmp_path, {"big_x1": 1, "big_x2": 2, "small_x1": 1, "small_x2": 2})
    pa = idle_perf_analyzer(tmp_path)
    visits: list[str] = []

    def fake_visit(self, step, round_index, order, combination):  # type: ignore[no-untyped-def]
        if len(visits) >= 5:
            raise KeyboardInterrupt
        visits.append(judge.describe(combination))
        return cs.TableSource({v: (100.0, 1.0) for v in ("big_x1", "big_x2", "small_x1", "small_x2")}).visit(
            step, round_index, order, combination
        )

    fake_server_source(monkeypatch, fake_visit)
    results = tmp_path / "results"
    base = ["colocate", "-r", str(repo), "--results-dir", str(results), "--run-id", "r", "--perf-analyzer", str(pa)]
    res = CliRunner().invoke(cli, [*base, "--model", "big=big_*", "--model", "small=small_*", "--time-budget", "30s"])
    assert res.exit_code == 130, res.output
    said = " ".join(res.output.split())
    assert "one pass of the search needs about " in said and "the time budget of 30 s covers no step" in said, said
    assert said.index("one pass of the search needs") < said.index("interrupted")  # before anything was measured
    # the fake server loads at once: the plan fitted again to those loads is said, before the first visit (R16-4)
    assert said.index("one pass of the search needs") < said.index("the plan fitted again to the times measured (4 loads timed")
    assert said.index("the plan fitted again") < said.index("round 1:")
    assert f"continue with triton-perf colocate --resume --run-id r --results-dir {results.resolve()} -r {repo.resolve()}" in said
    again = CliRunner().invoke(
        cli,
        [
            "colocate",
            "--resume",
            "--run-id",
            "r",
            "--results-dir",
            str(results),
            "-r",
            str(repo),
            "--perf-analyzer",
            str(pa),
            "--time-budget",
            "1s",
        ],
    )
    assert "cannot change it" not in str(again.exception)  # the command said is one --resume takes


def _kept_then_cut() -> list[ColocationRecord]:
    """Two models that do not interfere, a1 and b1 the best: step 2 (move a) keeps a1; each budget that then cuts
    step 3 (move b), before or within its rounds."""
    table = {"a1": (500.0, 5.0), "a2": (200.0, 5.0), "b1": (400.0, 5.0), "b2": (100.0, 5.0)}
    out = []
    for budget_s in range(20, 40):
        src = cs.TableSource(table)
        models = [
            ColocatedModel("a", ["a1", "a2"], latency_budget_ms=20.0),
            ColocatedModel("b", ["b1", "b2"], latency_budget_ms=20.0),
        ]
        rec = ColocationRecord("kept", "2026-12-02T00:00:00", "repo", models, min_rounds=3, max_rounds=3)
        CoordinateSearch(rec, src, clock=src.clock, time_budget_s=float(budget_s)).run()
        if len(rec.steps) == 3 and rec.steps[1].outcome == "a: kept a1" and not rec.steps[2].outcome:
            out.append(rec)
    return out


def test_a_cut_after_a_move_step_decided_names_what_each_step_decided_and_the_step_cut() -> None:
    """Recheck of trial 16, R16-6: step 2 kept model a's variant and only step 3 was cut, but the verdict said "no pick
    ... before its moves decided anything"."""
    runs = _kept_then_cut()
    assert {r.steps[2].rounds > 0 for r in runs} == {True, False}  # cut before step 3's first round, and within it
    for rec in runs:
        assert verdict.undecided(rec) and rec.pick is None
        said = verdict.headline(rec)
        assert "decided anything" not in said, said
        assert said.endswith(
            "before its moves ended: step 1 (alone) set each model's start (a=a1, b=b1); step 2 (move a) kept a1; "
            "step 3 (move b) cut before it decided"
        ), said
        assert rec.pick_reason.startswith(said)
        text = "\n".join(report_lines(rec))
        assert f"**What**: {said}." in text
        words = verdict.lead_words(rec)
        if not rec.steps[2].rounds:  # the last step measured together is step 2, which decided: no "leading (not decided)"
            assert words.startswith(
                "step 2 (move a) decided in its 3 rounds (no round host busy): kept a1; the search stood at "
            ), words
            assert "(where the search stood, not a pick)" in text and "leading, not decided" not in text
        else:
            assert "kept by step 2 (move a)" in words, words
