"""A ``triton-perf sweep`` through its CLI with the measuring faked (no server): the saving, the summary, the report,
its state and its mark are the real code's.

- :class:`SavedSweep`: stands in for :class:`perf.sweep.run.Sweep`; it saves :attr:`SavedSweep.run` as a sweep that
  ended leaves it;
- :func:`fake_sweep`: puts it in place of the real one for a test;
- :func:`sweep_said`: runs ``triton-perf sweep --results-dir results --run-id r --no-baseline FLAGS`` on such a run,
  its output with the white space folded;
- :func:`two_variant_run`: run ``r`` of ``a_mbs4`` and ``b_mbs4`` at concurrency 1, 2, 4 (``b``'s top level given).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from factories import level_result, run_result, variant_result

from perf.cli.main import cli as perf_cli
from perf.records import results
from perf.records.results import RunResult, Session


class SavedSweep:
    """Stands in for :class:`perf.sweep.run.Sweep`: it saves :attr:`run` (the measuring faked), as a sweep that ended
    leaves it."""

    nothing_to_measure = False
    stopped_in_baseline = False
    run: Any = None

    def __init__(self, opts: Any, progress: Any = None) -> None:
        self.opts, self.run_id = opts, opts.run_id
        self.run_dir = Path(opts.results_dir) / opts.run_id
        self.names = [v.name for v in self.run.variants]
        self.plans: dict[str, Any] = {}

    def level_counts(self) -> tuple[int, int]:
        return 0, 0

    def run_all(self) -> Any:
        results.save(self.run, self.run_dir)
        return self.run


def fake_sweep(monkeypatch: pytest.MonkeyPatch, run: RunResult) -> None:
    """``triton-perf sweep`` saves ``run`` (:class:`SavedSweep`) for the rest of the test."""
    import perf.sweep.run

    SavedSweep.run = run
    monkeypatch.setattr(perf.sweep.run, "Sweep", SavedSweep)


def sweep_said(monkeypatch: pytest.MonkeyPatch, run: RunResult, *flags: str) -> str:
    """``triton-perf sweep --results-dir results --run-id r --no-baseline FLAGS`` saving ``run`` (in the current
    folder): its output, the white space folded to one space."""
    fake_sweep(monkeypatch, run)
    res = CliRunner().invoke(perf_cli, ["sweep", "--results-dir", "results", "--run-id", "r", "--no-baseline", *flags])
    assert res.exit_code == 0, res.output
    return " ".join(res.output.split())


def two_variant_run(b_top: float, sessions: int) -> RunResult:
    """Finished run ``r`` of ``a_mbs4`` (100, 180, 200 infer/s) and ``b_mbs4`` (90, 150, ``b_top``) at concurrency 1, 2,
    4, a p99 of 2 ms times the concurrency, with ``sessions`` finished sessions."""
    levels = {"a_mbs4": (100.0, 180.0, 200.0), "b_mbs4": (90.0, 150.0, b_top)}
    return run_result(
        [variant_result(n, [level_result(c, t, 2.0 * c) for c, t in zip((1, 2, 4), thr)]) for n, thr in levels.items()],
        run_id="r",
        finished="then",
        sessions=[Session(f"2026-12-05T07:5{i}:00", "finished") for i in range(sessions)],
    )
