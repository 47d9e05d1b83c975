"""Trial 28, T28-13: ``sweep --no-report`` ended its Recommendation line "(why, and what each was compared with:
report.md's Recommendation)" where no report.md was written, or where the one there was an earlier session's, out of
date (s22z, Z-13). The line names the command that writes report.md instead; a report that was just written is named
as before, and a what-if view's by its own folder (the run's report.md is not the one written). No server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from factories import level_result, run_result, variant_result

from perf.cli.main import cli as perf_cli
from perf.records import results
from perf.records.results import Session

WHY = "(why, and what each was compared with: "


class _SavedSweep:
    """Stands in for :class:`perf.sweep.run.Sweep`: it saves :attr:`run` (the measuring faked; the saving, the summary
    and the report are the real code's), as tests/perf/report/test_report_outdated.py's."""

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


def _run(b_top: float, sessions: int) -> Any:
    levels = {"a_mbs4": (100.0, 180.0, 200.0), "b_mbs4": (90.0, 150.0, b_top)}
    return run_result(
        [variant_result(n, [level_result(c, t, 2.0 * c) for c, t in zip((1, 2, 4), thr)]) for n, thr in levels.items()],
        run_id="r",
        finished="then",
        sessions=[Session(f"2026-12-05T07:5{i}:00", "finished") for i in range(sessions)],
    )


def _sweep(monkeypatch: pytest.MonkeyPatch, run: Any, *flags: str) -> str:
    import perf.sweep.run

    _SavedSweep.run = run
    monkeypatch.setattr(perf.sweep.run, "Sweep", _SavedSweep)
    res = CliRunner().invoke(perf_cli, ["sweep", "--results-dir", "results", "--run-id", "r", "--no-baseline", *flags])
    assert res.exit_code == 0, res.output
    return " ".join(res.output.split())


def _why(said: str) -> str:
    line = next(ln for ln in said.split("Recommendation: ")[1:] if WHY in ln)
    return line.split(WHY, 1)[1].split(")", 1)[0]


def test_no_report_points_to_the_command_that_writes_report_md(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    said = _sweep(monkeypatch, _run(200.0, 1), "--no-report")  # a fresh run: no report.md at all
    assert not (tmp_path / "results/r/report.md").exists()
    assert _why(said) == "report.md's Recommendation, which `triton-perf report results/r` writes", said

    said = _sweep(monkeypatch, _run(200.0, 1))  # written: named as it is
    assert _why(said) == "report.md's Recommendation", said
    said = _sweep(monkeypatch, _run(400.0, 2), "--no-report")  # the report.md there is now out of date
    assert "out of date" in said and _why(said) == "report.md's Recommendation, which `triton-perf report results/r` writes"


def test_a_what_if_view_points_to_its_own_report(tmp_path: Path) -> None:
    results.save(_run(200.0, 1), tmp_path / "r")
    res = CliRunner().invoke(perf_cli, ["report", str(tmp_path / "r"), "--latency-budget-ms", "5"])
    assert res.exit_code == 0, res.output
    assert _why(" ".join(res.output.split())) == "report-budget5ms/report.md's Recommendation", res.output
