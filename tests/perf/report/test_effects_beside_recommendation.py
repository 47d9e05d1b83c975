"""Where the Main effects and the recommendation's paired ranking judge the pick and its twin in one
factor differently, the report says what each judges and why they part, in one line, in the section
(trial 9 F4: "Not significant ... batching on vs batching off" on peak
throughput, while the pick under the budget beat its batching-off twin 2.4x by the paired rule and
"Why." said "dynamic batching paid"; neither named the levels it judged). The line is said once, in the
section; the conclusions point to it (trial 19, T19-17: the same words in both)."""

from __future__ import annotations

import dataclasses

from factories import params

from perf.analysis.effects.main_effects import main_effects
from perf.analysis.ranking.operating import Side
from perf.analysis.recommendation.recommend import recommend
from perf.analysis.stats.points import run_points
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundsRecord
from perf.report.conclusions.written import conclusions
from perf.report.sections.effects import BESIDE_POINTER, beside_recommendation, effects_section

LOAD = [1.0, 0.8, 0.9, 0.85, 0.95, 0.9]
JITTER = [1.0, 1.04, 0.97, 1.02, 0.99, 1.03]


def _level(c: int, r: int, thr: float, p99: float, batch: float) -> LevelResult:
    return LevelResult(
        c,
        1,
        r,
        throughput_infer_per_s=thr * LOAD[r],
        latency_p99_ms=p99,
        avg_server_batch_size=batch,
        server_queue_us=1000.0,
        server_compute_infer_us=(300.0 if batch > 1 else 400.0) * batch,
    )


def _run() -> RunResult:
    # the pick (batching on) at c=8 is within a 25 ms budget, its twin (off) at c=4; both peak at c=16,
    # over the budget, measured together in 2 rounds only: too few for the paired rule
    on, off = params(2, True), params(2, False)
    pick = [_level(c, r, t * JITTER[r], p, 3.0) for r in range(6) for c, t, p in ((4, 500.0, 17.0), (8, 700.0, 23.0))]
    pick += [_level(16, r, 930.0 * JITTER[r], 32.0, 5.0) for r in range(2)]
    twin = [_level(4, r, 300.0, 24.0, 1.0) for r in range(6)]
    twin += [_level(16, r, 420.0, 45.0, 1.0) for r in range(2)]
    run = RunResult(
        "r", "now", {}, {}, [VariantResult(on["name"], on, "ok", None, pick), VariantResult(off["name"], off, "ok", None, twin)]
    )
    run.rounds = RoundsRecord(seed=1)
    return run


def test_an_effect_not_significant_at_peak_beside_a_pick_that_beats_its_twin_under_the_budget_says_why() -> None:
    run = _run()
    rec = recommend(run, 25.0)
    effects = main_effects(run, run_points(run))
    (e,) = [e for e in effects if e.factor.key == "batching"]
    assert e.throughput is not None and not e.throughput.significant  # 2 shared rounds at their best levels
    assert rec.best_under_budget.variant == "mlp_onnx_cpu2_db500_mbs64"
    line = beside_recommendation(effects, rec)
    assert line is not None
    assert line.startswith(
        "**Beside the recommendation** (it ranks each variant at its best level within the p99 budget of 25.00 ms, "
        "the pick `mlp_onnx_cpu2_db500_mbs64` first; an effect takes each variant at its best level, the one the tables "
        "name, the latency budget aside): "
        "The pick (c=8) beats its twin with batching off, `mlp_onnx_cpu2_nodb_mbs64` (c=4), by the paired rule ("
    )
    assert "at their best levels (c=16, c=16) the rule does not separate them (+" in line
    assert line.endswith("% with batching on): batching on vs batching off is not significant on peak throughput.")
    # said where the effect is stated; the conclusions, where it meets the recommendation, point to it
    assert f"- {line}" in effects_section(effects, [], True, line)
    text = "\n".join(conclusions(run, rec, effects))
    assert line not in text and "**Beside the recommendation** (it ranks" not in text
    assert BESIDE_POINTER in text and "**Beside the recommendation** in the Main effects section" in BESIDE_POINTER
    assert "(on peak throughput: each variant at its best level, the one the tables name, the latency budget aside;" in text
    assert "Here dynamic batching paid in compute at this load: executions of " in text  # the Why's own measure


def test_no_line_where_they_agree_or_without_a_budget() -> None:
    run = _run()
    effects = main_effects(run, run_points(run))
    assert beside_recommendation(effects, recommend(run)) is None  # no budget: no ranking under one
    run.variants[1].levels = [lv for lv in run.variants[1].levels if lv.concurrency == 16]  # the twin has no level within
    assert beside_recommendation(main_effects(run, run_points(run)), recommend(run, 25.0)) is None


def test_a_verdict_another_variant_reached_on_the_twin_is_not_the_picks() -> None:
    """Trial 26, T26-1's kind: a runner-up the search dropped on another variant's verdict (Ranking.beaten_through)
    was never compared with the pick; "the pick beats its twin" would be that variant's verdict, with its numbers."""
    run = _run()
    rec = recommend(run, 25.0)
    effects = main_effects(run, run_points(run))
    assert beside_recommendation(effects, rec) is not None  # the pick's own verdict on its twin
    ranking = rec.ranking_under_budget
    assert ranking is not None
    (c,) = [c for c in ranking.comparisons if c.verdict == "a"]
    ranking.comparisons = [dataclasses.replace(c, a=Side("other", c.a.concurrency))]  # another variant beat the twin
    assert beside_recommendation(effects, rec) is None
