"""A knee ("throughput gains no more than 5 % to every higher level") rests on at least the run's ``min_rounds`` (3)
shared rounds per step, and is never below the variant's own best level (trial 25, T25-18: run demo-20261205-015725's
``seqnet_ts_cpu1_nodb_mbs64`` had "knee c=1" from 2 shared rounds whose ratios were 1.56x and 0.56x, beside its best
level at c=4, +55 % by the medians; the next variant's 3 rounds were "not told"). One rule
(:func:`perf.analysis.saturation.rises.knee`) for the console's knee column, report.md, the appendix's Knees."""

from __future__ import annotations

from factories import rounds_run

from perf.analysis.recommendation.recommend import recommend
from perf.analysis.stats.points import run_points
from perf.report.sections.knees import knee_text

#: The trial's numbers: c=1 in rounds 0-2, c=4 in rounds 0, 2, 3: two shared rounds, ratios 1.56x and 0.56x.
TRIAL = {1: {0: 99.8, 1: 99.9, 2: 244.7}, 4: {0: 155.8, 2: 136.6, 3: 154.8}}


def test_no_knee_from_two_shared_rounds() -> None:
    run = rounds_run(TRIAL)
    rec = recommend(run)  # the console's knee column and the appendix read rec.knees
    assert rec.knees["v"] is None
    text = knee_text(run_points(run)["v"], None, run=run)
    assert "no knee within the swept range" in text and "2 rounds" in text, text


def test_three_shared_rounds_flat_still_make_a_knee() -> None:
    # a plateau: +4 % and +3 % from c=1, each step flat on 3 rounds; c=2 is its best, within the 5 % a step must gain
    run = rounds_run({1: {r: 100.0 for r in range(3)}, 2: {r: 104.0 for r in range(3)}, 4: {r: 103.0 for r in range(3)}})
    assert recommend(run).knees["v"] == 1


def test_a_knee_is_never_below_a_best_level_more_than_the_least_gain_above_it() -> None:
    # c=1 -> c=2 gains 3 % in each of the 3 rounds both shared (flat), but c=2's other rounds put its median at 200.0
    # infer/s, twice c=1's: its best level, above the knee the shared rounds alone would make
    run = rounds_run({1: {r: 100.0 for r in range(3)}, 2: {0: 103.0, 1: 103.0, 2: 103.0, **{r: 200.0 for r in range(3, 7)}}})
    points = run_points(run)["v"]
    assert [p.get("throughput_infer_per_s") for p in points] == [100.0, 200.0]
    assert recommend(run).knees["v"] is None
