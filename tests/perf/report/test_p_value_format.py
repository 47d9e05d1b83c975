"""Every p-value is written one way (s21o: trial 25's seqmix report.md said "p = 1.4e-05" beside "p = 0.25"):
``"p < 0.001"`` below 0.001, else 2 significant digits (:func:`core.units.p_text`, :func:`core.units.p_number`),
in report.md, appendix.md and the console. The run is the trial's own (tests/data). No server."""

from __future__ import annotations

import gzip
import os
import re
from pathlib import Path

import pytest

from core.units import p_number, p_text
from perf.analysis.stats.paired import p_cell, p_words, paired
from perf.analysis.stats.unpaired import rank_sum
from perf.cli.summary import summary
from perf.plots import figures as plots
from perf.records import results
from perf.report.write import write_report

DATA = Path(__file__).resolve().parents[2] / "data"
#: A number in scientific notation: "1.4e-05", "2e-06".
SCIENTIFIC = re.compile(r"\b\d(?:\.\d+)?e[-+]\d+\b")


def test_the_one_format() -> None:
    assert [p_text(p) for p in (1.4e-05, 0.00099, 0.001, 0.0078, 0.25, 1.0)] == [
        "p < 0.001",
        "p < 0.001",
        "p = 0.001",
        "p = 0.0078",
        "p = 0.25",
        "p = 1",
    ]
    assert p_number(2.8e-05) == "<0.001" and p_number(0.0049) == "0.0049"  # apart from the 0.005 the gap tier needs
    assert p_words(1.4e-05) == "p < 0.001, sign test" and p_cell(2.8e-05, "gap") == "<0.001 (gap)"
    assert p_words(2.8e-05, "far") == "every round more than 2× apart (t-test p < 0.001, not needed)"


def test_every_verdict_says_its_p_in_the_one_format() -> None:
    far = paired([100.0 * 3**i for i in range(12)], [1.0 + i for i in range(12)])  # a sign test p of 0.00049
    assert far is not None and far.p_value < 0.001
    for text in (far.spread_text(), far.describe(), far.cell()):
        assert not SCIENTIFIC.search(text) and "0.001" in text, text
    up = rank_sum([100.0 + i for i in range(12)], [200.0 + i for i in range(12)])
    assert up is not None and up.describe() == "higher (p < 0.001)"  # was "higher (p = 7.4e-07)"


def _console(run: results.RunResult) -> str:
    """What ``triton-perf report`` prints of ``run``: its table, its notes and the Recommendation line."""
    from rich.console import Console

    view = summary(run)
    with open(os.devnull, "w") as sink:
        console = Console(width=200, record=True, file=sink)
        console.print(view.table)
    return "\n".join([console.export_text(), *view.notes, view.recommendation or ""])


def test_the_trials_report_appendix_and_console_write_no_p_in_scientific_notation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plots, "write_plots", lambda run, d, *a, **k: dict.fromkeys(map(str, range(8)), d / "x.png"))
    run = tmp_path / "run"
    run.mkdir()
    (run / "results.json").write_bytes(gzip.decompress((DATA / "trial25_seqmix" / "results.json.gz").read_bytes()))
    write_report(run)
    said = {
        "report.md": (run / "report.md").read_text(),
        "appendix.md": (run / "appendix.md").read_text(),
        "console": _console(results.load(run)),
    }
    assert {k: SCIENTIFIC.findall(v) for k, v in said.items()} == dict.fromkeys(said, [])  # report.md: "p = 1.4e-05"
    assert "p < 0.001" in said["report.md"] + said["appendix.md"]


#: An f-string field formatting a p-value itself (``{p:.2g}``, ``{self.gap_p_value:.3f}``) instead of through the one format.
P_FIELD = re.compile(r"\{(?:[\w.]*\.)?(p|p_value|decided_p|gap_p_value|speedup_p_value)(?:![rsa])?:[^{}\s]*[gGeEf%]\}")
ROOT = Path(__file__).resolve().parents[3]


def test_no_p_value_is_formatted_but_by_the_one_format() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{i}: {m.group(0)}"
        for top in ("perf", "clients", "core", "builders")
        for path in sorted((ROOT / top).rglob("*.py"))
        for i, line in enumerate(path.read_text().splitlines(), 1)
        for m in P_FIELD.finditer(line)
        if path != ROOT / "core" / "units.py"  # the one format itself
    ]
    assert found == []  # old: perf/analysis/stats/paired.py and unpaired.py wrote {p:.2g}
