"""A pick's paired verdicts say the host load they were measured under (perf.analysis.recommendation.host_load).

Session 23, benchmarks/bench_busy_host.py on a 2-core host: a quiet run (other processes 0 % of one core) named
``mlp_onnx_cpu1_nodb_mbs64`` ahead of ``mlp_ts_cpu2_db500_mbs64`` by 1.30-1.56x, a run under two CPU burners (72-118 %
of one core in its visits) named it behind by 1.29-1.73x, each "on a large, consistent gap after 4 rounds" and each
right for its load; the recommendation said neither load.
"""

from __future__ import annotations

from perf.analysis.recommendation.recommend import recommend
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundsRecord

#: The session's loaded run: per round, ts's and onnx's infer/s and other processes' CPU in their visits.
LOADED = ((255.0, 107.0, 165.0, 84.0), (260.0, 118.0, 202.0, 89.0), (250.0, 107.0, 145.0, 88.0), (248.0, 103.0, 170.0, 72.0))


def _run(rows: tuple[tuple[float, float, float, float], ...], sampled: bool = True) -> RunResult:
    ts, onnx = VariantResult("ts", status="ok"), VariantResult("onnx", status="ok")
    for r, (t_thr, t_pct, o_thr, o_pct) in enumerate(rows):
        for vr, thr, pct in ((ts, t_thr, t_pct), (onnx, o_thr, o_pct)):
            pct_or = pct if sampled else None
            vr.levels.append(
                LevelResult(4, 1, r, throughput_infer_per_s=thr, latency_p99_ms=9.0, host_busy_pct=pct_or, host_busy=pct > 10)
            )
    run = RunResult("r", "now", variants=[ts, onnx], environment={"cpu_count": 2})
    run.rounds = RoundsRecord(seed=1)
    return run


def test_the_pick_s_verdicts_say_the_load_they_were_measured_under() -> None:
    pick = recommend(_run(LOADED)).best_peak
    assert pick is not None and pick.variant == "ts" and pick.beats == ["onnx"]
    said = pick.describe()
    assert (
        "beats every other ranked variant (1, on a large, consistent gap after 4 rounds; paired rounds at 5 %, host load "
        "72–118 % of one core)"
    ) in said, said


def test_a_load_not_sampled_is_not_said() -> None:
    pick = recommend(_run(LOADED, sampled=False)).best_peak
    assert pick is not None and pick.host_load is None and "host load" not in pick.describe()
    assert "(1, on a large, consistent gap after 4 rounds; paired rounds at 5 %)" in pick.describe()


def test_a_visit_not_sampled_does_not_hide_the_load_of_the_others() -> None:
    """One visit whose load was not sampled (a span no sample fell in) hid the 72-118 % of the seven others: the
    verdict said no load at all, as if the host had been quiet or not sampled."""
    run = _run(LOADED)
    run.variants[1].levels[2].host_busy_pct = None
    pick = recommend(run).best_peak
    assert pick is not None and pick.variant == "ts"
    assert "paired rounds at 5 %, host load 72–118 % of one core in 7 of 8 visits)" in pick.describe(), pick.describe()


def test_the_visits_are_counted_once_each() -> None:
    """The leader's visits are in each of its comparisons: with two rivals they were counted twice."""
    run = _run(LOADED)
    third = VariantResult("slow", status="ok")
    for r, lv in enumerate(run.variants[1].levels):
        third.levels.append(LevelResult(4, 1, r, throughput_infer_per_s=60.0 + r, latency_p99_ms=9.0, host_busy_pct=90.0))
        assert lv.trial == r
    run.variants.append(third)
    run.variants[1].levels[2].host_busy_pct = None
    pick = recommend(run).best_peak
    assert pick is not None
    assert pick.variant == "ts" and sorted(pick.beats) == ["onnx", "slow"], pick.beats
    assert "of one core in 11 of 12 visits)" in pick.describe(), pick.describe()
