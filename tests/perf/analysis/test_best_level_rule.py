"""One rule for "best" (issue 26, note_s16 Left open): a variant's best level is named as the leading variant is
(perf.analysis.ranking.leader.choose, called by operating_point for the levels of one variant and by rank_variants
for the variants): the highest round-adjusted throughput unless another level is ahead of it in their shared rounds
as one-sidedly as 3 of 3 (perf.analysis.ranking.leader.favoured). operating_point took the round-adjusted
throughput alone, so the report and the console named as a variant's best a level behind another of its levels in
every round they shared, while the same rule over variants would have named the one ahead. Fewer shared rounds, or
rounds less one-sided (2 of 3: trial 28, T28-1), move no one, and the tie words
(tests/perf/analysis/test_tied_best_level.py) stay right."""

from __future__ import annotations

from factories import rounds_run
from tables import summary_row

from perf.analysis.ranking.operating import Adjusted, Side, operating_point
from perf.analysis.ranking.rank import rank_variants
from perf.analysis.saturation.best_level import best_levels
from perf.analysis.saturation.peaks import higher_median
from perf.analysis.stats.points import run_points
from perf.records.results import RunResult

#: round -> infer/s: c=1 flat (the round effects), c=4 in 6 rounds, quicker in its last 3 (rounds c=16 never had).
C1 = {r: 50.0 for r in range(6)}
C4 = {0: 100.0, 1: 104.0, 2: 98.0, 3: 300.0, 4: 310.0, 5: 290.0}


def _run(c16: dict[int, float]) -> RunResult:
    return rounds_run({1: C1, 4: C4, 16: c16})


def _row(run: RunResult) -> str:
    return summary_row(run)


def test_a_level_behind_another_in_three_of_three_shared_rounds_is_never_its_variants_best() -> None:
    run = _run({0: 110.0, 1: 112.0, 2: 105.0})  # c=16 ahead of c=4 in each of the 3 rounds they shared
    vr = run.variants[0]
    adjusted = Adjusted([vr])
    assert adjusted.of(Side("v", 4)) > adjusted.of(Side("v", 16))  # the round-adjusted scale puts c=4 first
    for backed in (True, False):  # the ranked operating point, and the peak a leader is named at
        op = operating_point(vr, backed=backed, cores=None)
        assert op is not None and op.side.concurrency == 16, backed
    ranking = rank_variants(run.variants, cores=None)
    assert ranking.leader is not None and ranking.leader.side.concurrency == 16
    pts = run_points(run)
    best = best_levels(run, pts)["v"]
    assert best.concurrency == 16  # the console's best column and the report's pick
    why = higher_median(run, pts["v"], best)  # c=4's median is higher: said, with what named c=16
    assert why is not None and "c=16 is named by the rule that names the leading variant" in why
    assert "as one-sided as 3 of 3" in why
    assert "c=16 was ahead in 3 of the 3 rounds they shared" in why and "named by the round-adjusted scale," not in why
    row = _row(run)
    assert "c=16 ahead in 3 of 3 rounds" in row and "tie" not in row


def test_two_of_three_shared_rounds_name_no_level_above_one_of_a_higher_median_over_more_rounds() -> None:
    """Trial 28, T28-1: 2 of 3 shared rounds are no evidence; c=4's median (197.0 infer/s over 6 rounds) is higher
    than c=16's (110.0 over 3), and the round-adjusted scale puts it first too (the old code named c=16)."""
    run = _run({0: 110.0, 1: 112.0, 2: 92.0})  # c=16 ahead of c=4 in 2 of the 3 rounds they shared
    vr = run.variants[0]
    for backed in (True, False):
        op = operating_point(vr, backed=backed, cores=None)
        assert op is not None and op.side.concurrency == 4, backed
    ranking = rank_variants(run.variants, cores=None)
    assert ranking.leader is not None and ranking.leader.side.concurrency == 4
    pts = run_points(run)
    best = best_levels(run, pts)["v"]
    assert best.concurrency == 4 and higher_median(run, pts["v"], best) is None  # no higher median to explain


def test_fewer_than_three_shared_rounds_move_no_level() -> None:
    """(The tie words where the medians go round in a circle: test_tied_best_level.py.)"""
    run = _run({0: 110.0, 1: 112.0})  # c=16 ahead of c=4 in both of 2 shared rounds: too few to move the order
    vr = run.variants[0]
    op = operating_point(vr, backed=False, cores=None)
    assert op is not None and op.side.concurrency == 4
    assert best_levels(run, run_points(run))["v"].concurrency == 4
