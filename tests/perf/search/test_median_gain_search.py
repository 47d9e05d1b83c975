"""The search's paired gains judged on the one symmetric median (perf.analysis.stats.paired.median_gain; issue 26,
R16-3): a level's gain over 4 rounds of 0.70x, 0.75x, 1.42x and 1.50x is +3.2 % (the geometric mean of the two
middle ratios), no more than the 5 % a step must gain, by the rise rule, the ladder's plateau, its retirement and
the stop's words alike; the arithmetic median of the gains, +8.5 %, called it a rise and retired the lower level."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from perf.analysis.saturation.rises import paired_rise
from perf.records.levels import LevelResult
from perf.records.results import VariantResult
from perf.records.rounds import RoundRules
from perf.records.search import SearchRules
from perf.search import ladder, retirement
from perf.search.plan import plan_levels, side, step_gains
from perf.search.stops import rise_clause

#: Per round, c=8's throughput over c=1's: the two middle ones 0.75 and 1.42.
RATIOS = (0.70, 1.42, 0.75, 1.50)
GEOMETRIC_PCT = (math.sqrt(0.75 * 1.42) - 1.0) * 100.0  # +3.2 %; the arithmetic median was +8.5 %


def _vr() -> VariantResult:
    """c=1 at 100 infer/s, c=2 and c=4 at 90, c=8 at 100 x :data:`RATIOS`, in 4 rounds; p99 = c ms."""
    thr = {1: [100.0] * 4, 2: [90.0] * 4, 4: [90.0] * 4, 8: [100.0 * x for x in RATIOS]}
    levels = [
        LevelResult(c, 1, r, throughput_infer_per_s=t, latency_p99_ms=float(c)) for c, ts in thr.items() for r, t in enumerate(ts)
    ]
    return VariantResult("v", status="ok", levels=levels)


def test_the_rise_rule_judges_the_step_on_the_symmetric_median() -> None:
    vr, plan = _vr(), plan_levels("v", 8, (1, 2, 4, 8), [1])
    up = paired_rise(vr, side(plan, 1), side(plan, 8), SearchRules().min_gain_pct)
    assert up.gain_pct == pytest.approx(GEOMETRIC_PCT, rel=1e-12) and up.flat and not up.rises  # was +8.5 %, not flat
    down = paired_rise(vr, side(plan, 8), side(plan, 1), SearchRules().min_gain_pct)
    assert (1.0 + up.gain_pct / 100.0) * (1.0 + down.gain_pct / 100.0) == pytest.approx(1.0, rel=1e-12)  # type: ignore[operator]


def test_the_ladder_s_plateau_and_retirement_read_the_same_gain() -> None:
    vr, plan, rules = _vr(), plan_levels("v", 8, (1, 2, 4, 8), [1]), SearchRules()
    assert len(step_gains(vr, plan, 1, 8)) == 4
    assert ladder._plateau_low(vr, plan, [1, 8], 8, rules.min_gain_pct, 3) == 1  # flat from c=1 up: was 8
    done = retirement.retire([1, 2, 4, 8], False, plan, vr, RoundRules(), None)
    assert 1 in done.active and 1 not in done.why, done.why  # was "behind concurrency 8 by 8.5 %"


def test_the_stop_words_say_the_same_gain() -> None:
    vr, plan = _vr(), plan_levels("v", 8, (1, 2, 4, 8), [1])
    rising = SimpleNamespace(below=SimpleNamespace(concurrency=1), trend=object(), rising=True)
    said = rise_clause(rising, 8, step_gains(vr, plan, 1, 8))  # type: ignore[arg-type]
    assert said.startswith(f"; its throughput still rose {GEOMETRIC_PCT:.1f} % from concurrency 1 to 8"), said
