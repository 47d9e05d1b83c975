"""Which levels a rounds ladder retires (perf.search.ladder, rule "Retirement") when the engine ranks
by peak, when the best moved to a level a retired one shares no round with, and what a resting tie
member still visits (reviewer, session 6: under a budget no level met, every level retired and the
rounds went on without a visit; a retired level came back beside a new best it never shared a round
with; a resting member's request-rate levels were still measured)."""

from __future__ import annotations

from perf.records.levels import LevelResult
from perf.records.results import VariantResult
from perf.records.rounds import RoundRules
from perf.records.search import SearchRules
from perf.search import ladder
from perf.search.plan import plan_levels
from perf.search.policy import Budget

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
    tight = Budget(0.5)  # p99 1, 4 and 16 ms: no level within it
    under = _update(ladder.Ladder([1, 4, 16], [1, 4, 16]), vr, CAPPED, tight, peak=False)
    assert under.end is not None and under.end.rule == "budget" and under.active == []  # the ranking under it: none left
    peak = _update(ladder.Ladder([1, 4, 16], [1, 4, 16]), vr, CAPPED, tight, peak=True)
    assert peak.end is not None and peak.end.rule == "budget"  # a higher level cannot meet it: the ladder still ends
    assert peak.active == [16]  # the peak ranking's operating point, measured on
