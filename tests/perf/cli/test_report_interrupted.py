"""Trial 23, T23-3: a Ctrl-C while a sweep wrote its report printed only "aborted" (exit 130): nothing said the run
was saved, nor how to get its report. Interrupted anywhere in a report (the sweep's end, ``triton-perf report``), the
command says what is kept and the command that writes the report."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from factories import make_run

from core.console import reset_stop
from perf.cli import report as report_cli
from perf.cli.main import cli
from perf.records.results import save


def _interrupt(*_a: object, **_k: object) -> None:
    raise KeyboardInterrupt


@pytest.mark.parametrize("where", ["perf.report.write.write_report", "perf.cli.summary.summary"])
def test_a_report_interrupted_says_the_run_is_kept_and_how_to_write_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    import importlib

    module, name = where.rsplit(".", 1)
    run_dir = tmp_path / "results" / "r1"
    save(make_run(), run_dir)
    monkeypatch.setattr(importlib.import_module(module), name, _interrupt)
    reset_stop()
    with pytest.raises(SystemExit) as e:
        report_cli.print_report(run_dir, 5.0)
    assert e.value.code == 130


def test_the_report_command_says_it_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_dir = tmp_path / "results" / "r1"
    save(make_run(), run_dir)
    monkeypatch.setattr("perf.report.write.write_report", _interrupt)
    reset_stop()
    out = CliRunner().invoke(cli, ["report", str(run_dir)])
    said = " ".join(out.output.split())
    assert out.exit_code == 130, out.output
    assert "aborted" not in said.lower()
    assert (
        f"interrupted (Ctrl-C) while writing the report of r1: its numbers are kept in {run_dir / 'results.json'} "
        "(nothing measured is lost); its report.md and plots may be missing or part-written: "
        f"`triton-perf report {run_dir}` writes them" in said
    ), said
