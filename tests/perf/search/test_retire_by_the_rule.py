"""A level of a rounds sweep retires for trailing its variant's best only when the project's paired rule calls the
best higher (:mod:`perf.analysis.stats.paired`: the sign test, or a large consistent gap), never on the median of
the rounds' ratios alone (trial 26, T26-4: "no longer measured: concurrency 4 ahead by 15.6 % in the median of 5
paired rounds" retired c=16, which was ahead in 2 of the 5 rounds and had the higher per-level median)."""

from __future__ import annotations

import statistics

from perf.analysis.stats.paired import paired
from perf.records.levels import LevelResult
from perf.records.results import VariantResult
from perf.records.rounds import RoundRules
from perf.search import retirement
from perf.search.plan import plan_levels

#: Per round, c=4's throughput over c=16's (the trial's mix1 run): ahead in 3 of 5, median 1.16.
TRIAL = (1.16, 1.37, 0.74, 0.80, 1.20)
#: c=16's throughput per round: its median is the higher one, as in the trial (2,776.8 vs 2,698.2 infer/s).
C16 = (2000.0, 2000.0, 3700.0, 3600.0, 2800.0)


def _vr(ratios: tuple[float, ...], c16: tuple[float, ...]) -> VariantResult:
    thr = {4: [t * r for t, r in zip(c16, ratios)], 16: list(c16)}
    levels = [
        LevelResult(c, 1, r, throughput_infer_per_s=t, latency_p99_ms=float(c)) for c, ts in thr.items() for r, t in enumerate(ts)
    ]
    return VariantResult("v", status="ok", levels=levels)


def _retire(vr: VariantResult) -> retirement.Retired:
    return retirement.retire([4, 16], True, plan_levels("v", 8, (4, 16), [1]), vr, RoundRules(), None)


def test_a_median_ratio_the_rule_does_not_call_retires_nothing() -> None:
    vr = _vr(TRIAL, C16)
    assert statistics.median(C16) > statistics.median(t * r for t, r in zip(C16, TRIAL))  # c=16's median is higher
    done = _retire(vr)
    assert done.active == [4, 16] and not done.why, done.why  # was "concurrency 4 ahead by 16.0 % in the median of 5 ..."


def test_a_level_the_rule_calls_behind_retires_saying_the_rule_and_its_numbers() -> None:
    done = _retire(_vr((1.2, 1.15, 1.25, 1.18, 1.22, 1.3), (1000.0,) * 6))  # ahead in 6 of 6: the sign test calls it
    assert done.active == [4], done
    why = done.why[16]
    assert why.startswith("concurrency 4 higher by the rule (paired rounds at 5 %): 1.21× median"), why
    assert "ahead in 6 of 6; p = 0.031, sign test" in why, why


def _far(rounds: int) -> VariantResult:
    """c=4 3x c=1's throughput in every round (s22z, Z-16: "2x or more behind concurrency 4")."""
    levels = [LevelResult(c, 1, r, throughput_infer_per_s=t, latency_p99_ms=float(c)) for r in range(rounds) for c, t in ((1, 100.0), (4, 300.0))]  # fmt: skip
    return VariantResult("v", status="ok", levels=levels)


def _retire_far(vr: VariantResult) -> retirement.Retired:
    return retirement.retire([1, 4], True, plan_levels("v", 8, (1, 4), [1]), vr, RoundRules(), None)


def test_a_level_far_behind_waits_for_the_rounds_the_rule_calls_it_on() -> None:
    """s22z, Z-16: c=1 retired after one round "2x or more behind concurrency 4 in every round both had (1 round)",
    and report.md then could not call the c=1 -> c=4 rise ("too few rounds for the rule to call it (a large gap needs
    3, else 6)"): the level the report needed was not measured. A far gap retires on the rule's own rounds."""
    for n in (1, 2):
        done = _retire_far(_far(n))
        assert done.active == [1, 4] and not done.why, (n, done.why)  # was retired after 1 round
    done = _retire_far(_far(3))
    assert done.active == [4], done
    why = done.why[1]
    assert why.startswith("concurrency 4 higher by the rule (paired rounds at 5 %): 3.00× median"), why
    assert "over 3 rounds, ahead in 3 of 3" in why, why
    # the verdict the report states on the same rounds is the one the retirement rested on
    rise = paired([300.0] * 3, [100.0] * 3)
    assert rise is not None and rise.verdict == "higher"
