"""A budget exclusion this host cannot verify does not decide a ranking (perf.search.ending.unverified).

Trial 12, F6: the rounds ended "ranking under the p99 budget of 20.00 ms decided (after 3 rounds)"
while the only other ranked-out variant was over the budget on rounds that were all host busy (the
report: "not verified here") and the pick was not separated from it by the rule. Such a variant stays
in contention while rounds are left; with none left, the end words say what the decision assumes.
"""

from __future__ import annotations

from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundRules, RoundsRecord
from perf.records.search import SearchDecision, SearchRecord, SearchRules
from perf.search import ladder
from perf.search.plan import plan_levels
from perf.search.policy import AUTO, Budget
from perf.search.policy import ladder as ladder_of
from perf.search.rounds import Rounds, Setup

LADDER = ladder_of(AUTO, SearchRules())[0]
END = SearchDecision(variant="x", rule="cap", concurrency=1, reason="")
BUDGET = Budget(20.0, cores=None)
ROUNDS = 3
DECIDED = "ranking under the p99 budget of 20.00 ms decided"  #: the words of a decided ranking, nothing assumed


def _level(r: int, thr: float, p99: float, busy: bool) -> LevelResult:
    return LevelResult(
        1, 1, r, throughput_infer_per_s=thr, latency_p99_ms=p99, host_busy_pct=80.0 if busy else 1.0, host_busy=busy
    )


def _sched(rival_thr: list[float], rival_busy: list[bool]) -> Rounds:
    """``pick`` within the budget in every round; ``rival`` over it in every round (flagged as given)."""
    pick = [_level(r, 1000.0, 0.5 * BUDGET.ms, True) for r in range(len(rival_thr))]
    rival = [_level(r, t, 1.2 * BUDGET.ms, b) for r, (t, b) in enumerate(zip(rival_thr, rival_busy))]
    run = RunResult(
        "r", "now", variants=[VariantResult("pick", status="ok", levels=pick), VariantResult("rival", status="ok", levels=rival)]
    )
    run.search, run.rounds = SearchRecord("prune", True), RoundsRecord(seed=1)
    plans = {n: plan_levels(n, 8, LADDER, [1]) for n in ("pick", "rival")}
    sched = Rounds(run, Setup(plans, LADDER, True, SearchRules(), RoundRules(), budget=BUDGET), 1.0)
    sched.ladders = {n: {(1, None): ladder.Ladder([1], [1], end=END)} for n in ("pick", "rival")}
    return sched


def test_an_unverified_exclusion_the_pick_does_not_beat_keeps_the_ranking_open_while_rounds_are_left() -> None:
    sched = _sched([1010.0, 990.0, 1005.0], [True] * ROUNDS)  # not separated from the pick by the rule
    assert sched.decided(["pick", "rival"], RoundRules().max_rounds - ROUNDS) is None


def test_with_no_round_left_the_end_words_say_what_the_decision_assumes() -> None:
    said = _sched([1010.0, 990.0, 1005.0], [True] * ROUNDS).decided(["pick", "rival"], 0)
    assert said is not None and said.startswith(
        "ranking under the p99 budget of 20.00 ms decided, assuming `rival`'s p99 over the budget"
    )
    assert "not verified here (every round host busy; p99 24.00 ms over all 3)" in said


def test_a_verified_exclusion_or_one_the_pick_beats_decides_it() -> None:
    verified = _sched([1010.0, 990.0, 1005.0], [False] * ROUNDS)  # over the budget on 3 quiet rounds
    assert verified.decided(["pick", "rival"], 4) == DECIDED
    beaten = _sched([400.0, 410.0, 405.0], [True] * ROUNDS)  # the pick beats it on a large, consistent gap
    assert beaten.decided(["pick", "rival"], 4) == DECIDED


def test_an_exclusion_no_round_can_measure_again_does_not_hold_the_rounds() -> None:
    sched = _sched([1010.0, 990.0, 1005.0], [True] * ROUNDS)
    sched.ladders["rival"][(1, None)].active = []  # every level of it retired: further rounds cannot verify it
    said = sched.decided(["pick", "rival"], 4)
    assert said is not None and "assuming `rival`'s p99 over the budget, not verified here" in said


def test_a_variant_left_out_only_unverified_stays_in_the_groups_tie_set() -> None:
    """F6 leftover: the group's tie set (what a final group measures again) left out a variant the ranking
    under the budget excluded only on host-busy rounds, though it was no evidence against it."""
    sched = _sched([1010.0, 990.0, 1005.0], [True] * ROUNDS)
    assert sched._tie_set(["pick", "rival"]) == ["pick", "rival"]  # leader first, then the one left out unverified


def test_a_verified_or_beaten_exclusion_is_out_of_the_tie_set() -> None:
    for thr, busy in (([1010.0, 990.0, 1005.0], [False] * ROUNDS), ([400.0, 410.0, 405.0], [True] * ROUNDS)):
        assert _sched(thr, busy)._tie_set(["pick", "rival"]) == ["pick"]
