"""Trial 25, T25-16: appendix.md held the cold-start table twice ("## Cold start, every variant" and the
"## Cold start" report.md moved for its length); session 20: the knees, the flagged levels and the sweep's
sentences twice too (the moved copy beside the full list). Each thing is in the appendix once. The runs are
the trial's own (tests/data: 8 variants, report.md moving most of its lookup parts). No server."""

from __future__ import annotations

import collections
import gzip
from pathlib import Path

import pytest

from perf.plots import figures as plots
from perf.report.appendix import content, sections, without_copies
from perf.report.write import write_report

DATA = Path(__file__).resolve().parents[2] / "data"


def _appendix(tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(plots, "write_plots", lambda run, d, *a, **k: dict.fromkeys(map(str, range(8)), d / "x.png"))
    run = tmp_path / "run"
    run.mkdir()
    (run / "results.json").write_bytes(gzip.decompress((DATA / name / "results.json.gz").read_bytes()))
    write_report(run)
    return (run / "appendix.md").read_text()


@pytest.mark.parametrize("name", ["trial25_seq1", "trial25_seqmix", "trial24_s2"])
def test_no_section_of_the_appendix_is_there_twice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    text = _appendix(tmp_path, name, monkeypatch)
    parts = sections(text.splitlines())[1:]
    headings = collections.Counter(p[0] for p in parts)
    assert [h for h, n in headings.items() if n > 1] == []  # "## Results per concurrency level" twice, ...
    said = [(p[0], content(p)) for p in parts]
    held = [(a, b) for a, sa in said for b, sb in said if a != b and sa and sa <= sb]
    assert held == []  # "## Cold start, every variant" inside "## Cold start", "## Knees" = "each variant's knee"
    rows = collections.Counter(ln for p in parts for ln in content(p) if ln.startswith("`") or ln.startswith("- `"))
    assert [ln for ln, n in rows.items() if n > 1] == []  # a level's bullet (a flagged level, a knee) once


def test_a_flagged_levels_count_says_what_it_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = _appendix(tmp_path, "trial25_seq1", monkeypatch)
    (flagged,) = [p for p in sections(text.splitlines()) if p[0] == "## Flagged levels"]
    assert flagged[2].split(";")[0].endswith("flagged levels"), flagged[2]  # was "32; † on their numbers; ..."


def test_a_moved_part_the_appendix_holds_whole_is_left_out_and_a_moved_section_with_findings_is_whole() -> None:
    held = [
        "# Appendix",
        "",
        "## Knees",
        "",
        "- `a`: c=4",
        "",
        "## Cold start, every variant",
        "",
        "| v | r |",
        "|:-|-:|",
        "| a | 2 |",
        "| b | 3 |",
    ]
    moved = [
        "## Recommendation: each variant's knee", "", "- `a`: c=4", "",
        "## Cold start", "", "| v | r |", "|:-|-:|", "| b | 3 |", "", "The 1 slowest of 2; every variant: [appendix.md](appendix.md).", "", "Why: lazy.", "",
    ]  # fmt: skip
    whole = {
        "Cold start": [
            "## Cold start",
            "",
            "| v   | r   |",
            "|:----|----:|",
            "| a   | 2   |",
            "| b   | 3   |",
            "",
            "Why: lazy.",
            "",
        ]
    }
    out = without_copies(held, moved, whole)
    assert "## Recommendation: each variant's knee" not in out and "## Cold start, every variant" not in out
    assert out.count("- `a`: c=4") == 1 and "Why: lazy." in out and "| a   | 2   |" in out
