"""The report's Search table says when the time budget cut a ladder (trial 6: "top of the ladder" and
"brute force over the same ladder: 56" for ladders the budget capped at concurrency 4 of 64)."""

from __future__ import annotations

from pathlib import Path

from factories import level_result, run_result, variant_result

from perf.records import results
from perf.records.rounds import BudgetRecord, RoundsRecord
from perf.records.search import SearchDecision, SearchRecord
from perf.report.write import write_report


def _section(tmp_path: Path, cap: int | None) -> str:
    variants = [
        variant_result(n, [level_result(c, t * c, 5.0, trial=r) for c in (1, 4) for r, t in enumerate((100, 101, 99))])
        for n in ("a", "b")
    ]
    search = SearchRecord("prune", True, order=["a", "b"], decisions=[SearchDecision("b", "cap", 4, "top")])
    rounds = RoundsRecord(seed=1, budget=BudgetRecord(180.0, 1.25, 5.0, 160.0, 6, max_concurrency=cap))
    run = run_result(variants, settings={"design": "rounds", "concurrency": "auto"}, rounds=rounds, search=search)
    results.save(run, tmp_path)
    text = write_report(tmp_path).read_text()
    return text.split("## Search", 1)[1].split("\n## ", 1)[0]


def test_a_ladder_the_time_budget_capped_is_said_cut_for_time(tmp_path: Path) -> None:
    text = _section(tmp_path / "cut", 4)
    # its unit said (trial 27, T27-16: a bare ": 24")
    assert "(brute force over the same ladder, cut for time at c=4: 6 levels)" in text
    assert "| `b`       | 1, 4                   | cut for time at c=4" in text
    assert "top of the ladder" not in text and ": 14 levels)" not in text
    whole = _section(tmp_path / "whole", None)  # the ladder's own top (64): as before
    assert "(brute force over the same ladder: 14 levels)" in whole and "top of the ladder" in whole
