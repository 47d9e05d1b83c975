"""Trial 25, T25-10: report.md said a clause twice. A cut of a variant with numbers from an earlier session: "variant
not measured further in this session (`x`): not measured further in this session: after the rounds ..." (the label
and the reason's opening; an older toolkit's run: "variant not measured (`x`): not measured further in this
session: ..."), and a frontier of one level: "from `a` at c=4 (lowest p99 ...) to `a` at c=4 (highest throughput
...)". Each is said once. The runs are the trial's (tests/data/trial25_seqmix: interrupted and resumed, a variant cut
in the second session; trial25_seq1: a frontier of one level). No server."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

import perf.report.sections.rounds_budget as rounds_budget
import perf.report.sections.said as said
from perf.plots import figures as plots
from perf.report.sections.said import cut_said
from perf.report.write import write_report

DATA = Path(__file__).resolve().parents[2] / "data"


def _report(folder: Path, name: str) -> str:
    """report.md and appendix.md of the trial's run ``name``, written in ``folder``."""
    folder.mkdir()
    (folder / "results.json").write_bytes(gzip.decompress((DATA / name / "results.json.gz").read_bytes()))
    return write_report(folder).read_text() + (folder / "appendix.md").read_text()


@pytest.mark.parametrize("today", [False, True])
def test_a_cut_says_not_measured_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, today: bool) -> None:
    monkeypatch.setattr(plots, "write_plots", lambda *a, **k: {})
    if today:  # as the trial's own toolkit wrote it: the sweep's words in place
        monkeypatch.setattr(rounds_budget, "own", lambda run: True)
        monkeypatch.setattr(said, "own", lambda run: True)
    text = _report(tmp_path / "run", "trial25_seqmix")
    cuts = [ln for ln in text.splitlines() if "(`seqnet_onnx_cpu1_db500_mbs64`):" in ln and "not measured" in ln.lower()]
    assert cuts, "the cut of seqnet_onnx_cpu1_db500_mbs64 is said"
    for ln in cuts:
        assert len(re.findall("not measured", ln, re.IGNORECASE)) == 1, ln
        # it has numbers from the first session: further in this session, never plain "not measured"
        assert re.search(r"variant not measured further in this session \(`seqnet_onnx_cpu1_db500_mbs64`\): \w", ln, re.I), ln


def test_a_frontier_of_one_level_names_it_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plots, "write_plots", lambda *a, **k: {})
    text = _report(tmp_path / "run", "trial25_seq1")
    bullet = next(ln for ln in text.splitlines() if ln.startswith("- **Pareto frontier**"))
    assert bullet.count("`seqnet_onnx_cpu2_nodb_mbs64`") == 1, bullet
    assert (
        "one level, `seqnet_onnx_cpu2_nodb_mbs64` at c=4 (both the lowest p99 and the highest throughput: 3,014.3 infer/s, p99 5.26 ms)"
        in bullet
    )
    section = next(ln for ln in text.splitlines() if ln.startswith("The **operating frontier**"))
    assert "first" not in section.split(")")[0], section  # one level has no order: no "lowest p99 first"


def test_cut_said_takes_the_reasons_opening_into_the_label() -> None:
    assert cut_said("variant not measured", "x", "not measured further in this session: after the rounds 68 s") == (
        "variant not measured further in this session (`x`): after the rounds 68 s"
    )
    assert cut_said("variant not measured", "x", "not measured: 40 s needed") == "variant not measured (`x`): 40 s needed"
    assert cut_said("levels not measured", None, "from concurrency 8") == "levels not measured: from concurrency 8"
    assert cut_said("ladder stopped", "x", "not measured: at c=8") == "ladder stopped (`x`): not measured: at c=8"
