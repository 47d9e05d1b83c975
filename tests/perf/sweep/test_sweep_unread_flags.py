"""Flags a sweep would pass over are refused by one rule, on a fresh sweep and on a ``--resume``, whose servers and
plan are the run's own (perf.cli.sweep_flags; break-it F14: ``--resume R --allow-shared-host`` of a one-server run
was taken, saved into it and said "given again"; F11: a resume that measured nothing took ``--time-budget 30s`` and
said "0 s on the clock of the 30 s time budget"). Without a server (tests/perf/sweep/test_sweep_cli_unit.py's fake)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import tests.perf.sweep.test_sweep_cli_unit as cli_unit
from tests.perf.sweep.test_sweep_cli_unit import FakeSweep, _run, _sweep


class Closing(FakeSweep):
    closed = 0
    rounds_ended: str | None = None  # perf.sweep.final.ResumedRounds: why its rounds had ended
    final: Any = None  # no final group
    final_group: Any = None
    final_tie: list[str] = []

    def measured_further(self) -> set[str]:  # perf.sweep.final.ResumedRounds: none part-measured by a stopped final group
        return set()

    def close(self) -> None:
        Closing.closed += 1


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    import perf.sweep.run

    FakeSweep.seen, Closing.interrupt, Closing.closed, Closing.nothing_to_measure = [], False, 0, False
    Closing.rounds_ended = None
    Closing.run_result = _run("ok")
    monkeypatch.setattr(perf.sweep.run, "Sweep", Closing)
    monkeypatch.chdir(tmp_path)
    return Closing


def test_allow_shared_host_is_refused_on_a_resume_of_a_one_server_run_as_on_a_fresh_one(fake) -> None:
    fresh = _sweep("--allow-shared-host")
    assert fresh.exit_code == 2 and "--allow-shared-host would be ignored" in fresh.output, fresh.output
    res = _sweep("--resume", "r1", "--allow-shared-host")
    said = " ".join(res.output.split())
    assert res.exit_code == 2, res.output
    assert "--allow-shared-host would be ignored" in said and "run r1 measures on a server of its own" in said, said
    assert "given again" not in said and fake.closed == 1  # refused before its plan is said; its hold let go


def test_allow_shared_host_is_read_on_a_resume_of_a_run_on_several_servers(fake, monkeypatch: pytest.MonkeyPatch) -> None:
    saved = {**cli_unit.SAVED, "server": {**cli_unit.SAVED["server"], "urls": ["h1:8000", "h2:8000"]}}
    monkeypatch.setattr(cli_unit, "SAVED", saved)
    res = _sweep("--resume", "r1", "--allow-shared-host")
    assert res.exit_code == 0, res.output
    assert FakeSweep.seen[-1].allow_shared_host is True


def test_a_time_budget_is_refused_on_a_resume_that_measures_nothing(fake, monkeypatch: pytest.MonkeyPatch) -> None:
    fake.nothing_to_measure = True
    fake.rounds_ended = "ranking decided (after 3 rounds)"
    monkeypatch.setattr(cli_unit, "SAVED", {**cli_unit.SAVED, "baseline": False})  # no baseline owed
    res = _sweep("--resume", "r1", "--time-budget", "30s")
    said = " ".join(res.output.split())
    assert res.exit_code == 2, res.output
    assert "--time-budget would be ignored: this resume of run r1 measures nothing (ranking decided (after 3 rounds)" in said
    assert "drop --time-budget" in said and fake.closed == 1
    again = _sweep("--resume", "r1")  # without it: accepted (what it ends with is the fake's, not asked here)
    assert "would be ignored" not in again.output and "will measure: no level" in again.output, again.output


def test_a_time_budget_is_read_where_a_resume_that_measures_no_round_owes_its_baseline(fake) -> None:
    fake.nothing_to_measure = True
    fake.rounds_ended = "ranking decided (after 3 rounds)"
    res = _sweep("--resume", "r1", "--time-budget", "30s")  # the in-process baseline is measured within it
    assert "would be ignored" not in res.output and "then its missing in-process baseline" in res.output, res.output
