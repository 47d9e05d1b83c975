"""A part report.md moves to the appendix for its length names the appendix's section that holds it (s21o: it said
only "In appendix.md (moved …)", and the appendix holds each variant's knee in "Knees", not under the moved part's
own name). The runs are the trial's own (tests/data). No server."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from perf.plots import figures as plots
from perf.report.appendix import FULL_FORMS, pointed
from perf.report.write import write_report

DATA = Path(__file__).resolve().parents[2] / "data"
POINTER = re.compile(r"\[appendix\.md\]\(appendix\.md\), section “([^”]+)”")


@pytest.mark.parametrize("name", ["trial25_seq1", "trial25_seqmix", "trial24_s2"])
def test_every_moved_part_names_a_section_the_appendix_has(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setattr(plots, "write_plots", lambda run, d, *a, **k: dict.fromkeys(map(str, range(8)), d / "x.png"))
    run = tmp_path / "run"
    run.mkdir()
    (run / "results.json").write_bytes(gzip.decompress((DATA / name / "results.json.gz").read_bytes()))
    report = write_report(run).read_text().splitlines()
    heads = {ln[3:] for ln in (run / "appendix.md").read_text().splitlines() if ln.startswith("## ")}
    moved = [ln for ln in report if "[appendix.md](appendix.md)" in ln and ("(moved" in ln or "section “" in ln)]
    named = [m.group(1) for ln in moved for m in POINTER.finditer(ln)]
    assert named and set(named) <= heads, set(named) - heads
    # each part's pointer names its section (old: "- Each variant's knee: in appendix.md (moved there ...)")
    parts = [ln for ln in moved if ln.lstrip().startswith("- ")]
    assert parts and all(POINTER.search(ln) for ln in parts), parts
    assert any(ln.lstrip().startswith("- Each variant's knee: in") and "section “Knees”" in ln for ln in parts)
    # a whole section keeps its heading, the appendix's for it
    whole = [
        next(h[3:] for h in reversed(report[:i]) if h.startswith("## "))
        for i, ln in enumerate(report)
        if ln.startswith("In [appendix.md](appendix.md) (moved")
    ]
    assert set(whole) <= heads, set(whole) - heads


def test_a_pointer_to_a_whole_form_the_appendix_lacks_names_the_parts_own_section() -> None:
    part, full = "Recommendation: the flagged levels", FULL_FORMS["Recommendation: the flagged levels"]
    line = f"  - The flagged levels: in [appendix.md](appendix.md), section “{full}”."
    assert pointed([line], ["## " + full]) == [line]
    assert pointed([line], ["## " + part]) == [line.replace(full, part)]
