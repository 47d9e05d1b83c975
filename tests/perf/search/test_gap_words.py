"""Trial 17, T17-4: a level retired for trailing its variant's best was said "behind concurrency 2 by 104.8 %"; a
throughput cannot be more than 100 % behind (the number was c=2's gain over c=1). Every "by N %" gap is said as the
higher side's gain, by one rule (:func:`perf.markdown.ahead_by`)."""

from __future__ import annotations

import pytest

from perf.markdown import ahead_by
from perf.records.levels import LevelResult
from perf.records.results import VariantResult
from perf.records.rounds import RoundRules
from perf.search import retirement
from perf.search.plan import plan_levels

#: Per round, c=2's throughput over c=1's: median 2.048 (+104.8 %), one round under 2x (no "2x or more behind").
RATIOS = (2.2, 2.048, 1.9)


def _vr() -> VariantResult:
    thr = {1: [50.0] * 3, 2: [50.0 * x for x in RATIOS]}
    levels = [
        LevelResult(c, 1, r, throughput_infer_per_s=t, latency_p99_ms=float(c)) for c, ts in thr.items() for r, t in enumerate(ts)
    ]
    return VariantResult("v", status="ok", levels=levels)


def test_a_level_far_behind_is_said_as_the_leader_s_gain_never_over_100_pct_behind() -> None:
    done = retirement.retire([1, 2], True, plan_levels("v", 2, (1, 2), [1]), _vr(), RoundRules(), None)
    why = done.why[1]
    # retired by the paired rule's gap tier (trial 26, T26-4: never by the median alone), said as c=2's ratio
    assert why.startswith("concurrency 2 higher by the rule (paired rounds at 5 %): 2.05× median of the per-round ratios"), why
    assert "behind" not in why and "ahead in 3 of 3" in why  # was "behind concurrency 2 by 104.8 %"


@pytest.mark.parametrize(("gain", "said"), [(1.048, "c=2 ahead by 104.8 %"), (0.05, "c=2 ahead by 5.0 %")])
def test_the_one_rule_says_the_higher_side_s_gain(gain: float, said: str) -> None:
    assert ahead_by("c=2", gain) == said
