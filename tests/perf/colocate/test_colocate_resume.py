"""Resuming an interrupted co-location run (perf.colocate.resume): the complete rounds are replayed,
not measured again, and the search goes on as it would have. No server: the synthetic host, made
deterministic per visit so that an interrupted-then-resumed run can be compared with one that ran
through; then the command with a fake server and perf_analyzer."""

from __future__ import annotations

import dataclasses
import math
import random
import re
import shlex
import zlib
from collections.abc import Mapping
from pathlib import Path

import colocation_source as cs
import pytest
from click.testing import CliRunner
from colocation_repo import colocate_argv, idle_perf_analyzer, sqrt_costs, variant_repo
from fake_colocation_server import FakeColocationServer, fake_server_source

from perf.cli.main import cli
from perf.colocate import judge
from perf.colocate.resume import ReplaySource, complete_rounds, nothing_left, restart
from perf.colocate.search import CoordinateSearch
from perf.records import colocation
from perf.records.colocation import SearchStep
from perf.records.colocation_measured import ColocationVisit, ModelSample


@dataclasses.dataclass
class FixedSource:
    """The synthetic host's numbers with noise that depends only on (step, round, combination):
    the same visit measures the same, whichever session measures it. ``stop_after`` visits, it
    is interrupted (KeyboardInterrupt, as Ctrl-C)."""

    stop_after: int | None = None
    t: float = 0.0
    visits: int = 0
    prepared: list[int] = dataclasses.field(default_factory=list)

    def clock(self) -> float:
        return self.t

    def prepare(self, step: SearchStep) -> None:
        self.prepared.append(step.index)

    def visit(self, step: int, round_index: int, order: int, combination: Mapping[str, str]) -> ColocationVisit:
        if self.stop_after is not None and self.visits >= self.stop_after:
            raise KeyboardInterrupt
        rng = random.Random(zlib.crc32(f"{step}/{round_index}/{judge.describe(combination)}".encode()))
        samples = []
        for m, (thr, p99) in cs.true_numbers(combination).items():
            noise = math.exp(rng.gauss(0, 0.03))
            samples.append(ModelSample(m, combination[m], thr * noise, p99 / noise, 10.0, 100.0))
        self.t += cs.VISIT_S
        self.visits += 1
        return ColocationVisit(step, round_index, order, dict(combination), samples, wall_s=cs.VISIT_S)


def _through(seed: int = 3) -> colocation.ColocationRecord:
    rec = cs.record(seed)
    src = FixedSource()
    CoordinateSearch(rec, src, clock=src.clock).run()
    return rec


def _interrupted(seed: int, after: int) -> colocation.ColocationRecord:
    rec = cs.record(seed)
    src = FixedSource(stop_after=after)
    with pytest.raises(KeyboardInterrupt):
        CoordinateSearch(rec, src, clock=src.clock).run()
    return rec


@pytest.mark.parametrize("after", [5, 40, 101, 150])
def test_a_resumed_run_replays_its_complete_rounds_and_ends_as_one_that_ran_through(after: int) -> None:
    whole = _through()
    cut = _interrupted(3, after)
    assert cut.pick is None and not cut.pick_reason
    kept = complete_rounds(cut)
    assert len(kept) <= after and all(len(k) == 3 for k in kept)
    record = colocation.ColocationRecord(**{f.name: getattr(cut, f.name) for f in dataclasses.fields(cut)})
    starts = restart(record)
    assert starts == {} and record.steps == [] and record.visits == []
    inner = FixedSource()
    source = ReplaySource(inner, cut)
    CoordinateSearch(record, source, starts=starts, clock=inner.clock).run()
    assert source.replayed == len(kept) and inner.visits == len(whole.visits) - len(kept)
    # the same steps, decisions and pick as the run that was never interrupted
    assert [(s.kind, s.model, s.held, s.rounds) for s in record.steps] == [
        (s.kind, s.model, s.held, s.rounds) for s in whole.steps
    ]
    assert record.decisions == whole.decisions and record.pick == whole.pick
    # the server is prepared only for the steps something is measured in
    assert inner.prepared == sorted({v.step for v in record.visits if (v.step, v.round, judge.key(v.combination)) not in kept})


