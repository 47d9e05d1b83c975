"""Where a level's budget verdict, taken on its quieter rounds, goes the other way from the median
over every round a table shows, the table says so with the number the verdict used (trial 10, F3:
a p99 of 23.91 ms shown under a 25 ms budget for a level ruled out on its 28.71 ms)."""

from __future__ import annotations

import io

from factories import level_result, run_result, variant_result
from rich.console import Console
from tables import column_text

from perf.analysis.budget_latency import judge
from perf.cli.summary import summary_table
from perf.records.rounds import RoundsRecord

# three rounds, every one host busy: the quieter two (least other CPU) have the higher p99
P99 = [(20.0, 90.0), (30.0, 20.0), (31.0, 30.0)]


def test_a_verdict_that_differs_from_the_all_rounds_median_is_said_both_ways() -> None:
    j = judge([(ms, busy, True) for ms, busy in P99])
    assert (j.all_ms, j.ms) == (30.0, 30.5)
    assert j.verdict_note(99, 30.2) == "over the budget on its quieter rounds: p99 30.50 ms"
    assert j.verdict_note(99, 29.0) is None and j.verdict_note(99, 31.0) is None  # both numbers agree
    low = judge([(ms, busy, True) for ms, busy in [(40.0, 90.0), (30.0, 20.0), (29.0, 30.0)]])
    assert low.verdict_note(99, 29.8) == "within the budget on its quieter rounds: p99 29.50 ms"


def test_the_console_table_marks_a_level_over_the_budget_on_its_quieter_rounds() -> None:
    levels = [level_result(4, 500.0, ms, trial=r, host_busy=True, host_busy_pct=busy) for r, (ms, busy) in enumerate(P99)]
    run = run_result([variant_result("v", levels)], settings={"latency_budget_ms": 30.2, "design": "rounds"})
    run.rounds = RoundsRecord(seed=1)
    out = io.StringIO()
    Console(file=out, width=250).print(summary_table(run))
    assert column_text(out.getvalue(), "p99 ms") == "30.00"
    assert "over the budget on its quieter rounds: p99 30.50 ms" in column_text(out.getvalue(), "note")
