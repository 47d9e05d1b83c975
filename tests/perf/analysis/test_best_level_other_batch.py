"""At a client batch size other than a variant's best level's, the level a section names is the one the paired rule
names there (:func:`perf.analysis.ranking.operating.best_of` over that batch size's levels), as the console table and
the Recommendation name it for that workload, not the highest median there (issue 26, s18a): Main effects' pairs
(``main_effects._best``) and the Conclusions' runner-up and peaks (``why.runner_up``'s peaks) took the highest median where
the variant's best level was at another batch size."""

from __future__ import annotations

from factories import level_result, params, run_result, variant_result

from perf.analysis.effects.main_effects import main_effects
from perf.analysis.ranking.budget_latency import host_cores
from perf.analysis.ranking.rank import rank_variants
from perf.analysis.saturation.best_level import best_levels
from perf.analysis.stats.curves import curve
from perf.analysis.stats.points import THROUGHPUT, run_points
from perf.records.levels import LevelResult
from perf.records.results import RunResult
from perf.records.rounds import RoundsRecord
from perf.records.workloads import split_by_workload

ONE, TWO = params(1), params(2)
FAST, SLOW = range(3), range(3, 6)


def _levels(scale: float) -> list[LevelResult]:
    """At b=1: c=1 at 200 × ``scale`` infer/s in the fast rounds, 100 × ``scale`` in the slow ones; c=2 measured in the
    fast rounds only at 180 × ``scale``, a higher median (180 against 150) behind c=1 in every round they shared. At
    b=8 (every variant's best level): 2,000 × ``scale`` at c=1 and c=2 in every round."""
    b1 = [
        level_result(1, (200.0 if r in FAST else 100.0) * scale, 5.0, spread=True, trial=r, batch_size=1) for r in (*FAST, *SLOW)
    ]
    b1 += [level_result(2, 180.0 * scale, 8.0, spread=True, trial=r, batch_size=1) for r in FAST]
    b8 = [level_result(c, 2000.0 * scale, 9.0 * c, spread=True, trial=r, batch_size=8) for c in (1, 2) for r in (*FAST, *SLOW)]
    return [*b1, *b8]


def _run() -> RunResult:
    return run_result(
        [variant_result(params=ONE, levels=_levels(1.0)), variant_result(params=TWO, levels=_levels(0.5))],
        rounds=RoundsRecord(seed=1),
        settings={"batch_sizes": [1, 8], "concurrency": [1, 2]},
        finished="x",
    )


def test_every_section_names_the_paired_rules_level_at_another_batch_size() -> None:
    run = _run()
    points = run_points(run)
    one = ONE["name"]
    assert best_levels(run, points)[one].batch_size == 8  # the variant's best level: at another batch size
    line = curve(points[one], 1)
    assert max(line, key=lambda p: p.value(THROUGHPUT)).concurrency == 2  # the case: the highest median at b=1 is c=2
    at_b1 = best_levels(run, points, 1)
    assert at_b1[one].concurrency == 1 and at_b1[one].batch_size == 1  # the paired rule: c=1, ahead in every round

    # the Recommendation's rule for the b=1 workload: the ranking of its series names ONE at c=1
    split = split_by_workload(run)
    series = [v for v in split.variants if all(lv.batch_size == 1 for lv in v.levels)]
    ranking = rank_variants(series, None, cores=host_cores(split))
    assert ranking.leader is not None and ranking.leader.side.concurrency == 1
    (table,) = [p for name, p in best_levels(split, run_points(split)).items() if name.startswith(one) and p.batch_size == 1]
    assert table.concurrency == 1  # the console table's row of the b=1 series

    # Conclusions: the series' level at b=1 (runner-up, peaks) is c=1 (was c=2, the highest median there)
    assert best_levels(run, points, 1)[one].concurrency == 1
    # Main effects: the instance-count pair is taken at c=1 of ONE on its b=1 line (was c=2)
    (effect,) = [e for e in main_effects(run, points) if e.factor.key == "count"]
    (pair,) = effect.pairs
    assert pair.peaks[0] == 1, pair.peaks
