"""A level at a ladder's top whose last step the rounds split both ways is no measured peak: "peak not told", with
why, as the knee words say no knee (trial 27, T27-4: a capped ladder's c=4 said "peak" from 4 rounds split 2 up, 2
down, ratios 0.67–1.52, median gain within 5 %, while the appendix said "no knee")."""

from __future__ import annotations

from split_steps import FLAT, top_step_run

from perf.analysis.recommendation.recommend import recommend
from perf.analysis.saturation.peaks import UNTOLD, unreached
from perf.analysis.stats.points import aggregate


def _unreached(ratios: dict[int, float] | None = None) -> str | None:
    run = top_step_run(ratios) if ratios else top_step_run()
    vr = run.variants[0]
    pts = aggregate(vr.levels, vr.name)
    return unreached(run, pts, next(p for p in pts if p.concurrency == 4))


def test_a_top_step_split_both_ways_is_not_told() -> None:
    rec = recommend(top_step_run(), None)
    assert rec.best_peak is not None and rec.best_peak.at(4)
    assert rec.knees.get("v") is None  # the knee words: no knee
    why = _unreached()
    assert why is not None and why.startswith(UNTOLD), why
    assert "+2.9 % from c=2 to c=4" in why and "its rounds both ways (0.67× to 1.5×)" in why, why
    assert rec.unreached.get("v") == why and rec.best_peak.unreached == why


def test_a_plateau_the_rounds_agree_on_stays_a_measured_peak() -> None:
    assert _unreached(FLAT) is None
