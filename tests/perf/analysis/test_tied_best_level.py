"""A variant's best level behind another of its levels on both counts (a lower median, and behind in more of
their shared rounds than ahead) where the paired rule does not separate them is said to be a tie, never "best"
alone (trial 19, T19-4: the console's best column showed c=4, 183.5 infer/s, beside "c=16's median higher,
209.5: not distinguishable by the paired rule; c=4 ahead in 1 of 3 rounds"). Here the round-adjusted scale still
names the level shown (README: the medians of shared rounds go round in a circle, so they move no level)."""

from __future__ import annotations

from factories import rounds_run
from tables import summary_row

from perf.analysis.saturation.best_level import best_levels
from perf.analysis.saturation.peaks import higher_median
from perf.analysis.stats.points import run_points
from perf.records.results import RunResult

#: round -> infer/s: c=4 in 6 rounds, c=16 in the first 3 (c=4 ahead in round 2 only); c=1 below both by the medians
#: (171.0 against c=4's 186.8: with 280.6 in round 3, c=1's median 206.8 and its lower p99 made it better on both than
#: c=4, ahead of it in 4 of 6 rounds only, and named first: trial 30, F10).
C1 = {0: 192.0, 1: 221.6, 2: 227.8, 3: 150.0, 4: 141.0, 5: 104.2}
C4 = {0: 114.6, 1: 181.6, 2: 231.7, 3: 293.2, 4: 186.3, 5: 187.2}
C16 = {0: 162.7, 1: 210.9, 2: 209.5}


def _run(c16: dict[int, float]) -> RunResult:
    return rounds_run({1: C1, 4: C4, 16: c16})


def _row(run: RunResult) -> str:
    return summary_row(run)


def test_a_best_level_behind_on_both_counts_is_said_to_be_a_tie():
    """c=4 behind c=16 in 2 of 3 shared rounds, c=16 behind c=1 in 3 of 3, c=1 behind c=4 in the median of 6: the
    medians go round, so the round-adjusted scale names the level (perf.analysis.ranking.leader.choose, the rule
    every best level and the leading variant are named by; issue 26), and the words say the tie."""
    run = _run(C16)
    pts = run_points(run)
    best = best_levels(run, pts)["v"]
    assert best.concurrency == 4  # the round-adjusted scale's first: the medians go round (README)
    row = _row(run)
    assert "a tie with c=16 (not distinguishable by the paired rule)" in row and "c=16 ahead in 2 of 3 rounds" in row
    assert "c=4 ahead in 1 of 3 rounds" not in row
    why = higher_median(run, pts["v"], best)  # the report's words for the pick's level
    assert why is not None and why.startswith("c=4 and c=16 are a tie: c=16's median is higher")


def test_no_tie_said_where_the_level_shown_is_ahead_in_the_shared_rounds():
    run = _run({0: 110.0, 1: 250.0, 2: 220.0})  # c=16's median higher, c=4 ahead in 2 of its 3 shared rounds
    pts = run_points(run)
    best = best_levels(run, pts)["v"]
    assert best.concurrency == 4
    row = _row(run)
    assert "c=4 ahead in 2 of 3 rounds" in row and "tie" not in row
