"""A variant's best level named although another of its levels has the higher median, where that median is of
rounds the best level was not measured in, says so; and under a budget the console's legend says its "best" column
is the variant's best level whatever the budget, the pick's own level the note's (trial 22, F-best-col: a row
"1,762.5 │ 16 † │ 34.14" over a 30 ms budget beside "best under budget (c=4 † host busy: 1,828.8 infer/s, p99
11.06 ms ...); c=4's median higher, 1,828.8 ..." read as the column contradicting its note)."""

from __future__ import annotations

from factories import rounds_run
from rich.console import Console

from perf.analysis.saturation.best_level import best_levels
from perf.analysis.saturation.peaks import higher_median
from perf.analysis.stats.points import run_points
from perf.cli.summary import summary_table

#: c=4 in 6 rounds (the first 3 quieter), c=16 (p99 32 ms: over a 30 ms budget) in the last 3, ahead of c=4 in each.
LEVELS = {
    1: dict.fromkeys(range(6), 600.0),
    4: {0: 1900.0, 1: 1900.0, 2: 1900.0, 3: 1700.0, 4: 1700.0, 5: 1700.0},
    16: {3: 1750.0, 4: 1760.0, 5: 1770.0},
}


def test_the_higher_median_of_rounds_the_best_level_missed_is_said_so_and_the_legend_says_whatever_the_budget() -> None:
    run = rounds_run(LEVELS)
    pts = run_points(run)
    best = best_levels(run, pts)["v"]
    assert best.concurrency == 16  # by the rule: ahead of c=4 in every round they shared (the medians: other rounds)
    console = Console(record=True, width=500)
    console.print(summary_table(run, 30.0))
    text = console.export_text()
    row = " ".join(line for line in text.splitlines() if "│ v " in line)
    assert "best under budget (c=4: 1,800.0 infer/s, p99 8.00 ms)" in row  # the pick's own level, within the budget
    assert "c=4's median higher, 1,800.0 (over 6 rounds, 3 of them without c=16): " in row
    assert "c=16 ahead in 3 of 3 rounds" in row
    assert "best: each variant's best level whatever the budget" in " ".join(text.split())
    why = higher_median(run, pts["v"], best)  # report.md's words
    assert why is not None and "(over 6 rounds, 3 of them without c=16)" in why


def test_no_unshared_clause_where_the_higher_median_is_of_the_shared_rounds() -> None:
    run = rounds_run({4: {0: 1000.0, 1: 900.0, 2: 1100.0}, 16: {0: 1050.0, 1: 1200.0, 2: 980.0}})
    pts = run_points(run)
    best = best_levels(run, pts)["v"]
    why = higher_median(run, pts["v"], best, short=True)
    assert why is None or "without" not in why
