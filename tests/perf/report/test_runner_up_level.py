"""The conclusions name a rounds sweep's runner-up (and baseline) at the level the console table and the
picks name (:func:`perf.analysis.saturation.best_level.best_levels`): ``why.runner_up`` took each series' highest
median, the sequential design's rule, so "peaked at" could name a level measured only in fast rounds
(trial 12, F5: one best level per series)."""

from __future__ import annotations

from factories import level_result, run_result, variant_result

from perf.analysis.recommendation.recommend import recommend
from perf.analysis.saturation.best_level import best_levels
from perf.analysis.stats.points import THROUGHPUT, run_points
from perf.markdown import fmt
from perf.records.rounds import RoundsRecord
from perf.report.conclusions.written import conclusions

A = "a_c2_in_fast_rounds_only"
ROUNDS = range(6)


def test_the_runner_up_is_named_at_the_level_the_table_names() -> None:
    # A's c=2 was measured only in the 3 fast rounds: its median (180) tops c=1's (150 over 6 rounds),
    # behind c=1 in every shared round, so the table names c=1; "top" leads at every level
    fast = range(3)  # the fast rounds; rounds 3-5 at half the throughput
    a = [level_result(1, 200.0 if r in fast else 100.0, 5.0, spread=True, trial=r) for r in ROUNDS]
    a += [level_result(2, 180.0, 8.0, spread=True, trial=r) for r in fast]
    top = [level_result(1, 400.0 if r in fast else 200.0, 3.0, spread=True, trial=r) for r in ROUNDS]
    run = run_result([variant_result(A, a), variant_result("top", top)], finished="x", rounds=RoundsRecord(seed=1))
    points = run_points(run)
    table = best_levels(run, points)[A]
    assert table.concurrency == 1 and max(points[A], key=lambda p: p.value(THROUGHPUT)).concurrency == 2
    rec = recommend(run)
    assert rec.best_peak is not None and rec.best_peak.variant == "top"
    text = "\n".join(conclusions(run, rec))
    assert f"`{A}`, peaked at {fmt(table.get(THROUGHPUT))} infer/s (concurrency 1" in text