def test_a_round_the_interruption_cut_is_measured_again_whole() -> None:
    cut = _interrupted(3, 30)  # the alone step measures 12 targets a round: round 3 is cut after 6 of them
    partial = [v for v in cut.visits if v.round == 2]
    assert 0 < len(partial) < 12  # in the record as measured (the command saves it on Ctrl-C)
    assert {r for (_s, r, _k) in complete_rounds(cut)} == {0, 1}
    restart(cut)  # the resumed session measures round 3 again whole: the first session's visits of it are kept
    assert cut.visits == [] and cut.replaced_visits == partial


def test_a_run_that_ended_has_nothing_to_resume_one_cut_or_stopped_has() -> None:
    whole = _through()
    assert "nothing to resume" in (nothing_left(whole) or "")
    assert nothing_left(_interrupted(3, 40)) is None
    cut_for_time = cs.record(1)
    src = cs.SynthSource(1)
    CoordinateSearch(cut_for_time, src, time_budget_s=60.0, clock=src.clock).run()
    assert cut_for_time.cuts and nothing_left(cut_for_time) is None


def test_colocate_resume_continues_an_interrupted_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:

    repo = variant_repo(tmp_path, {"big_x1": 1, "big_x2": 2, "small_x1": 1, "small_x2": 2})
    pa = idle_perf_analyzer(tmp_path)
    measured: list[tuple[int, int, str]] = []
    stop = {"after": 20}

    def fake_visit(self, step, round_index, order, combination):  # type: ignore[no-untyped-def]
        if len(measured) >= stop["after"]:
            raise KeyboardInterrupt
        measured.append((step, round_index, judge.describe(combination)))
        return FixedSource().visit(step, round_index, order, combination)

    monkeypatch.setattr(cs, "true_numbers", sqrt_costs)
    logs: list[Path] = []
    fake_server_source(monkeypatch, fake_visit, lambda opts: (logs.append(opts.log_file), FakeColocationServer())[1])
    base = ["colocate", "-r", str(repo), "--results-dir", str(tmp_path / "results"), "--run-id", "r", "--perf-analyzer", str(pa)]
    first = CliRunner().invoke(
        cli, [*base, "--model", "big=big_*", "--model", "small=small_*", "--no-report", "--time-budget", "900s"]
    )
    assert first.exit_code == 130, first.output
    said = " ".join(first.output.split())  # trial 8, F20: what the folder holds, and the command that goes on
    results = (tmp_path / "results").resolve()
    assert (
        f"interrupted (Ctrl-C): what it measured is kept in {results / 'r'}; continue with triton-perf colocate --resume" in said
    )
    assert f"--resume --run-id r --results-dir {results} -r {repo.resolve()}" in said  # not "the same command": --model refused
    saved = colocation.load(tmp_path / "results" / "r")
    kept = len(complete_rounds(saved))
    assert 0 < kept <= 20 and saved.pick is None
    again = CliRunner().invoke(cli, [*base, "--model", "big=big_*", "--resume"])
    assert again.exit_code == 2 and "--resume continues run r as recorded: --model cannot change it" in again.output
    stop["after"] = 10_000
    measured.clear()
    resumed = CliRunner().invoke(cli, [*base, "--resume", "--time-budget", "600s"])
    assert resumed.exit_code == 0, resumed.output
    assert "time budget 600 s (600 s, given on this resume)" in " ".join(resumed.output.split())  # which one (T20-11)
    # trial 18, T18-15: each session's budget as given, never the first's spent plus the second's ("253.25 s")
    report = (tmp_path / "results" / "r" / "report.md").read_text()
    assert "time budget: 900 s in session 1, 600 s in session 2; spent: " in report and " s in all." in report
    assert f"resuming run r: {len(saved.visits)} visits recorded, {kept} of them in complete rounds" in resumed.output
    rec = colocation.load(tmp_path / "results" / "r")
    assert rec.pick is not None and rec.steps[-1].kind == "final"
    assert len(rec.visits) == kept + len(measured)  # the complete rounds were not measured again
    assert len(rec.resumed) == 1 and f"{kept} visits of complete rounds replayed, {len(measured)} measured" in rec.resumed[0]
    assert rec.spent_s is not None and saved.spent_s is not None and rec.spent_s >= saved.spent_s
    assert [p.name for p in logs] == ["tritonserver.log", "tritonserver-2.log"]  # each session's server log its own
    # re-check 19, NEW-5: the second session's own visits said apart from the run's in all
    assert f"{len(rec.visits)} visits in {rec.spent_s:.0f} s in all; this session: {len(measured)} visits in " in resumed.output
    # the run named by its folder's path, as report takes it, after --resume or as --run-id (re-check 19)
    folder = str(tmp_path / "results" / "r")
    common = ["colocate", "-r", str(repo), "--perf-analyzer", str(pa), "--no-report"]
    for named in (["--resume", folder], ["--resume", "--run-id", folder], ["--run-id", folder, "--resume"]):
        by_path = CliRunner().invoke(cli, [*common, *named])
        assert by_path.exit_code == 0 and "run r ended with " in by_path.output, (named, by_path.output)
    other = CliRunner().invoke(cli, [*common, "--resume", folder, "--run-id", "s"])
    assert other.exit_code == 2 and f"--resume {folder} continues that run; --run-id s names another" in other.output
    elsewhere = CliRunner().invoke(cli, [*common, "--resume", folder, "--results-dir", str(tmp_path / "other")])
    assert elsewhere.exit_code == 2 and "but --results-dir names" in elsewhere.output, elsewhere.output
    done = CliRunner().invoke(cli, [*base, "--resume", "--time-budget", "1s", "--no-report"])
    assert done.exit_code == 0 and "nothing to resume" in done.output
    # a session that measured nothing: the run's seconds never set against this session's budget (re-check 19, NEW-5)
    assert f"this session measured nothing; the run in all: {len(rec.visits)} visits in {rec.spent_s:.0f} s" in done.output
    assert "over" not in done.output.split("combinations measured:")[1].split("\n")[0]


