"""Trial 25, T25-1: report.md of small runs (8 variants, ladders of 2-4 levels) read as 256-277 lines, the toolkit
warning about it itself, where the README promises 250 at any grid and ladder size. Why: once every lookup part had
moved, the findings left (thread hints, each level over the budget named, the failures' list, the effects' long
comparison with the pick's twins, another client workload's picks, the cut list) had no part to move; the level
tables' room was counted in table rows, not in the read lines of their legend, so they took more than it; a moved
section's parts kept their own 'in appendix.md' lines beside the section's. The runs are the trial's own
(tests/data/trial25_seq1: 8 variants, every level host busy, a failed level, cut for time; trial25_seqmix: 4
variants at two client workloads, interrupted and resumed). No server."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from report_lines import said_lines

import perf.report.write as report_write
from perf.plots import figures as plots
from perf.report.layout import MAX_REPORT_LINES, Part, fit, read_lines
from perf.report.write import write_report

DATA = Path(__file__).resolve().parents[2] / "data"


def _run(folder: Path, name: str) -> Path:
    folder.mkdir()
    (folder / "results.json").write_bytes(gzip.decompress((DATA / name / "results.json.gz").read_bytes()))
    return folder


@pytest.mark.parametrize(
    ("name", "pick"),
    [
        ("trial25_seq1", "**Best under the p99 budget of 15.00 ms:** `seqnet_onnx_cpu2_nodb_mbs64` at concurrency 4: 3,014.3"),
        (
            "trial25_seqmix",
            "**Best under the p99 budget of 15.00 ms:** `seqnet_onnx_cpu2_db500_mbs64 [T=8..256 (mixed)]` at concurrency 4",
        ),
    ],
)
def test_a_small_trial_run_reads_within_the_bound_and_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, name: str, pick: str
) -> None:
    monkeypatch.setattr(plots, "write_plots", lambda run, d, *a, **k: dict.fromkeys(map(str, range(8)), d / "x.png"))
    run = _run(tmp_path / "run", name)
    text = write_report(run).read_text()
    assert read_lines(text.splitlines()) <= MAX_REPORT_LINES, f"report.md reads as {read_lines(text.splitlines())} lines"
    assert "over the bound" not in caplog.text
    assert pick in text.split("## Recommendation")[1].split("\n## ")[0]  # the pick stays, with its numbers
    assert "| runner-up " in text  # the runner-ups' table stays
    both = text + (run / "appendix.md").read_text()
    monkeypatch.setattr(report_write, "MAX_REPORT_LINES", 10**6)  # the same report, unbounded
    whole = write_report(_run(tmp_path / "whole", name)).read_text()
    said = " ".join(said_lines(both))
    lost = [s for s in said_lines(whole) if s not in said]
    assert not lost, f"{len(lost)} lines of the report are in neither file: {lost[:3]}"


def test_a_moved_section_says_once_where_it_went_not_once_per_part() -> None:
    """A section whose lookup parts moved first, then the section itself: one line in its place (T25-1: the
    serving efficiency's section line and its two parts' lines, three lines saying one thing)."""
    parts = [
        Part(["## Findings", "", *["a finding that stays"] * 5, ""]),
        Part(["## Efficiency", "", *["what it found"] * 30, ""], detail=True),
        Part(["### Per level", *["| row |"] * 40], detail=True, name="Efficiency: per level"),
        Part(["### Baseline", *["| row |"] * 20], detail=True, name="Efficiency: the baseline"),
    ]
    report, moved = fit(parts, limit=12)
    assert sum("appendix.md" in ln for ln in report) == 1, report
    assert read_lines(report) <= 12
    assert "## Efficiency: per level" in moved and "## Efficiency: the baseline" in moved and "what it found" in moved
