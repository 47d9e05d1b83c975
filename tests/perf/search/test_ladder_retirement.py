"""Which levels a rounds ladder retires (perf.search.retirement) when the engine ranks
by peak, when the best moved to a level a retired one shares no round with, and what a resting tie
member still visits (reviewer, session 6: under a budget no level met, every level retired and the
rounds went on without a visit; a retired level came back beside a new best it never shared a round
with; a resting member's request-rate levels were still measured)."""

from __future__ import annotations

from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundRules, RoundsRecord
from perf.records.search import SearchRecord, SearchRules
from perf.search import ladder
from perf.search.plan import plan_levels
from perf.search.policy import AUTO, Budget
from perf.search.policy import ladder as ladder_of
from perf.search.rounds import Rounds, Setup

CAPPED = (1, 2, 4, 8, 16)


def _vr(thr: dict[int, dict[int, float]]) -> VariantResult:
    """``thr``: concurrency -> {round: throughput}; p99 = the concurrency in ms."""
    lv = [
        LevelResult(c, 1, r, throughput_infer_per_s=t, latency_p99_ms=float(c))
        for c, by_r in thr.items()
        for r, t in by_r.items()
    ]
    return VariantResult("v", status="ok", levels=lv)


def _update(lad: ladder.Ladder, vr: VariantResult, levels: tuple[int, ...], budget: Budget | None, peak: bool) -> ladder.Ladder:
    plan = plan_levels("v", 8, levels, [1])
    if not peak:  # the engine ranks under the budget (or there is none): the call as before the peak rule
        return ladder.update(lad, plan, vr, levels, True, SearchRules(), RoundRules(), budget, None)
    return ladder.update(lad, plan, vr, levels, True, SearchRules(), RoundRules(), budget, None, peak)


def test_ranked_by_peak_the_peak_level_stays_measured_though_every_level_is_over_the_budget() -> None:
    vr = _vr({1: dict.fromkeys(range(3), 100.0), 4: dict.fromkeys(range(3), 390.0), 16: dict.fromkeys(range(3), 700.0)})
    tight = Budget(0.5, cores=None)  # p99 1, 4 and 16 ms: no level within it
    under = _update(ladder.Ladder([1, 4, 16], [1, 4, 16]), vr, CAPPED, tight, peak=False)
    assert under.end is not None and under.end.rule == "budget" and under.active == []  # the ranking under it: none left
    peak = _update(ladder.Ladder([1, 4, 16], [1, 4, 16]), vr, CAPPED, tight, peak=True)
    assert peak.end is not None and peak.end.rule == "budget"  # a higher level cannot meet it: the ladder still ends
    assert peak.active == [16]  # the peak ranking's operating point, measured on


def test_a_retired_level_stays_retired_when_the_best_moves_to_a_level_it_shares_no_round_with() -> None:
    # 1 retired after rounds 0-2 (4x behind 4); 8 joined in round 3 and leads; 1 and 8 never shared a round
    vr = _vr({1: dict.fromkeys(range(3), 100.0), 4: dict.fromkeys(range(6), 400.0), 8: dict.fromkeys(range(3, 6), 600.0)})
    lad = _update(ladder.Ladder([1, 4, 8], [4, 8]), vr, (1, 2, 4, 8), None, peak=False)
    assert lad.end is not None and lad.active == [8]
    # 1 within a few percent of 4 on its rounds: not behind what it was measured beside, so it comes back
    close = _vr(
        {
            1: dict.fromkeys(range(3), 398.0),
            4: {0: 390.0, 1: 400.0, 2: 395.0, 3: 400.0, 4: 400.0, 5: 400.0},
            8: dict.fromkeys(range(3, 6), 600.0),
        }
    )
    assert 1 in _update(ladder.Ladder([1, 4, 8], [4, 8]), close, (1, 2, 4, 8), None, peak=False).active


def test_a_resting_tie_member_visits_none_of_its_levels_its_request_rates_neither() -> None:
    levels = ladder_of(AUTO, SearchRules())[0]
    plans = {n: plan_levels(n, 8, levels, [1], request_rates=[50.0]) for n in ("a", "b")}
    run = RunResult("r", "now", variants=[VariantResult(n) for n in ("a", "b")])
    run.search, run.rounds = SearchRecord("prune", True), RoundsRecord(seed=1)
    sched = Rounds(run, Setup(plans, levels, True, SearchRules(), RoundRules()), 1.0)
    sched.ladders = {n: {(1, None): ladder.Ladder([4], [4])} for n in ("a", "b")}
    assert sorted((n, k[0], k[3]) for n, k in sched.visits(["a", "b"], 7)) == [
        ("a", 0, 50.0),
        ("a", 4, None),
        ("b", 0, 50.0),
        ("b", 4, None),
    ]
    sched.ladders["b"][(1, None)].active, sched.resting = [], {"b"}
    assert [(n, k[0], k[3]) for n, k in sched.visits(["a", "b"], 7)] == [("a", 4, None), ("a", 0, 50.0)]


def test_a_level_without_a_latency_is_never_within_the_budget() -> None:
    """Review: the ladder counted a missing latency as 0 ms, within any budget, where the ranking
    (perf.analysis.ranking.budget_latency.within) says never without a latency."""
    from perf.analysis.ranking.operating import Operating, Side
    from perf.search.policy import Budget
    from perf.search.retirement import _under

    unknown = Operating(Side("v", 4), 100.0, None, 6)
    assert not _under(unknown, Budget(25.0, cores=None)) and _under(unknown, None)
    assert _under(Operating(Side("v", 4), 100.0, 24.0, 6), Budget(25.0, cores=None))
    assert not _under(Operating(Side("v", 4), 100.0, 26.0, 6), Budget(25.0, cores=None))
