"""A settled tie's end words say when the time budget had no room for another round either
(perf.search.ending.decided.no_room). Trial 12, F19: "settled: the 6 rounds left could not separate the tie
set ..." with 8 s of the 60 s budget left, where no round of about 8 s fitted: the rounds left the
settle rule counted were the group's cap's, and the end reason hid that the budget was spent."""

from __future__ import annotations

from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundRules, RoundsRecord
from perf.records.search import SearchRecord, SearchRules
from perf.search.plan import LevelKey, plan_levels
from perf.search.rounds import Rounds, Setup

#: Per-round throughput: `b` ahead in rounds 0 and 2, behind in 1 and 3: settled after 4 rounds.
THR = {"a": [1000.0] * 4, "b": [1010.0, 990.0, 1010.0, 990.0]}
VISIT_S = 1.0  # the fake clock's seconds a visit


def _ended(deadline_s: float) -> str:
    clock = [0.0]
    run = RunResult("r", "now", variants=[VariantResult(n, status="ok") for n in THR])
    run.search, run.rounds = SearchRecord("brute", False), RoundsRecord(seed=0)
    plans = {n: plan_levels(n, 8, (1,), [1]) for n in THR}
    sched = Rounds(run, Setup(plans, (1,), False, SearchRules(), RoundRules(), "brute"), VISIT_S, lambda: clock[0], deadline_s)

    def measure(name: str, key: LevelKey) -> LevelResult:
        clock[0] += VISIT_S
        return LevelResult(key[0], 1, key[2], throughput_infer_per_s=THR[name][key[2]], latency_p99_ms=1.0)

    sched.run_group(list(THR), 0, measure)
    assert run.rounds.ended is not None
    return run.rounds.ended


def test_a_settled_tie_with_no_room_for_another_round_says_the_budget_too() -> None:
    rounds = len(THR["a"])
    spent = rounds * len(THR) * VISIT_S
    ended = _ended(spent + 0.5 * len(THR) * VISIT_S)  # half a round left
    assert " settled: the 6 rounds left could not separate the tie set" in ended and f"(after {rounds} rounds)" in ended
    assert ended.endswith(
        "; the time budget had no room for another round either: 1 s left, the next round and the unloads ≈ 2 s"
    )


def test_a_settled_tie_with_time_left_says_nothing_of_the_budget() -> None:
    ended = _ended(1000.0)
    assert " settled: " in ended and "time budget" not in ended
