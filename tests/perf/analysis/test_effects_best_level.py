"""A main effect pairs each variant at the level the tables name (:func:`perf.analysis.saturation.best_level.best_levels`),
not at its highest median: in a rounds sweep a level measured in fast rounds only has the higher median but is
behind in every round it shared, so the table names the other level while the effect of the pair was taken at
the higher median, another pair of levels than the ones the report shows beside it."""

from __future__ import annotations

from factories import level_result, params, run_result, variant_result

from perf.analysis.effects.main_effects import main_effects
from perf.analysis.saturation.best_level import best_levels
from perf.analysis.stats.points import THROUGHPUT, run_points
from perf.records.rounds import RoundsRecord

ONE, TWO = params(1), params(2)
FAST, SLOW = range(3), range(3, 6)


def test_a_pair_is_taken_at_each_variants_best_level_the_tables_name() -> None:
    # ONE's c=2 measured only in the 3 fast rounds: its median (180) tops c=1's (150 over 6 rounds), behind c=1's
    # 200 in every round they shared; TWO at 1.2 times ONE's c=1 in every round, c=2 not faster
    one = [level_result(1, 200.0 if r in FAST else 100.0, 5.0, spread=True, trial=r) for r in (*FAST, *SLOW)]
    one += [level_result(2, 180.0, 8.0, spread=True, trial=r) for r in FAST]
    two = [level_result(c, 240.0 if r in FAST else 120.0, 4.0 * c, spread=True, trial=r) for c in (1, 2) for r in (*FAST, *SLOW)]
    run = run_result(
        [variant_result(params=ONE, levels=one), variant_result(params=TWO, levels=two)],
        rounds=RoundsRecord(seed=1),
        finished="x",
    )
    points = run_points(run)
    named = best_levels(run, points)
    top = max(points[ONE["name"]], key=lambda p: p.value(THROUGHPUT))
    assert named[ONE["name"]].concurrency == 1 and top.concurrency == 2  # the case: the table's level is not the top median
    (effect,) = [e for e in main_effects(run, points) if e.factor.key == "count"]
    (pair,) = effect.pairs
    assert pair.peaks == (named[ONE["name"]].concurrency, named[TWO["name"]].concurrency)  # was (2, ...)
    assert pair.throughput_pct is not None and round(pair.throughput_pct, 1) == 20.0  # TWO / ONE at c=1, every round
