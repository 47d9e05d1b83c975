"""report.md lists the flagged levels, short, whatever its length (s22z, Z-3: the "Flagged levels" list moved to the
appendix in every real run once report.md passed its bound, and report.md never said which levels were flagged): one
line per set of flags, its levels counted and its variants named (at most 5 lines); the appendix says each and why. The runs are the trials' own
(tests/data), whose lists all moved. No server."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from perf.analysis.recommendation.recommend import recommend
from perf.plots import figures as plots
from perf.records import results
from perf.records.workloads import split_by_workload
from perf.report.layout import MAX_REPORT_LINES, read_lines
from perf.report.write import write_report

DATA = Path(__file__).resolve().parents[2] / "data"


@pytest.mark.parametrize("name", ["trial24_s2", "trial25_seq1", "trial23_ctr"])
def test_a_long_report_keeps_its_short_flagged_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setattr(plots, "write_plots", lambda *a, **k: {})
    (tmp_path / "results.json").write_bytes(gzip.decompress((DATA / name / "results.json.gz").read_bytes()))
    run = split_by_workload(results.load(tmp_path))  # as the report reads it: a series per client workload
    rec = recommend(run, run.settings.get("latency_budget_ms"))
    lines = write_report(tmp_path).read_text().splitlines()
    assert read_lines(lines) <= MAX_REPORT_LINES  # the bound holds: other parts moved
    at = next(i for i, ln in enumerate(lines) if ln.startswith("- **Flagged levels** ("))
    assert "section “Flagged levels”" in lines[at]
    items = []
    for ln in lines[at + 1 :]:
        if not ln.startswith("  - "):
            break
        items.append(ln[4:])
    assert 1 <= len(items) <= 5 and "The flagged levels: in" not in " ".join(items), items
    shown = [i for i in items if not i.startswith("… ")]
    assert shown == rec.flagged_summary[: len(shown)] and all(len(ln) <= 100 for ln in shown), (shown, rec.flagged_summary)
    # every flagged level counted once, each line naming a variant
    assert sum(int(i.split(": ")[-1].split(" level")[0]) for i in rec.flagged_summary) == rec.flagged_levels
    assert all(", of `" in i for i in shown), shown
    assert "## Flagged levels" in (tmp_path / "appendix.md").read_text()
