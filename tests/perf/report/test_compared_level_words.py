"""The console's "not compared with the pick" means what report.md means: no ranking of a pick compared that level
(trial 27, T27-15: "c=4 not compared with the pick (4 rounds)" on a row whose c=4 report.md's best-peak table compared
with the same pick level, 4 of 4 rounds; the budget's ranking had taken its knee, c=1)."""

from __future__ import annotations

from compared_levels import KNEED, kneed_run
from rich.console import Console

from perf.analysis.recommendation.recommend import recommend
from perf.cli.summary import summary_table


def _row(name: str) -> str:
    console = Console(width=3000, record=True)
    console.print(summary_table(kneed_run()))
    return next(" ".join(line.split()) for line in console.export_text().splitlines() if f"│ {name} " in line)


def test_a_level_one_pick_compared_is_never_said_not_compared() -> None:
    rec = recommend(kneed_run(), 25.0)
    assert rec.best_under_budget is not None and rec.best_peak is not None
    assert rec.best_under_budget.at(4) and rec.best_peak.at(4)  # one pick level for both
    assert rec.ranking_under_budget is not None and rec.ranking is not None
    (budget,) = rec.ranking_under_budget.comparisons
    (peak,) = rec.ranking.comparisons
    assert budget.b.concurrency == 1 and peak.b.concurrency == 4  # the budget's ranking at its knee, the peak's at c=4
    row = _row(KNEED["name"])
    assert "not compared" not in row, row
    assert "compared with the best peak at c=4 (4 rounds): the pick ahead" in row
    assert "compared with the best under budget at c=1 (4 rounds): the pick ahead" in row
