"""Trial 23, T23-5: report.md of an 8-variant run kept "within 250 lines" in letter only: 246 lines, 52.7 KB,
599 lines folded at 100 columns, one bullet ~900 characters before its variant's name. The bound is now in lines
as read (:func:`perf.report.layout.read_lines`), and what makes the body fit moves, never goes: every sentence of
the report unbounded is in report.md or appendix.md. The run is the trial's own (tests/data/trial23_ctr: a rounds
sweep of 8 CTR variants, every level host busy, 2 failed, cut for time, resumed). No server."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from report_lines import said_lines

import perf.report.write as report_write
from perf.plots import figures as plots
from perf.report.layout import MAX_REPORT_LINES, read_lines
from perf.report.write import write_report

RUN = Path(__file__).resolve().parents[2] / "data" / "trial23_ctr" / "results.json.gz"


def _run(folder: Path) -> Path:
    folder.mkdir()
    (folder / "results.json").write_bytes(gzip.decompress(RUN.read_bytes()))
    return folder


def test_the_trial_run_reads_within_the_bound_and_moves_nothing_out_of_both_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = _run(tmp_path / "run")  # its 8 plots, as the trial's report has them
    monkeypatch.setattr(plots, "write_plots", lambda *a, **k: dict.fromkeys(map(str, range(8)), run / "x.png"))
    text = write_report(run).read_text()
    assert read_lines(text.splitlines()) <= MAX_REPORT_LINES, f"report.md reads as {read_lines(text.splitlines())} lines"
    # the findings stay: the pick and its number, the runner-up and tie, the caveats
    rec = text.split("## Recommendation")[1].split("\n## ")[0]
    assert "**Best under the p99 budget of 5.00 ms:** `ctr_onnx_cpu1_nodb_mbs64` at concurrency 1: 1,590.2 infer/s" in rec
    # the best peak: db500 c=4, first by round-adjusted throughput; nodb c=4 (2,008.8 over the same 3 rounds, ahead in 2
    # of them) named it before 2 of 3 stopped moving the leader (trial 28, T28-1)
    assert "`ctr_onnx_cpu2_db500_mbs64` at concurrency 4: 1,975.2 infer/s" in rec and "not distinguishable at this noise" in rec
    picks = [ln for ln in rec.splitlines() if ln.startswith("- **Best")]  # each names its variant first (~900 characters)
    assert len(picks) == 2 and all(ln.index("`") < 60 for ln in picks), picks
    assert "peak not reached: its ladder stopped at the p99 latency budget" in rec  # its why, after
    assert "are not verified here" in rec and "Every level of this run is flagged" in text
    assert "| `ctr_ts_cpu1_db500_mbs64`  |      4 |" in text  # the runner-ups' table
    # a shared reason is said once: the tie set's four settled members (trial 23: the same why four times)
    assert rec.count("further rounds could not have separated them") == 1
    both = text + (run / "appendix.md").read_text()
    monkeypatch.setattr(report_write, "MAX_REPORT_LINES", 10**6)  # the same report, unbounded
    whole = write_report(_run(tmp_path / "whole")).read_text()
    said = " ".join(said_lines(both))
    lost = [s for s in said_lines(whole) if s not in said]
    assert not lost, f"{len(lost)} lines of the report are in neither file: {lost[:3]}"
