"""A save of the run's record reads it back once for all its reports, not once per report folder (the run's own and
each what-if view's): perf.report_state read and digested results.json (2.9 MB for 200 variants: about 45 ms) again
for every folder, at every save while a report of the same state was unmarked."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from factories import level_result
from saved_sweeps import two_variant_run

from perf import report_state
from perf.records import results
from perf.report_state import MARK, outdated_text, record_written

VIEWS = ("report-budget5ms", "report-budget9ms", "report-p95")


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The record files perf.report_state reads from now on (its own state files apart)."""
    read: list[str] = []
    real = report_state._read

    def counted(path: Path) -> dict | None:
        if Path(path).name != report_state.STATE_FILE:
            read.append(Path(path).name)
        return real(path)

    monkeypatch.setattr(report_state, "_read", counted)
    return read


def test_a_save_reads_the_record_once_for_every_report_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = two_variant_run(200.0, 1)
    results.save(run, tmp_path)
    for folder in (tmp_path, *(tmp_path / v for v in VIEWS)):
        folder.mkdir(exist_ok=True)
        (folder / "report.md").write_text("# Sweep report: r\n\nthe pick is a_mbs4\n")
        record_written(folder, tmp_path / results.RESULTS_FILE)
    read = _reads(monkeypatch)
    results.save(run, tmp_path)  # the same state: nothing marked
    assert read == [results.RESULTS_FILE] and MARK not in (tmp_path / "report.md").read_text()
    changed = copy.deepcopy(run)
    changed.variants[1].levels.append(level_result(8, 210.0, 16.0))
    read.clear()
    results.save(changed, tmp_path)  # every report marked, from one read
    assert read == [results.RESULTS_FILE]
    assert all(MARK in (tmp_path / v / "report.md").read_text() for v in VIEWS)
    read.clear()
    said = outdated_text(tmp_path)
    assert read == [results.RESULTS_FILE] and said is not None and said.count("out of date") == 1 + len(VIEWS)
