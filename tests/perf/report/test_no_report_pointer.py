"""Trial 28, T28-13: ``sweep --no-report`` ended its Recommendation line "(why, and what each was compared with:
report.md's Recommendation)" where no report.md was written, or where the one there was an earlier session's, out of
date (s22z, Z-13). The line names the command that writes report.md instead; a report that was just written is named
as before, and a what-if view's by its own folder (the run's report.md is not the one written). No server."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from saved_sweeps import sweep_said, two_variant_run

from perf.cli.main import cli as perf_cli
from perf.records import results

WHY = "(why, and what each was compared with: "


def _why(said: str) -> str:
    line = next(ln for ln in said.split("Recommendation: ")[1:] if WHY in ln)
    return line.split(WHY, 1)[1].split(")", 1)[0]


def test_no_report_points_to_the_command_that_writes_report_md(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    said = sweep_said(monkeypatch, two_variant_run(200.0, 1), "--no-report")  # a fresh run: no report.md at all
    assert not (tmp_path / "results/r/report.md").exists()
    assert _why(said) == "report.md's Recommendation, which `triton-perf report results/r` writes", said

    said = sweep_said(monkeypatch, two_variant_run(200.0, 1))  # written: named as it is
    assert _why(said) == "report.md's Recommendation", said
    said = sweep_said(monkeypatch, two_variant_run(400.0, 2), "--no-report")  # the report.md there is now out of date
    assert "out of date" in said and _why(said) == "report.md's Recommendation, which `triton-perf report results/r` writes"


def test_a_what_if_view_points_to_its_own_report(tmp_path: Path) -> None:
    results.save(two_variant_run(200.0, 1), tmp_path / "r")
    res = CliRunner().invoke(perf_cli, ["report", str(tmp_path / "r"), "--latency-budget-ms", "5"])
    assert res.exit_code == 0, res.output
    assert _why(" ".join(res.output.split())) == "report-budget5ms/report.md's Recommendation", res.output
