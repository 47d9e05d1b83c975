"""Trial 27, T27-11 (the colocate side of the kind): a run's ``spent_s`` was written only when its session ended
(the end, Ctrl-C), so the folder a ``kill -9`` leaves said nothing of the time its rounds took, and a resume got the
whole budget again. Every round's save now writes the time spent so far."""

from __future__ import annotations

import itertools
import time
import types
from pathlib import Path

import colocation_source as cs
import pytest
from click.testing import CliRunner
from colocation_repo import idle_perf_analyzer, sqrt_costs, variant_repo
from fake_colocation_server import FakeColocationServer, fake_server_source

import perf.colocate.run as colocate_run
from perf.cli.main import cli
from perf.colocate import judge
from perf.records import colocation
from perf.records.colocation_measured import ColocationVisit, ModelSample


def test_the_folder_a_kill_leaves_holds_the_time_spent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = variant_repo(tmp_path, {"big_x1": 1, "big_x2": 2, "small_x1": 1, "small_x2": 2})
    pa = idle_perf_analyzer(tmp_path)
    run_dir = tmp_path / "results" / "r"
    measured: list[str] = []
    left: dict[str, bytes] = {}

    def fake_visit(self, step, round_index, order, combination):  # type: ignore[no-untyped-def]
        if len(measured) >= 12:  # what kill -9 leaves: the folder as the last save wrote it
            left.setdefault("record", (run_dir / colocation.COLOCATION_FILE).read_bytes())
            raise KeyboardInterrupt
        measured.append(judge.describe(combination))
        samples = [
            ModelSample(m, combination[m], thr, p99, 10.0, 100.0) for m, (thr, p99) in cs.true_numbers(combination).items()
        ]
        return ColocationVisit(step, round_index, order, dict(combination), samples, wall_s=cs.VISIT_S)

    ticks, real = itertools.count(0.0, 2.0), time.monotonic  # each read of the run's clock 2 s more (a slow host)
    monkeypatch.setattr(colocate_run, "time", types.SimpleNamespace(monotonic=lambda: real() + next(ticks)))
    monkeypatch.setattr(cs, "true_numbers", sqrt_costs)
    fake_server_source(monkeypatch, fake_visit, lambda opts: FakeColocationServer())
    argv = ["colocate", "-r", str(repo), "--results-dir", str(tmp_path / "results"), "--run-id", "r", "--perf-analyzer", str(pa)]
    first = CliRunner().invoke(
        cli, [*argv, "--model", "big=big_*", "--model", "small=small_*", "--no-report", "--time-budget", "900s"]
    )
    assert first.exit_code == 130, first.output
    (run_dir / colocation.COLOCATION_FILE).write_bytes(left["record"])  # the folder as the kill left it
    killed = colocation.load(run_dir)
    assert killed.visits and killed.spent_s is not None and killed.spent_s > 0