def test_a_resume_after_make_clean_is_refused_up_front_and_a_failed_session_is_not_finished(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Trial 12, F21: `colocate --resume` after `make clean` started the server, replayed, then died on
    tritonserver's load error, and colocation.json recorded that session as finished. A missing variant
    folder is refused before any server starts (perf.records.measured_files.refuse_missing, as a sweep's
    --resume), nothing written; a session that fails is recorded as failed, never finished."""
    import shutil

    import perf.colocate.run as run_module
    from core.errors import ServerError
    from perf.colocate.run import ServerSource

    repo = variant_repo(tmp_path, {"big_x1": 1, "big_x2": 2, "small_x1": 1, "small_x2": 2})
    pa = idle_perf_analyzer(tmp_path)
    failure: dict[str, type[BaseException]] = {"raise": KeyboardInterrupt}
    visits = {"n": 0}

    def fake_visit(self, step, round_index, order, combination):  # type: ignore[no-untyped-def]
        visits["n"] += 1
        if visits["n"] > 6:
            raise failure["raise"]("tritonserver could not load model 'small_x2'")
        return FixedSource().visit(step, round_index, order, combination)

    monkeypatch.setattr(ServerSource, "visit", fake_visit)
    monkeypatch.setattr(ServerSource, "_inputs", lambda self, v: [])
    monkeypatch.setattr(ServerSource, "_warmup", lambda self, v: None)
    started: list[Path] = []
    monkeypatch.setattr(run_module, "TritonServer", lambda opts: (started.append(opts.log_file), FakeColocationServer())[1])
    run_dir = tmp_path / "results" / "r"
    base = ["colocate", "-r", str(repo), "--results-dir", str(tmp_path / "results"), "--run-id", "r", "--perf-analyzer", str(pa)]
    first = CliRunner().invoke(
        cli, [*base, "--model", "big=big_*", "--model", "small=small_*", "--no-report", "--time-budget", "900s"]
    )
    assert first.exit_code == 130, first.output
    assert colocation.load(run_dir).finished is None  # an interrupted session is not finished either
    kept = (run_dir / colocation.COLOCATION_FILE).read_text()
    moved = tmp_path / "small_x2"
    shutil.move(repo / "small_x2", moved)  # make clean deletes variant folders
    refused = CliRunner().invoke(cli, [*base, "--resume", "--no-report"])
    assert refused.exit_code == 1
    said = " ".join(str(refused.exception).split())
    assert "1 of its 4 variants (small_x2) is not in" in said and "rebuild it with `builders build`" in said, said
    assert len(started) == 1 and (run_dir / colocation.COLOCATION_FILE).read_text() == kept  # no server, nothing written
    shutil.move(moved, repo / "small_x2")
    failure["raise"], visits["n"] = ServerError, 0
    failed = CliRunner().invoke(cli, [*base, "--resume", "--no-report"])
    assert failed.exit_code == 1 and len(started) == 2
    rec = colocation.load(run_dir)
    assert rec.finished is None and rec.resumed[-1].endswith("; the session failed"), rec.resumed


def test_a_session_is_over_its_own_budget_only_by_its_own_seconds() -> None:
    """re-check 19, NEW-5: "66 visits in 162 s in all (102 s over this session's 60 s time budget)" of a session that
    measured nothing; "over" is this session's seconds against its budget, the run's in all said apart."""
    from perf.colocate.outcome import spent_words

    rec = _through()
    rec.spent_s, rec.session_budgets_s = 162.0, [70.0, 120.0]
    ended = spent_words(rec, None, 60.0, resumed=True)
    assert ended == f"this session measured nothing; the run in all: {len(rec.visits)} visits in 162 s, in 2 earlier sessions"
    rec.session_budgets_s.append(60.0)
    assert spent_words(rec, (8, 70.0), 60.0, resumed=True).endswith(
        "in all; this session: 8 visits in 70 s (10 s over this session's 60 s time budget)"
    )
    assert "over" not in spent_words(rec, (8, 50.0), 60.0, resumed=True)
    assert spent_words(rec, (len(rec.visits), 162.0), 120.0, resumed=False).endswith("in 162 s (42 s over its 120 s time budget)")


# trial 20, T20-11: the resume printed at Ctrl-C ran on a fresh 10-minute default after a 3-minute run (257 s spent
# against the 180 s asked); it runs under what is left of the run's own budget, as the sweep's (perf.records.resumed)
def test_the_printed_resume_carries_the_budget_left_and_a_bare_resume_runs_under_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:

    repo, results, base = colocate_argv(tmp_path)
    visits = {"n": 0, "stop": 6}

    def fake_visit(self, step, round_index, order, combination):  # type: ignore[no-untyped-def]
        if visits["n"] >= visits["stop"]:
            raise KeyboardInterrupt
        visits["n"] += 1
        return FixedSource().visit(step, round_index, order, combination)

    monkeypatch.setattr(cs, "true_numbers", sqrt_costs)
    fake_server_source(monkeypatch, fake_visit)
    first = CliRunner().invoke(
        cli, [*base, "--model", "big=big_*", "--model", "small=small_*", "--no-report", "--time-budget", "3m"]
    )
    assert first.exit_code == 130, first.output
    saved = colocation.load(results / "r")
    assert saved.spent_s is not None
    left = int(180 - saved.spent_s)
    said = " ".join(first.output.split())
    # the command, then what its budget covers in words (re-check 20, NEW-7)
    printed = re.search(r"continue with (triton-perf colocate --resume .*?--time-budget \S+) \(its --time-budget", said)
    assert printed is not None, said
    assert f"--time-budget {left}s" in printed.group(1)  # the old code's command carried no budget
    visits["stop"] = 10_000
    bare = CliRunner().invoke(cli, [*base, "--resume", "--no-report"])  # the printed command less its budget
    assert bare.exit_code == 0, bare.output
    one = " ".join(bare.output.split())
    spent = f"{saved.spent_s:.0f}"
    assert (
        f"what is left of the run's own 180 s time budget: {int(round(180 - saved.spent_s))} s after the {spent} s it spent"
        in one
    )
    assert f"time budget {180 - saved.spent_s:.0f} s (what is left" in one and "time budget 600 s" not in one
    rec = colocation.load(results / "r")
    assert rec.session_budgets_s[0] == 180.0 and rec.session_budgets_s[1] == pytest.approx(180 - saved.spent_s, abs=0.01)
    assert shlex.split(printed.group(1))[:3] == ["triton-perf", "colocate", "--resume"]
