"""The console row that carries a pick shows that level's numbers, as report.md's Recommendation says them,
and a row whose level is not the one a pick was compared with says so (trial 13, T13-18, T13-6: "best under
budget (c=2)" beside c=16's p99 of 116 ms against a 60 ms budget, and the other variant's c=2, better on both
numbers but measured in too few rounds to compare, shown with nothing said)."""

from __future__ import annotations

import io

from factories import level_result, run_result, variant_result
from rich.console import Console
from tables import column_text

from perf.analysis.recommendation.recommend import recommend
from perf.cli.summary import summary_table
from perf.records.results import RunResult
from perf.records.rounds import RoundsRecord

BUDGET_MS = 60.0


def _levels(concurrency: int, rounds: list[tuple[float, float]]) -> list:
    return [level_result(concurrency, thr, p99, trial=r) for r, (thr, p99) in enumerate(rounds)]


def _run() -> RunResult:
    """``pick``: its c=2 within the budget, its c=16 higher and over it; ``other``: its c=2 higher than the
    pick's and within the budget, in two rounds only (too few to be compared)."""
    pick = (
        _levels(1, [(200, 20), (205, 21), (198, 20), (202, 20)])
        + _levels(2, [(300, 37), (306, 36), (290, 38)])
        + _levels(16, [(540, 116), (545, 110), (530, 120)])
    )
    other = _levels(1, [(190, 10), (210, 11), (180, 10), (200, 10)]) + _levels(2, [(430, 26), (436, 25)])
    run = run_result(
        [variant_result("pick", pick), variant_result("other", other)],
        settings={"latency_budget_ms": BUDGET_MS, "design": "rounds"},
    )
    run.rounds = RoundsRecord(seed=1)
    return run


def _rows(run: RunResult) -> dict[str, str]:
    out = io.StringIO()
    Console(file=out, width=400).print(summary_table(run))
    lines = [ln for ln in out.getvalue().splitlines() if ln.startswith("│")]
    return {ln.split("│")[1].strip(): ln for ln in lines}


def test_the_pick_row_names_its_levels_numbers_as_the_report_does(tmp_path) -> None:
    from perf.records import results
    from perf.report.write import write_report

    run = _run()
    u = recommend(run, BUDGET_MS).best_under_budget
    assert u is not None and u.variant == "pick"
    row = _rows(run)["pick"]
    shown_c = int(row.split("│")[3].strip())
    assert shown_c != u.concurrency  # the row's level is another: the pick's numbers must be in its note
    assert f"best under budget (c={u.concurrency}: {u.numbers()}" in row
    # `other` c=2 is better on both medians (2 rounds): report.md says "not decided", the row too since T21-9
    assert u.dominated_mark is not None and f"{u.numbers()}; {u.dominated_mark})" in row
    results.save(run, tmp_path)
    said = next(ln for ln in write_report(tmp_path).read_text().splitlines() if ln.startswith("- **Best under"))
    assert f"at concurrency {u.concurrency}: {u.numbers()}" in said  # one source for both


def test_a_row_whose_level_was_not_compared_with_the_pick_says_so() -> None:
    run = _run()
    rec = recommend(run, BUDGET_MS)
    c = next(c for c in rec.ranking_under_budget.comparisons if c.b.variant == "other")
    out = io.StringIO()
    Console(file=out, width=400).print(summary_table(run))
    note = column_text(out.getvalue(), "note")
    row = _rows(run)["other"]
    shown_c = int(row.split("│")[3].strip())
    assert shown_c != c.b.concurrency
    assert f"c={shown_c} not compared with the pick" in note
    assert f"compared with the best under budget at c={c.b.concurrency}" in note


def test_the_picks_median_and_round_adjusted_throughput_are_each_labelled(tmp_path) -> None:
    # trial 13, T13-12: the console's column (the median) and the report's ranking (round-adjusted) gave 365.9 and
    # 439.3 for one level, the console's footer calling its median "round-adjusted"
    from perf.markdown import fmt
    from perf.records import results
    from perf.report.write import write_report

    run = _run()
    rec = recommend(run, BUDGET_MS)
    lead = rec.ranking_under_budget.leader
    assert fmt(lead.throughput_infer_per_s) != fmt(lead.adjusted_infer_per_s)  # the case: two numbers for one level
    assert fmt(lead.throughput_infer_per_s) == fmt(rec.best_under_budget.throughput_infer_per_s)
    results.save(run, tmp_path)
    text = write_report(tmp_path).read_text()
    ranking = text[text.index("## Paired ranking") :]
    said = next(ln for ln in ranking.splitlines() if ln.startswith("- **Best under"))
    assert f"round-adjusted {fmt(lead.adjusted_infer_per_s)} infer/s" in said
    assert f"their median, {fmt(lead.throughput_infer_per_s)} infer/s, is what the Recommendation and the console give" in said
    out = io.StringIO()
    Console(file=out, width=400).print(summary_table(run))
    assert "infer/s and p99: medians over that level's rounds" in out.getvalue()
