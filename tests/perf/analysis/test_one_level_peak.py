"""A variant measured at one level only says nothing of whether its throughput still rose: its peak is "not told
(one level measured)", never "peak not reached" ("no higher level measured, throughput still rising"; trial 25,
T25-19: every row of a ``--concurrency 2`` run and its Recommendation said "peak not reached"). One rule
(:func:`perf.analysis.saturation.peaks.unreached`) for the console's notes and Recommendation line, report.md's
Recommendation and Conclusions."""

from __future__ import annotations

from pathlib import Path

from factories import rounds_run

from perf.analysis.recommendation.recommend import recommend
from perf.analysis.saturation.peaks import ONE_LEVEL
from perf.cli.summary import summary
from perf.records.results import save
from perf.report.write import write_report


def _run():
    return rounds_run({2: {0: 100.0, 1: 101.0, 2: 99.0, 3: 100.5}})


def test_one_level_is_not_told_not_unreached() -> None:
    run = _run()
    rec = recommend(run)
    assert rec.unreached["v"].startswith(ONE_LEVEL)
    said = summary(run)
    assert said.recommendation is not None and "best measured (peak not told: one level measured)" in said.recommendation
    assert "not reached" not in said.recommendation


def test_the_report_says_no_peak_not_reached(tmp_path: Path) -> None:
    save(_run(), tmp_path)
    text = write_report(tmp_path).read_text()
    assert "peak not reached" not in text
    assert "peak not told: one level measured" in text
    assert "whether it is the peak is not told: only concurrency 2 was measured" in text
