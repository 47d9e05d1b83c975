"""Under a latency budget, a level the rule did not separate from one with as much throughput by the medians and a
latency far lower is not named first over it (perf.analysis.ranking.leader.knee; trial 22, F-mixed-pick, run
kws_mixed: ``--shapes time=4000..16000 --latency-budget-ms 50``). The pick was ``db500`` c=16 (1,652.4 infer/s, p99
28.32 ms over 10 rounds), above ``nodb`` c=4 (1,656.3 infer/s, p99 7.78 ms) and its own c=4 (1,634.5 infer/s, p99
7.68 ms), the rule calling neither; report.md's frontier held ``nodb`` c=4 and export-deployment shipped ``db500``."""

from __future__ import annotations

from factories import level_result, run_result, variant_result

from perf.analysis.ranking.operating import operating_point
from perf.analysis.recommendation.recommend import recommend
from perf.records.results import RunResult
from perf.records.rounds import RoundsRecord

NODB, DB500 = "kws_onnx_cpu2_nodb_mbs64", "kws_onnx_cpu2_db500_mbs64"
SIZE = "time=4000..16000"
#: Run kws_mixed's levels (flat.csv): variant -> concurrency -> round -> (infer/s, p99 ms).
KWS_MIXED = {
    DB500: {
        1: {0: (581.631, 6.362)},
        4: {0: (1436.93, 10.212), 1: (1634.54, 7.678), 2: (1881.81, 6.334)},
        8: {3: (1401.89, 18.149), 4: (1329.85, 17.981), 5: (1060.7, 26.557)},
        16: {0: (2336.13, 24.395), 1: (2298.36, 15.679), 2: (2058.28, 18.552), 3: (1648.97, 27.451), 4: (1770.57, 51.563),
             5: (1330.59, 29.678), 6: (1655.84, 22.283), 7: (867.138, 65.621), 8: (1254.77, 29.193), 9: (1492.56, 31.292)},
        32: {3: (1620.71, 61.233), 4: (1609.97, 76.291), 5: (1569.4, 56.578)},
        64: {1: (1632.51, 93.435), 2: (1639.9, 68.632), 3: (1574.92, 81.932)},
    },
    NODB: {
        1: {0: (1331.25, 2.751), 1: (1186.89, 4.655), 2: (1246.94, 3.996)},
        4: {0: (1517.62, 11.249), 1: (2139.05, 6.428), 2: (1656.28, 7.779)},
        8: {3: (902.408, 19.635), 4: (1163.23, 19.068), 5: (1497.45, 22.869)},
        16: {0: (2087.6, 23.234), 1: (1789.68, 20.728), 2: (1891.43, 23.387), 3: (1735.68, 45.157), 4: (1738.68, 27.434),
             5: (1305.16, 30.35), 6: (1200.12, 31.892), 7: (1528.78, 21.887), 8: (966.699, 44.469), 9: (1428.34, 29.618)},
        32: {3: (1260.8, 53.396), 4: (764.135, 102.937), 5: (1617.94, 36.97)},
        64: {1: (2288.84, 51.545), 2: (1901.46, 64.721), 3: (1601.9, 106.275)},
    },
}  # fmt: skip


def _run(levels: dict[str, dict[int, dict[int, tuple[float, float]]]], shape: str | None = SIZE) -> RunResult:
    variants = [
        variant_result(
            name,
            [level_result(c, t, p, spread=True, shape=shape, trial=r) for c, per in by_c.items() for r, (t, p) in per.items()],
        )
        for name, by_c in levels.items()
    ]
    return run_result(variants, settings={"latency_budget_ms": 50.0, "latency_percentile": 99}, rounds=RoundsRecord(seed=22))


def test_the_pick_under_a_budget_is_not_a_flat_top_level_the_rule_did_not_separate_from_a_far_quicker_one() -> None:
    rec = recommend(_run(KWS_MIXED), 50.0)
    pick = rec.best_under_budget
    assert pick is not None and (pick.variant, pick.concurrency) == (NODB, 4), (pick.variant, pick.concurrency)  # old: db500 c=16
    assert (round(pick.throughput_infer_per_s, 1), round(pick.latency_p99_ms, 2)) == (1656.3, 7.78)
    assert pick.tie_set == [NODB, DB500] and pick.dominated is None  # not separated by the rule: the tie set says it
    assert "not as the winner" in pick.describe()


def test_a_variants_best_level_under_a_budget_is_its_knee_not_its_flat_top() -> None:
    run = _run(KWS_MIXED)
    db500 = next(v for v in run.variants if v.name == DB500)
    op = operating_point(db500, 50.0, cores=None)
    assert op is not None and op.side.concurrency == 4  # old: c=16, +1 % throughput for 3.7x the p99
    peak = operating_point(db500, None, cores=None)
    assert peak is not None and peak.side.concurrency == 16  # the best peak: the most throughput, whatever its latency


def test_a_pick_named_first_at_a_members_knee_says_its_latency_named_it_not_the_rounds_it_shared() -> None:
    """``b`` (200 infer/s, p99 9 ms) at ``a``'s knee (116.5 infer/s, p99 23.92 ms), ``a`` ahead in each of the 3 rounds
    they shared, not called: ``b`` is named first by its latency, never "by throughput in the rounds it shared"."""
    levels = {
        "a": {1: {0: (334.8, 16.07), 1: (110.7, 23.92), 2: (116.5, 21.17), 3: (247.5, 23.97), 4: (88.0, 32.03)}},
        "b": {1: {0: (232.6, 8.86), 3: (200.0, 9.0), 4: (86.0, 9.5)}},
    }
    pick = recommend(_run(levels, None), 50.0).best_under_budget
    assert pick is not None and pick.variant == "b" and pick.tie_set == ["b", "a"]  # old: a, "not decided" beside it
    text = pick.describe()
    assert (
        "named first by its latency at as much throughput: by the medians `a` at c=1 (3 rounds) has at most 1.1× the pick's infer/s"
        in text
    )
    assert "by throughput in the rounds it shared" not in text and "not as the winner" in text
