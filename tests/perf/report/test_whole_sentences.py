"""Errors and notes are said whole (issue 26): the console summary cut a variant's error at 80
characters and the report's tables cut a failed level's at 100 or 120, mid-word."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from factories import level_result, make_run
from rich.console import Console

from core.cli import print_table
from perf.cli.summary import summary_table
from perf.records.results import save
from perf.report.write import write_report

LONG = (
    "perf_analyzer exited 1: failed to create concurrency manager: the model's input INPUT__0 expects 512 values "
    "per request and the generated data has 511 (check --shape and the build's spec)"
)


def test_the_console_summary_says_a_variants_error_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    run = make_run()
    run.variants[3].error = LONG + "\nTraceback lines the log keeps"
    monkeypatch.delenv("COLUMNS", raising=False)
    out = io.StringIO()
    print_table(summary_table(run, 3.0), Console(file=out))
    note = " ".join(line.split("│")[-2].strip() for line in out.getvalue().splitlines() if line.count("│") > 2)
    assert "failed: " + LONG in " ".join(note.split())
    assert "Traceback" not in out.getvalue()  # the first line: the sentence, not the log


def test_the_reports_tables_say_a_failed_levels_error_whole(tmp_path: Path) -> None:
    run = make_run()
    v = run.variants[0]
    v.levels = [lv for lv in v.levels if lv.concurrency != 4] + [level_result(4, batch_size=1, error=LONG)]
    v.levels.append(level_result(0, batch_size=1, request_rate=50.0, error=LONG))
    save(run, tmp_path)
    report = write_report(tmp_path)
    text = report.read_text() + (report.parent / "appendix.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("|") and "failed: " in line]
    assert len(rows) >= 2 and all(f"failed: {LONG}" in r for r in rows)  # level tables and the request-rate table
