"""A "peak" is claimed only for a measured one (perf.analysis.saturation.peaks). Trial 7 (F8): the console's
"peak infer/s" column and "best peak" note, report.md's "Best peak throughput: ... at concurrency 16:
753.1 infer/s" and the Conclusions' "The best peak is" named a level whose ladder had stopped at
the p99 budget with throughput still rising 129 %, as the same report's Search section said."""

from __future__ import annotations

from factories import level_result, run_result, variant_result
from rich.console import Console

from perf.analysis.recommendation.recommend import recommend
from perf.analysis.saturation.peaks import UNREACHED_MARK, unreached
from perf.analysis.stats.points import run_points
from perf.cli.summary import summary_table
from perf.records.search import SearchDecision, SearchRecord
from perf.report.conclusions.written import conclusions
from perf.report.write import recommendation_section

RISING, FLAT = "m_onnx_cpu2_db500_mbs64", "m_onnx_cpu1_nodb_mbs64"


def _run(top_thr: float = 750.0, budget_stop: bool = True):
    """RISING climbs to ``top_thr`` at c=16 and its ladder stopped there (over the budget); FLAT
    saturated at c=4 (c=16 no faster)."""
    rising = [
        level_result(c, t, p, spread=True, trial=r)
        for c, t, p in ((1, 120.0, 8.0), (4, 370.0, 30.0), (16, top_thr, 61.0))
        for r in range(3)
    ]
    flat = [
        level_result(c, t, p, spread=True, trial=r)
        for c, t, p in ((1, 80.0, 9.0), (4, 110.0, 35.0), (16, 112.0, 140.0))
        for r in range(3)
    ]
    run = run_result(
        [variant_result(RISING, rising), variant_result(FLAT, flat)],
        settings={"latency_budget_ms": 25.0, "latency_percentile": 99},
        finished="x",
    )
    if budget_stop:
        run.search = SearchRecord(
            mode="prune", adaptive=True, decisions=[SearchDecision(RISING, "budget", 16, "its p99 at concurrency 16 is over")]
        )
    return run


def test_a_pick_whose_ladder_stopped_with_throughput_rising_is_the_highest_measured_not_the_peak():
    run = _run()
    rec = recommend(run)
    pick = rec.best_peak
    assert pick is not None and (pick.variant, pick.concurrency) == (RISING, 16)
    assert (
        pick.unreached == "its ladder stopped at the p99 latency budget with throughput still rising, +102.7 % from c=4 to c=16 "
        "(more than both levels' spread over 3 trials)"  # the rise is beyond the noise, and says what it rests on
    )
    assert rec.unreached == {RISING: pick.unreached}  # FLAT's c=16 gained 1.8 %: a plateau
    section = "\n".join(recommendation_section(rec, run_points(run)))
    assert f"- **Best measured throughput (peak not reached):** `{RISING}` at concurrency 16" in section  # T23-5: why under it
    assert f"peak not reached: {pick.unreached}" in section
    assert "Best peak" not in section
    text = "\n".join(conclusions(run, rec))
    assert "The best peak is" not in text and "The best throughput measured is 750.0 infer/s" in text
    assert "; peak not reached (why: see Recommendation)." in text and pick.unreached not in text  # said once (T19-17)
    console = Console(record=True, width=300)
    console.print(summary_table(run))
    out = console.export_text()
    assert "peak infer/s" not in out and "best infer/s" in out
    row = next(r for r in out.splitlines() if RISING in r)
    assert UNREACHED_MARK in row and "best peak" not in row


def test_a_measured_plateau_or_a_higher_level_measured_keeps_the_word_peak():
    run = _run(top_thr=380.0)  # c=16 gains 2.7 % over c=4: flat, a peak
    rec = recommend(run)
    assert rec.best_peak is not None and rec.best_peak.unreached is None and rec.unreached == {}
    assert "- **Best peak throughput:** " in "\n".join(recommendation_section(rec, run_points(run)))
    console = Console(record=True, width=300)
    console.print(summary_table(run))
    assert "best peak" in next(r for r in console.export_text().splitlines() if RISING in r)
    pts = run_points(run)[FLAT]
    assert unreached(run, pts, next(p for p in pts if p.concurrency == 4)) is None  # c=16 measured above it


def test_the_words_say_why_the_peak_was_not_reached():
    run = _run(budget_stop=False)  # a fixed grid: its top level still rising
    pts = run_points(run)[RISING]
    top = max(pts, key=lambda p: p.concurrency)
    assert (
        unreached(run, pts, top)
        == "c=16 is the highest concurrency swept, with throughput still rising, +102.7 % from c=4 to c=16 "
        "(more than both levels' spread over 3 trials)"
    )
    one = run_result([variant_result(RISING, [level_result(1, 100.0, 5.0, spread=True)])])
    (p,) = run_points(one)[RISING]
    assert unreached(one, [p], p) == "whether it is the peak is not told: only concurrency 1 was measured"  # T25-19
