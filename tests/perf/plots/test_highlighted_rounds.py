"""The plots highlight a rounds sweep's variants by the level the console table and the report name
(:func:`perf.analysis.recommendation.frontier.best_levels` with the run): ``highlighted`` ranked "the top
by peak throughput" and the variant frontier by the sequential design's stable-first median rule, the
rule ac3f6af took out of the report's Variant frontier (trial 12, F5: one best level per series)."""

from __future__ import annotations

from factories import level_result, run_result, variant_result

from perf.analysis.recommendation.recommend import recommend
from perf.analysis.saturation.best_level import best_levels
from perf.analysis.stats.points import THROUGHPUT, run_points
from perf.markdown import TOP_N
from perf.plots.styles import ALL_DISTINCT, highlighted
from perf.records.rounds import RoundsRecord

A = "a_c2_in_fast_rounds_only"
ROUNDS = range(6)


def test_a_rounds_sweep_is_highlighted_by_the_level_the_table_names() -> None:
    # A's c=2 was measured only in the 3 fast rounds: its median (180) tops c=1's (150 over 6 rounds),
    # behind c=1 in every shared round, so the table names c=1 at 150
    fast, slow = {r: 200.0 for r in range(3)}, {r: 100.0 for r in range(3, 6)}
    a = [level_result(1, t, 5.0, spread=True, trial=r) for r, t in (fast | slow).items()]
    a += [level_result(2, 180.0, 8.0, spread=True, trial=r) for r in fast]

    # TOP_N variants with medians between A's two, and one that dominates every level (the frontier and the
    # pick); every variant at half its throughput in the slow rounds (the host's state, shared by the round)
    def levels(fast_infer_per_s: float, p99_ms: float) -> list:
        return [level_result(1, fast_infer_per_s / (2 if r in slow else 1), p99_ms, spread=True, trial=r) for r in ROUNDS]

    mid = [(f"m{i:02d}", 204.0 + 3 * i) for i in range(TOP_N)]  # medians 153 .. 173.25 infer/s
    rest = [variant_result(n, levels(t, 4.0)) for n, t in mid]
    top = variant_result("top", levels(400.0, 3.0))
    run = run_result([variant_result(A, a), *rest, top], finished="x", rounds=RoundsRecord(seed=1))
    points = run_points(run)
    assert len(points) > ALL_DISTINCT
    table = best_levels(run, points)[A]
    assert table.concurrency == 1 and table.value(THROUGHPUT) < min(p.value(THROUGHPUT) for n, _ in mid for p in points[n])
    assert A not in highlighted(points, recommend(run), run=run)  # below TOP_N others, on no frontier, no pick
