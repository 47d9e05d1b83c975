"""A paired gain is said with what it is of where the medians beside it read another gain (break test B15):
"+181.9 % from c=1 to c=4" stood beside a c=4 level of 1,370 infer/s whose c=1 was 827 infer/s (+65.7 %):
the percentage was the one round both levels shared (2,331 / 827), the numbers shown every round's median.
Every sentence of a step (:meth:`perf.analysis.saturation.rises.Rising.words`: the peak's why, the search's
stop, the no-knee reason of the conclusions) now names the rounds the gain is of and the medians shown."""

from __future__ import annotations

import statistics

from factories import level_result, run_result, variant_result

from perf.analysis.recommendation.recommend import recommend
from perf.analysis.saturation.peaks import unreached
from perf.analysis.stats.points import THROUGHPUT, run_points
from perf.markdown import fmt
from perf.records.results import RunResult
from perf.records.rounds import RoundsRecord
from perf.report.sections.knees import knee_lines

#: The break test's level (sweep log): c=1 measured in round 0 only, c=4 in rounds 0-5.
C1, C4 = {0: 827.0}, {0: 2331.0, 1: 977.0, 2: 1244.0, 3: 1370.0, 4: 1370.0, 5: 2022.0}
#: Every round shared, each gain the same: the medians read the gain the rounds give.
SAME1, SAME4 = {r: 100.0 + r for r in range(6)}, {r: 2.0 * (100.0 + r) for r in range(6)}


def _run(c1: dict[int, float], c4: dict[int, float]) -> RunResult:
    levels = [level_result(c, t, 2.0 * c, spread=True, trial=r) for c, per in ((1, c1), (4, c4)) for r, t in per.items()]
    return run_result([variant_result("v", levels)], rounds=RoundsRecord(seed=1), finished="x")


def _pct(fraction: float) -> str:
    return f"{fraction * 100.0:+,.1f} %"


def _shown(run: RunResult) -> tuple[float, float]:
    lo, hi = sorted(run_points(run)["v"], key=lambda p: p.concurrency)
    return lo.value(THROUGHPUT), hi.value(THROUGHPUT)


def test_a_gain_of_the_shared_rounds_is_said_with_the_medians_shown() -> None:
    run = _run(C1, C4)
    pts = run_points(run)["v"]
    why = unreached(run, pts, max(pts, key=lambda p: p.concurrency))
    lo, hi = _shown(run)
    shared = statistics.median(C4[r] / C1[r] - 1.0 for r in C1.keys() & C4.keys())
    assert _pct(shared) != _pct(hi / lo - 1.0)  # the case: the rounds' gain is not the shown medians'
    assert f"{_pct(shared)} from c=1 to c=4 (the gain in the 1 round both were measured in; " in why
    assert f"their medians over all rounds: {fmt(lo)} and {fmt(hi)} infer/s, {_pct(hi / lo - 1.0)})" in why
    text = "\n".join(knee_lines(recommend(run), run_points(run), run=run))  # the no-knee reason says the same
    assert f"{_pct(shared)} (the gain in the 1 round both were measured in; their medians over all rounds: " in text


def test_a_gain_the_medians_shown_read_too_is_said_alone() -> None:
    run = _run(SAME1, SAME4)
    pts = run_points(run)["v"]
    why = unreached(run, pts, max(pts, key=lambda p: p.concurrency)) or ""
    lo, hi = _shown(run)
    assert f"{_pct(hi / lo - 1.0)} from c=1 to c=4 (c=4 ahead" in why
    assert "both were measured in" not in why
