"""A number taken on a level's quieter rounds (those not host busy) is said as such: beside the
column's median over every round when an exclusion rests on it, and never with the "† host busy"
mark, which names a number taken under host load.

Trial 12, F12 (make demo, budget 25 ms): the excluded row showed 1,456.9 infer/s, p99 26.84 ms and
no reason, beside the pick's 1,280.6 infer/s, p99 29.25 ms ("within the budget on its quieter rounds:
p99 22.70 ms"): its exclusion rested on its quieter rounds' 30.31 ms, said only in the log; and the
pick's "the budget was not reached (p99 22.70 ms † host busy ...)" marked the quieter rounds' median.
"""

from __future__ import annotations

import io

from factories import level_result, run_result, variant_result
from rich.console import Console
from tables import column_text

from perf.analysis.ranking.budget_latency import judge
from perf.analysis.recommendation.recommend import recommend
from perf.cli.summary import summary_table
from perf.markdown import UNSTABLE_MARK
from perf.records.rounds import RoundsRecord

BUDGET = 25.0
#: (p99 ms, other processes' CPU %, host busy) per round: two busy rounds low, three quiet ones high
#: (over the budget both ways, as the excluded row of the trial).
OVER = [(20.0, 90.0, True), (21.0, 95.0, True), (30.0, 5.0, False), (31.0, 6.0, False), (30.5, 7.0, False)]
#: The pick's top level: over the budget over every round (3 of 6 host busy), within it on its 3 quiet rounds.
WITHIN = [(40.0, 90.0, True), (41.0, 95.0, True), (42.0, 92.0, True), (22.0, 5.0, False), (23.0, 6.0, False), (22.5, 7.0, False)]


def _levels(c: int, thr: float, rounds: list[tuple[float, float, bool]]) -> list:
    return [
        level_result(c, thr, ms, spread=True, trial=r, host_busy=flag, host_busy_pct=busy)
        for r, (ms, busy, flag) in enumerate(rounds)
    ]


def _quiet(ms: float) -> list[tuple[float, float, bool]]:
    return [(ms, 5.0, False)] * len(WITHIN)


def _run():
    pick = variant_result("pick", _levels(1, 300.0, _quiet(5.0)) + _levels(2, 550.0, _quiet(9.0)) + _levels(4, 1000.0, WITHIN))
    out = variant_result("out", _levels(4, 1200.0, OVER))
    run = run_result([pick, out], settings={"latency_budget_ms": BUDGET, "design": "rounds"})
    run.rounds = RoundsRecord(seed=1)
    return run


def test_a_level_over_the_budget_both_ways_says_the_quieter_number_it_was_ruled_out_on() -> None:
    j = judge(OVER, cores=None)
    assert j.all_ms < j.ms and j.all_ms > BUDGET
    assert j.verdict_note(99, BUDGET) == f"over the budget on its quieter rounds: p99 {j.ms:.2f} ms"
    assert judge(_quiet(5.0), cores=None).verdict_note(99, BUDGET) is None  # no host-busy round: nothing to say


def test_the_console_row_of_the_excluded_variant_carries_its_reason() -> None:
    out = io.StringIO()
    Console(file=out, width=300).print(summary_table(_run()))
    notes = column_text(out.getvalue(), "note")
    assert f"over the budget on its quieter rounds: p99 {judge(OVER, cores=None).ms:.2f} ms" in notes


def test_a_quieter_rounds_number_carries_no_host_busy_mark() -> None:
    u = recommend(_run(), BUDGET).best_under_budget
    assert (
        judge(WITHIN, cores=None).all_ms > BUDGET >= judge(WITHIN, cores=None).ms
    )  # within the budget on its quieter rounds only
    assert u is not None and u.variant == "pick" and u.headroom is not None
    quiet = f"{judge(WITHIN, cores=None).ms:.2f} ms"
    assert f"p99 {quiet} on its quieter rounds at c=4" in u.headroom
    assert f"{quiet}{UNSTABLE_MARK}" not in u.headroom and f"{quiet} {UNSTABLE_MARK}" not in u.headroom
