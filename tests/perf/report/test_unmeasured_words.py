"""A variant with no measured level is said to be not measured, with why, in every per-variant line
(trial 9, F27: report.md's Saturation list and the appendix said "fewer than 2 levels measured",
and the conclusions "3 variants have fewer than 2 measured levels", of 3 variants cut for time
before any level was measured)."""

from __future__ import annotations

from pathlib import Path

from factories import level_result, run_result, variant_result

from perf.analysis.recommendation.cuts import unmeasured_text
from perf.analysis.recommendation.recommend import recommend
from perf.analysis.stats.points import run_points
from perf.records import results
from perf.records.rounds import Cut, RoundsRecord
from perf.records.search import SearchRecord
from perf.report.conclusions.written import conclusions
from perf.report.sections.knees import knee_lines, knee_text
from perf.report.sections.search import search_lines
from perf.report.write import write_report


def _run():
    two = variant_result("two", [level_result(c, 100.0 * c, 2.0 * c, trial=r, spread=True) for c in (1, 2) for r in range(3)])
    one = variant_result("one", [level_result(1, 90.0, 2.0, trial=r, spread=True) for r in range(3)])
    cut = variant_result("cut", status="skipped", error="cut for time: the plan's reason")
    failed = variant_result("broke", status="failed", error="server crashed while loading")
    run = run_result([two, one, cut, failed], settings={"concurrency": [1, 2]}, finished="x")
    run.rounds = RoundsRecord(seed=1, cuts=[Cut("variant", "not measured: the plan's reason", "cut")])
    return run


def test_each_variant_without_a_level_is_not_measured_with_why_never_fewer_than_2() -> None:
    run = _run()
    assert unmeasured_text(run, "cut") == "not measured (cut for time)"
    assert unmeasured_text(run, "broke") == "not measured (failed)"
    assert unmeasured_text(run, "two") is None and unmeasured_text(run, "one") is None
    run.variants[2].status, run.variants[2].error, run.rounds.cuts = "pending", None, []
    assert unmeasured_text(run, "cut") == "not measured (not reached: the run stopped before it)"
    run = _run()
    rec, points = recommend(run), run_points(run)
    why = {v.name: unmeasured_text(run, v.name) for v in run.variants}
    lines = "\n".join(knee_lines(rec, points, why))
    assert "`cut`: not measured (cut for time)" in lines and "`one`: only 1 level measured" in lines
    assert "fewer than" not in lines
    assert knee_text([], None) == "no level measured"  # no reason known: still not "fewer than 2"
    text = " ".join(conclusions(run, rec))
    assert "`cut` was not measured (cut for time)" in text and "1 variant has only 1 measured level" in text
    assert "fewer than 2" not in text
    run.search = SearchRecord("prune", True, order=[v.name for v in run.variants])
    rows = [ln.replace(" ", "") for ln in search_lines(run, None)]
    assert "|`cut`|—|notmeasured(cutfortime)|" in rows and "|`broke`|—|notmeasured(failed)|" in rows
    order = next(ln for ln in search_lines(run, None) if ln.startswith("- Order"))
    assert "most promising" not in order and "a guess from the configs, no measurement" in order  # trial 9, F26's kind


def test_the_written_report_and_appendix_say_it(tmp_path: Path) -> None:
    results.save(_run(), tmp_path)
    write_report(tmp_path)
    for name in ("report.md", "appendix.md"):
        text = (tmp_path / name).read_text()
        assert "`cut`: not measured (cut for time)" in text, name
        assert "fewer than 2 levels" not in text, name
