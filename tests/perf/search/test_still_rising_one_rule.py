""" "Still rose" / "still rising" is said by one rule, the knee's (perf.analysis.saturation.peaks.rise): only when
throughput rose into the top level from the best level below it.

Trial 11, F10: a variant measured at c=1 1613.8, c=2 2042.9, c=4 1878.1 infer/s (knee at c=2 in the
same report) was listed under "Cut for time" as "its throughput still rose at concurrency 4, the
time budget's cap": the flag was set when only c=1 and c=4 were measured, and never judged again
after c=2 was.
"""

from __future__ import annotations

from pathlib import Path

from factories import level_result, run_result, variant_result

from perf.analysis.saturation.peaks import CAP_RISING, judged_cut, rise
from perf.analysis.saturation.rises import judge
from perf.analysis.stats.points import aggregate
from perf.records import results
from perf.records.levels import LevelResult
from perf.records.results import VariantResult
from perf.records.rounds import BudgetRecord, Cut, RoundRules, RoundsRecord
from perf.records.search import SearchRecord, SearchRules
from perf.report.write import write_report
from perf.search import ladder
from perf.search.plan import plan_levels
from perf.search.policy import AUTO, Budget
from perf.search.policy import ladder as ladder_of
from perf.search.rounds import Rounds, Setup

LADDER = ladder_of(AUTO, SearchRules())[0]
CAP = 4  # the time budget's cap, below the ladder's top
#: The trial's medians per round: c=1 and c=4 from round 0, c=2 (its best) from round 3.
PEAKED = {1: [1521.0, 1707.0, 1801.0, 1613.8, 1751.0, 1307.0], 4: [1959.0, 1878.1, 1683.0], 2: [2623.0, 2042.9, 2196.0]}
RISING = {1: [1000.0, 1010.0, 990.0], 4: [1900.0, 1950.0, 1880.0]}


def _vr(name: str, thr: dict[int, list[float]], late: int = 3) -> VariantResult:
    """``thr``: concurrency -> throughput per round; c=2 from round ``late``, the others from round 0."""
    first = {1: 0, 4: 0, 2: late}
    lv = [
        LevelResult(c, 1, first[c] + r, throughput_infer_per_s=t, latency_p99_ms=1.0 * c)
        for c, ts in thr.items()
        for r, t in enumerate(ts)
    ]
    return VariantResult(name, status="ok", levels=sorted(lv, key=lambda x: x.key))


def test_a_top_below_a_lower_level_is_not_still_rising_and_a_rising_one_is() -> None:
    for thr, rising in ((PEAKED, False), (RISING, True)):
        vr = _vr("v", thr)
        run = run_result([vr], rounds=RoundsRecord(seed=1))
        pts = aggregate(vr.levels, "v")
        r = rise(pts, next(p for p in pts if p.concurrency == CAP), judge(run))
        if not rising:  # c=2 is above it, never in a round with c=4: no rise into c=4 is told
            assert r is not None and not r.rising and r.trend is not None and r.trend.gain_pct is None
        else:
            assert r is not None and r.rising and r.below is not None and r.below.concurrency == 1


def test_the_time_budgets_cap_cut_is_judged_on_the_final_numbers_not_when_the_cap_was_hit() -> None:
    peaked, rising = _vr("peaked", {c: t[:3] for c, t in PEAKED.items() if c != 2}), _vr("rising", RISING)
    run = run_result([peaked, rising])
    run.search, run.rounds = SearchRecord("prune", True), RoundsRecord(seed=1)
    plans = {n: plan_levels(n, 8, LADDER, [1]) for n in ("peaked", "rising")}
    setup = Setup(plans, LADDER, True, SearchRules(), RoundRules(), budget=Budget(100.0, cores=None), cap=CAP)
    sched = Rounds(run, setup, 1.0)
    for n in plans:  # the ladder reaches the cap with c=1 and c=4 measured: c=4 the best so far
        lad = ladder.start(plans[n], LADDER, True, RoundRules(), CAP)
        sched.ladders[n] = {(1, None): ladder.update(lad, plans[n], sched.run_variant(n), LADDER, True, SearchRules(), RoundRules(), setup.budget, CAP)}  # fmt: skip
    peaked.levels = _vr("peaked", PEAKED).levels  # then c=2 joined and beat c=4
    sched.ladders["peaked"][(1, None)].levels = sorted({*sched.ladders["peaked"][(1, None)].levels, 2})
    sched._finish_group(0, "ranking decided", ["peaked"])
    cut = {c.variant: c.reason for c in run.rounds.cuts if c.kind == "ladder"}
    assert "peaked" not in cut
    assert cut["rising"] == f"{CAP_RISING} {CAP}, the time budget's cap"


def test_a_recorded_cut_the_numbers_do_not_back_is_left_out_of_the_report(tmp_path: Path) -> None:
    """A run recorded before the rule was shared (the trial's results.json) reads right."""
    variants = [
        variant_result(
            n,
            [
                level_result(lv.concurrency, lv.throughput_infer_per_s, 1.0, trial=lv.trial, spread=True)
                for lv in _vr(n, thr).levels
            ],
        )  # fmt: skip
        for n, thr in (("peaked", PEAKED), ("rising", RISING))
    ]
    cuts = [Cut("ladder", f"{CAP_RISING} {CAP}, the time budget's cap", n, CAP) for n in ("peaked", "rising")]
    budget = BudgetRecord(120.0, 1.2, 5.0, 118.0, 6, max_concurrency=CAP)
    run = run_result(variants, settings={"design": "rounds"}, rounds=RoundsRecord(seed=1, budget=budget, cuts=cuts))
    assert [judged_cut(run, c) for c in cuts] == [None, cuts[1]]
    results.save(run, tmp_path)
    text = write_report(tmp_path).read_text()
    assert f"ladder stopped (`rising`): {CAP_RISING} {CAP}" in text
    assert "ladder stopped (`peaked`)" not in text
    assert "- **Cut for time** (1 ladder stop):" in text


def test_the_budget_stops_still_rose_clause_is_from_the_best_level_below_the_top() -> None:
    """Not from the level next below: a dip there is no rise into the top (c=1 above c=4 here)."""
    plan = plan_levels("v", 8, LADDER, [1])
    dip = {1: [2000.0, 2010.0, 1990.0], 4: [1500.0, 1520.0, 1480.0], 2: [1000.0, 1010.0, 990.0]}
    vr = _vr("v", dip, late=0)  # every level in rounds 0-2
    assert (
        ladder._still_rose(vr, plan, [1, 2, 4], SearchRules().min_gain_pct) == ""
    )  # was "still rose 50.0 % from concurrency 2 to 4"
    said = ladder._still_rose(_vr("v", RISING), plan, [1, 4], SearchRules().min_gain_pct)
    assert "from concurrency 1 to 4, the median of 3 paired rounds" in said
