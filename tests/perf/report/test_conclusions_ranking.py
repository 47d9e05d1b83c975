"""The conclusions never call the pick "the highest throughput" when a flagged level measured
more: they say why the ranking keeps it below (perf.analysis.recommendation.recommend's rule)."""

from __future__ import annotations

import re
from pathlib import Path

from perf.analysis.recommendation.recommend import recommend
from perf.records import results
from perf.records.workloads import WORKLOAD
from perf.report.conclusions.written import conclusions

DEMO_RUN = Path(__file__).resolve().parents[2] / "data" / "demo_run"


def test_a_higher_flagged_runner_up_is_explained_not_called_a_loss():
    run = results.load(DEMO_RUN)
    rec = recommend(run, None)
    text = "\n".join(conclusions(run, rec))
    assert (
        rec.best_peak is not None and rec.best_peak.throughput_infer_per_s < 872.0
    )  # the host-busy 872 does not clear its spread
    assert "The highest throughput is" not in text
    what = "The best peak is" if rec.best_peak.unreached is None else "The best throughput measured is"
    assert f"{what} {rec.best_peak.throughput_infer_per_s:,.1f} infer/s" in text
    assert " 872.0 infer/s (concurrency 8 † host busy): +12.5 % (not measured fairly: " in text
    assert "(host busy)) against the best, at a host busy level that does not lead" in text
    # the contrast of host-busy levels names other processes' CPU, not "no idle cores" for the settings
    assert "other processes used 93 % of one core during these levels (flagged host busy)" in text
    assert "no idle cores" not in text


def test_a_higher_flagged_level_of_the_picked_variant_is_named():
    """The pick's own variant measured more at another, flagged level: not the runner-up
    (another variant), so a sentence of its own names it."""
    run = results.load(DEMO_RUN)
    rec = recommend(run, None)
    assert rec.best_peak is not None
    pick = next(v for v in run.variants if v.name == rec.best_peak.variant)
    other = [lv for lv in pick.levels if lv.concurrency != rec.best_peak.concurrency]
    lv = other[0]
    lv.throughput_infer_per_s = rec.best_peak.throughput_infer_per_s * 1.3
    lv.host_busy, lv.throughput_window_spread_pct = True, 80.0  # a lead far inside its own spread
    rec2 = recommend(run, None)
    assert rec2.best_peak is not None and rec2.best_peak.concurrency == rec.best_peak.concurrency
    text = "\n".join(conclusions(run, rec2))
    said = f"measured more, up to {lv.throughput_infer_per_s:,.1f} infer/s (`{pick.name}`"
    assert re.search(rf"(\b1 flagged level|\b([02-9]|\d\d+) flagged levels) {re.escape(said)}", text), text
    assert "none is ranked above the pick" in text


def test_a_run_without_a_stable_level_says_so_at_the_top_of_the_report(tmp_path):
    """make demo on a loaded host: every level host busy or unstable, a pick and a bundle all the
    same; the report must say first that nothing in it is stable."""
    import shutil

    from perf.report.write import write_report

    run_dir = tmp_path / "run"
    shutil.copytree(DEMO_RUN, run_dir)
    run = results.load(run_dir)
    for v in run.variants:
        for lv in v.levels:
            lv.host_busy = True
    results.save(run, run_dir)
    text = write_report(run_dir).read_text()
    head = text.split("## ", 1)[0]
    assert "**No level of this run is stable**" in head and "host busy" in head
    assert "ranked after the stable levels" not in text and "the run has no stable level to rank first" in text
    appendix = (run_dir / "appendix.md").read_text()
    assert "## Flagged levels" in appendix and "## Ranked after" not in appendix
    # the demo run as it was (some stable levels): no such warning
    assert "No level of this run is stable" not in write_report(_copy(tmp_path)).read_text()


def _copy(tmp_path):
    import shutil

    d = tmp_path / "plain"
    shutil.copytree(DEMO_RUN, d)
    return d


def test_a_shape_sweeps_runner_up_is_a_series_of_the_picks_own_size():
    """The new-user trial: `--shapes seq=8,128` named the pick's own variant at seq=128 "the
    runner-up ... -17.3 % against the best"; an input size is the client's, not a rival."""
    run = results.load(DEMO_RUN)
    rec = recommend(run, None)
    best = rec.best_peak.variant
    for v in run.variants:
        v.params = {**(v.params or {}), WORKLOAD: "seq=8" if v.name == best else "seq=128"}
    text = "\n".join(conclusions(run, rec))
    assert "The runner-up" not in text
    second = next(v for v in run.variants if v.name != best and v.status == "ok")
    second.params[WORKLOAD] = "seq=8"  # the one series of the pick's size: it is the runner-up
    assert re.search(rf"The runner-up by [a-z ]+, `{second.name}`", "\n".join(conclusions(run, recommend(run, None))))


def test_the_runner_up_names_its_ranking():
    """The runner-up is the best peak's: said so, and that it is not the budget's ranking when the
    Recommendation ranks under one first (trial 9 F7: "The runner-up" was the variant the budget's
    pick beats by the widest margin)."""
    run = results.load(DEMO_RUN)
    for budget, said in ((None, ", `"), (10.0, " (not by the ranking under the p99 budget of 10.00 ms), `")):
        rec = recommend(run, budget)
        assert rec.best_peak is not None
        by = "peak throughput" if rec.best_peak.unreached is None else "highest throughput measured"
        assert f"The runner-up by {by}{said}" in "\n".join(conclusions(run, rec))
