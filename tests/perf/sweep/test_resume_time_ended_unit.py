"""A run whose rounds its TIME BUDGET ended (not a decision) is given more rounds by a resume with a new
``--time-budget`` (s22z, Z-14: ``--resume RUN --time-budget 60s`` was refused, "--time-budget would be ignored: this
resume measures nothing (time budget spent ...; 4 of the 6 rounds a verdict needs ...)", and the 4 rounds were thrown
away for a new run, though the report said "too few rounds to tell"). Rounds ended by a decision stay ended."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any, cast

import pytest
from click.testing import CliRunner
from factories import level_result, served_model
from python_models import write_measured_models

from clients.runtimes.identity import found_artifact
from clients.server import ServerOptions
from core.errors import PerfError
from perf.cli import main as perf_cli
from perf.cli.sweep_flags import refuse_unread_sweep
from perf.records import results
from perf.records.rounds import BudgetRecord, EndedBy, LoadGroup, RoundRecord, Visit
from perf.sweep.opening import opening_lines
from perf.sweep.options import SweepOptions
from perf.sweep.run import Sweep
from perf.sweep.servers import ServerPool

TOPS = {"a_mbs8": 500.0, "b_mbs8": 480.0}  # a ahead in each of the 4 rounds, by 1-9 %: too few rounds to tell
LEVELS = (1, 2, 4)
DONE = 4
TIME_ENDED = (
    "time budget spent: 14.5 s left, the next round and the unloads (15.4 s estimated) do not fit; "
    f"{DONE} of the 6 rounds a verdict needs"
)


def _finished(tmp_path: Path, ended: str = TIME_ENDED, by: EndedBy | None = None) -> SweepOptions:
    """A finished run of 2 variants whose rounds ended after 4 rounds, for ``ended`` (``by``: what ended them, ``None``:
    a record written before it was); the options that resume it."""
    repo = write_measured_models(tmp_path / "repo", TOPS)
    opts = SweepOptions(
        ServerOptions(repo, runtime="bundled"), results_dir=tmp_path / "results", run_id="z14", time_budget_s=60.0, baseline=False
    )
    sw = Sweep(opts)
    run, rr = sw.run, sw.run.rounds
    assert rr is not None and run.search is not None
    run.settings = sw._settings()  # type: ignore[assignment]
    run.search.order = list(TOPS)
    for n, top in TOPS.items():
        vr = run.variant(n) or results.VariantResult(n)
        noise = (1.05, 0.97, 1.01, 1.04) if n == "a_mbs8" else (1.0, 0.99, 0.96, 1.06)
        vr.levels = [level_result(c, top * c / 4 * noise[t], 2.0 * c, trial=t) for t in range(DONE) for c in LEVELS]
        vr.served = [served_model(n, max_batch_size=8, artifact=found_artifact(repo / n))]
        vr.status = "ok"
        if run.variant(n) is None:
            run.variants.append(vr)
    rr.groups = [LoadGroup(0, list(TOPS), "every contender fits on the server", "localhost:1", 20.0, ended=ended, ended_by=by)]
    rr.rounds = [
        RoundRecord(t, 0, rr.seed + t, "then", 10.0, [Visit(n, c, wall_s=1.5) for n in TOPS for c in LEVELS]) for t in range(DONE)
    ]
    rr.budget = BudgetRecord(60.0, 1.5, 5.0, 58.0, DONE, 4, spent_s=45.5)
    rr.ended, rr.ended_by, run.finished = ended, by, "then"
    run.sessions[-1].ended = "finished"
    results.save(run, sw.run_dir)
    sw.close()
    return dataclasses.replace(opts, resume=True)


def test_a_new_time_budget_gives_rounds_the_time_budget_ended_more(tmp_path: Path) -> None:
    opts = _finished(tmp_path)
    sw = Sweep(dataclasses.replace(opts, time_budget_s=120.0, given=frozenset({"time_budget_s"})))
    try:
        assert sw.rounds_ended is None and not sw.nothing_to_measure
        refuse_unread_sweep({"time_budget_s"}, sw)  # not refused: this resume measures rounds
        line = " ".join(opening_lines(sw)[0].split())
        assert "will measure: more rounds" in line, line
    finally:
        sw.close()
    sw = Sweep(dataclasses.replace(opts, given=frozenset()))  # what is left of the run's own budget: no round fits
    try:
        assert sw.rounds_ended == TIME_ENDED and sw.nothing_to_measure
        line = " ".join(opening_lines(sw)[0].split())  # the words name the resume that gives them (not a new run)
        advice = re.search(r"`--resume z14 --time-budget (\d+)m` gives it the 2 of the 6 rounds a verdict needs it lacks", line)
        assert advice is not None and "a new --run-id" not in line, line
    finally:
        sw.close()
    minutes = float(advice.group(1)) * 60  # the command it names measures them
    sw = Sweep(dataclasses.replace(opts, time_budget_s=minutes, given=frozenset({"time_budget_s"})))
    try:
        assert sw.rounds_ended is None and not sw.nothing_to_measure
    finally:
        sw.close()


def test_rounds_ended_by_a_decision_stay_ended_whatever_the_time_budget(tmp_path: Path) -> None:
    opts = _finished(tmp_path, ended="ranking decided (after 4 rounds)")
    sw = Sweep(dataclasses.replace(opts, time_budget_s=120.0, given=frozenset({"time_budget_s"})))
    try:
        assert sw.rounds_ended == "ranking decided (after 4 rounds)" and sw.nothing_to_measure
    finally:
        sw.close()


def test_what_ended_the_rounds_is_read_from_the_record_not_from_its_words(tmp_path: Path) -> None:
    """s23r m3: whether the time budget ended the rounds was decided by the prefix of their words ("time budget
    spent"), which three places built apart: a rewording turned Z-14's more rounds off. The record says what ended them
    (``ended_by``); the prefix is read only of a record written before it was (the tests above)."""
    reworded = TIME_ENDED.replace("time budget spent", "out of time")
    for tmp, by, more in ((tmp_path / "t", "time", True), (tmp_path / "d", "decided", False)):
        opts = _finished(tmp, ended=reworded if by == "time" else TIME_ENDED, by=cast(EndedBy, by))
        sw = Sweep(dataclasses.replace(opts, time_budget_s=120.0, given=frozenset({"time_budget_s"})))
        try:
            assert (sw.rounds_ended is None and not sw.nothing_to_measure) == more, by
        finally:
            sw.close()


def test_the_resume_command_measures_the_rounds_it_lacks(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    opts = _finished(tmp_path)

    def start_all(self: Any) -> None:
        raise PerfError("the server starts: this resume measures", hint="(test)")

    monkeypatch.setattr(ServerPool, "start_all", start_all)
    args = ["sweep", "--resume", "z14", "--results-dir", str(opts.results_dir), "--time-budget", "60s", "--no-report"]
    res = CliRunner().invoke(perf_cli.cli, args)
    said = " ".join(res.output.split()) + repr(res.exception)
    assert "would be ignored" not in said and "the server starts: this resume measures" in said, said
    assert "will measure: more rounds" in said, said
