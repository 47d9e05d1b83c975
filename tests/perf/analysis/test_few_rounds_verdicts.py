"""No trend is claimed from fewer rounds than any other verdict needs, nor from one level (s21m).

- A step flat on 2 shared rounds made its top level a measured peak ("flat into the top level": no peak words),
  while the same 2 rounds told no knee (T25-18). A flat verdict now needs the run's ``min_rounds`` (3) shared
  rounds as every other; on fewer the top's peak is not told, with the step's evidence (too few rounds).
- A time-budget cut of a ladder at its only level said "its throughput still rose at concurrency C": one level has
  no step to tell a trend from. It now says the ladder ended at its only level measured.
"""

from __future__ import annotations

from factories import rounds_run

from perf.analysis.recommendation.recommend import recommend
from perf.analysis.saturation.peaks import (
    CAP_ONE_LEVEL,
    CAP_RISING,
    STOPPED_CLIMBING,
    STOPPED_RISING,
    UNTOLD,
    UNTOLD_MARK,
    judged_cut,
    peak_mark,
    unreached,
)
from perf.analysis.stats.points import run_points
from perf.records.rounds import Cut, RoundRules, RoundsRecord
from perf.records.search import SearchRecord, SearchRules
from perf.search import ladder
from perf.search.plan import plan_levels
from perf.search.policy import AUTO, Budget
from perf.search.policy import ladder as ladder_of
from perf.search.rounds import Rounds, Setup

#: c=2 is the best level (median 103 infer/s) and +2-3 % above c=1 in the rounds both shared: flat.
TWO_SHARED = {1: {0: 100.0, 1: 100.0, 2: 100.0}, 2: {0: 102.0, 1: 103.0, 3: 104.0}}
THREE_SHARED = {1: {0: 100.0, 1: 100.0, 2: 100.0}, 2: {0: 102.0, 1: 103.0, 2: 103.0}}


def _top_why(per_level: dict[int, dict[int, float]]) -> str | None:
    run = rounds_run(per_level)
    points = run_points(run)["v"]
    return unreached(run, points, max(points, key=lambda p: p.value("throughput_infer_per_s")))


def test_a_step_flat_on_two_rounds_does_not_make_a_measured_peak() -> None:
    why = _top_why(TWO_SHARED)  # old: None, a measured peak ("best peak")
    assert why is not None and why.startswith(UNTOLD), why
    assert "in the 2 rounds both were measured in" in why and "too few rounds" in why, why
    assert peak_mark(recommend(rounds_run(TWO_SHARED)).best_peak) == UNTOLD_MARK
    assert "no more than the 5 % a step must gain" not in why  # no flat verdict said from 2 rounds


def test_a_step_flat_on_three_rounds_still_makes_a_measured_peak() -> None:
    assert _top_why(THREE_SHARED) is None


def test_a_recorded_cut_at_a_ladders_only_level_claims_no_rise() -> None:
    run = rounds_run({4: {0: 100.0, 1: 110.0, 2: 105.0}})
    cap = judged_cut(run, Cut("ladder", f"{CAP_RISING} 4, the time budget's cap", "v", 4))
    assert cap is not None and cap.reason == f"{CAP_ONE_LEVEL} 4, the time budget's cap"  # old: kept "still rose"
    stop = judged_cut(run, Cut("ladder", f"its ladder stopped at concurrency 4 {STOPPED_RISING}", "v", 4))
    assert stop is not None and stop.reason == f"its ladder stopped at concurrency 4 {STOPPED_CLIMBING}"


def test_the_time_budgets_cap_at_a_ladders_only_level_is_recorded_without_a_rise() -> None:
    plan_ladder = ladder_of(AUTO, SearchRules())[0]
    run = rounds_run({1: {0: 100.0, 1: 101.0, 2: 99.0}})
    run.search, run.rounds = SearchRecord("prune", True), RoundsRecord(seed=1)
    plans = {"v": plan_levels("v", 8, plan_ladder, [1])}
    setup = Setup(plans, plan_ladder, True, SearchRules(), RoundRules(), budget=Budget(100.0, cores=None), cap=1)
    sched = Rounds(run, setup, 1.0)
    lad = ladder.start(plans["v"], plan_ladder, True, RoundRules(), 1)
    sched.ladders["v"] = {
        (1, None): ladder.update(
            lad, plans["v"], sched.run_variant("v"), plan_ladder, True, SearchRules(), RoundRules(), setup.budget, 1
        )
    }
    sched._finish_group(0, "ranking decided", ["v"])
    cuts = [c.reason for c in run.rounds.cuts if c.kind == "ladder"]
    assert cuts == [f"{CAP_ONE_LEVEL} 1, the time budget's cap"], cuts  # old: "its throughput still rose at concurrency 1"
