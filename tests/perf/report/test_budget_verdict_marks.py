"""Where a level's budget verdict, taken on its quieter rounds, goes the other way from the median
over every round a table shows, the table says so with the number the verdict used (trial 10, F3:
a p99 of 23.91 ms shown under a 25 ms budget for a level ruled out on its 28.71 ms)."""

from __future__ import annotations

import io

from factories import level_result, run_result, variant_result
from rich.console import Console
from tables import column_text

from perf.analysis.ranking.budget_latency import judge
from perf.cli.summary import summary_table
from perf.records.rounds import RoundsRecord

# five rounds, two host busy: the three quieter ones (not host busy) have the higher p99
P99 = [(20.0, 90.0, True), (21.0, 95.0, True), (30.0, 5.0, False), (31.0, 6.0, False), (30.5, 7.0, False)]


def test_a_verdict_that_differs_from_the_all_rounds_median_is_said_both_ways() -> None:
    j = judge(P99, cores=None)
    assert (j.all_ms, j.ms) == (30.0, 30.5)
    assert j.verdict_note(99, 30.2) == "over the budget on its quieter rounds: p99 30.50 ms"
    assert j.verdict_note(99, 31.0) is None  # within the budget on both numbers
    # over it on both: the number the exclusion rests on is said (trial 12, F12)
    assert j.verdict_note(99, 29.0) == "over the budget on its quieter rounds: p99 30.50 ms"
    low = judge([(40.0, 90.0, True), (41.0, 95.0, True), (30.0, 5.0, False), (29.0, 6.0, False), (29.5, 7.0, False)], cores=None)
    assert low.verdict_note(99, 29.8) == "within the budget on its quieter rounds: p99 29.50 ms"


def test_the_console_table_marks_a_level_over_the_budget_on_its_quieter_rounds() -> None:
    levels = [level_result(4, 500.0, ms, trial=r, host_busy=flag, host_busy_pct=busy) for r, (ms, busy, flag) in enumerate(P99)]
    run = run_result([variant_result("v", levels)], settings={"latency_budget_ms": 30.2, "design": "rounds"})
    run.rounds = RoundsRecord(seed=1)
    out = io.StringIO()
    Console(file=out, width=250).print(summary_table(run))
    assert column_text(out.getvalue(), "p99 ms") == "30.00"
    assert "over the budget on its quieter rounds: p99 30.50 ms" in column_text(out.getvalue(), "note")


def test_the_reports_level_table_says_the_number_the_verdict_used(tmp_path) -> None:
    from perf.records import results
    from perf.report.write import write_report

    levels = [level_result(4, 500.0, ms, trial=r, host_busy=flag, host_busy_pct=busy) for r, (ms, busy, flag) in enumerate(P99)]
    run = run_result([variant_result("v", levels)], settings={"latency_budget_ms": 30.2, "design": "rounds"})
    run.rounds = RoundsRecord(seed=1)
    results.save(run, tmp_path)
    rows = [ln for ln in write_report(tmp_path).read_text().splitlines() if ln.startswith("| `v` ")]
    assert any("30.00 [20.00–31.00] (over the budget on its quieter rounds: p99 30.50 ms)" in r for r in rows), rows


def test_the_console_footer_counts_what_it_leaves_out_by_kind() -> None:
    # trial 10, F11: 6 series with numbers shown and 5 variants cut for time before any measurement:
    # the footer said "the top 10 by highest throughput and the picks shown, 5 more in report.md"
    from perf.records.rounds import Cut

    measured = [variant_result(f"m{i}", [level_result(1, 100.0 + i, 5.0)]) for i in range(6)]
    cut = [variant_result(f"c{i}", [], status="skipped") for i in range(5)]
    run = run_result([*measured, *cut])
    run.rounds = RoundsRecord(seed=1, cuts=[Cut("variant", "time", f"c{i}") for i in range(5)])
    caption = " ".join(str(summary_table(run).caption).split())
    assert "more in report.md" not in caption
    assert "not shown: 5 variants cut for time before any measurement (report.md names them)" in caption
