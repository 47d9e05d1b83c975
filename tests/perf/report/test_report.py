"""Report side of a sweep (perf.analysis.stats.points, perf.report.write, perf.plots.figures, perf.report.conclusions.written) on synthetic runs:
pure computation, no server."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from factories import CONC, levels, make_run

from core.errors import PerfError
from perf.analysis.recommendation.recommend import recommend
from perf.analysis.saturation.rises import judge
from perf.analysis.saturation.rises import knee as knee_of
from perf.analysis.stats.curves import interference
from perf.analysis.stats.points import aggregate, delta, run_points
from perf.cli.summary import summary_table
from perf.plots import bars as plot_bars
from perf.plots import figures as plots
from perf.records.results import RunResult, save
from perf.report.conclusions.pairs import pair_bullets
from perf.report.conclusions.written import conclusions
from perf.report.sections.tables import level_tables
from perf.report.write import write_report
from perf.sweep.refused_run import refused_flags_text

HOST_CPU_PANEL = (
    "Host CPU (% of all cores) — every process on the host, perf_analyzer included (Triton's nv_cpu_utilization); "
    "100 % = every core busy — client batch size 1"
)
GPU_PANEL = "GPU utilisation (%) — client batch size 1"


def squash(text: str) -> str:
    """Markdown with the padding tabulate adds around table cells collapsed to one space."""
    return re.sub(r" *\| *", " | ", text)


def knee(lv) -> int | None:
    """The knee of a trials run's levels (perf.analysis.saturation.rises.knee, on the medians over trials)."""
    return knee_of(aggregate(lv), judge(make_run()))


def test_knee_rule():
    run = make_run()
    assert knee(run.variants[0].levels) == 4
    assert knee(run.variants[1].levels) is None  # still scaling
    # 360 -> 380 -> 385 infer/s at c=4, 8, 16: +5.6 % to c=8 is more than the 5 % a step must gain
    # (the search's min_gain_pct, the one rule of a rise), so the knee is at 8, not 4
    assert knee(run.variants[2].levels) == 8
    assert knee(run.variants[3].levels) is None  # a single level has no knee
    # throughput that falls as load rises is interference, not a knee (issue 24)
    falling = levels([100, 300, 250, 240], [1, 2, 3, 4])
    assert knee(falling) is None
    fall = interference(falling)
    assert (fall.before.concurrency, fall.after.concurrency, round(fall.drop_pct)) == (2, 8, 20)
    # its words are perf.analysis.saturation.falls.fall's, beyond the noise only (tests/perf/analysis/test_falls.py)
    # a small dip past saturation (within 10 %) is still a knee
    assert (
        knee(levels([100, 300, 290, 285], [1, 2, 3, 4])) == 2 and interference(levels([100, 300, 290, 285], [1, 2, 3, 4])) is None
    )
    # flat throughput but p99 not rising is not saturation
    assert knee(levels([100, 102, 103], [1.0, 1.0, 1.0])) is None


def test_recommend_under_budget_and_peak():
    run = make_run()
    rec = recommend(run, 3.0)
    assert rec.best_under_budget.variant == "mlp_onnx_cpu1_db500_mbs64"
    assert (rec.best_under_budget.concurrency, rec.best_under_budget.throughput_infer_per_s) == (8, 600)
    assert rec.best_peak.throughput_infer_per_s == 900  # the failed variant's 5000 is not a candidate
    assert rec.knees == {
        "mlp_onnx_cpu1_nodb_mbs64": 4,
        "mlp_onnx_cpu1_db500_mbs64": None,
        "mlp_onnx_cpu2_nodb_mbs64": 8,
        "mlp_onnx_cpu2_db500_mbs64": None,
    }
    assert recommend(run, 1.25).best_under_budget.variant == "mlp_onnx_cpu2_nodb_mbs64"
    none = recommend(run, 1.0)
    assert none.best_under_budget is None
    assert any("lowest p99 measured is 1.20 ms" in n for n in none.notes)
    assert recommend(run).best_under_budget is None
    with pytest.raises(PerfError):
        recommend(run, 0)


def test_trials_median_spread_and_significance():
    lv = levels([100, 200], [1, 2], trial=0) + levels([110, 190], [1.2, 2.2], trial=1) + levels([90, 230], [0.8, 1.9], trial=2)
    pts = aggregate(lv, "v")
    assert [p.trials for p in pts] == [3, 3]
    assert pts[0].get("throughput_infer_per_s") == 100 and pts[0].spread("throughput_infer_per_s") == 20
    assert pts[1].get("throughput_infer_per_s") == 200 and pts[1].spread("throughput_infer_per_s") == 40
    two = aggregate(levels([103], [1.0]) + levels([107], [1.0], trial=1), "w")[0]  # median 105, spread 4
    d = delta(pts[0], two, "throughput_infer_per_s")
    assert d.change_pct == pytest.approx(5.0) and d.significant is False and d.spread_pct == pytest.approx(20.0)
    assert d.describe() == "+5.0 % (not significant, trial spread 20.0 %)"
    far = aggregate(levels([128], [1.0]) + levels([132], [1.0], trial=1), "w")[0]  # +30 > both spreads (20, 4)
    assert delta(pts[0], far, "throughput_infer_per_s").significant is True
    # the difference must exceed BOTH spreads: 100 -> 125 beats b's 4 but not a wide b's 30
    wide = aggregate(levels([110], [1.0]) + levels([140], [1.0], trial=1), "w")[0]  # median 125, spread 30
    assert delta(pts[0], wide, "throughput_infer_per_s").significant is False


@pytest.mark.parametrize("a_trials, b_trials", [(1, 1), (1, 3), (3, 1)])
def test_one_trial_means_spread_unknown_never_significant(a_trials: int, b_trials: int):
    """Issue 19 item 14: with one trial no noise level is assumed (the old rule called +6 % significant
    on an assumed 5 % noise); even +54 % (two runs of one grid a day apart) is of unknown significance."""

    def point(values: list[float]):
        return aggregate([x for i, v in enumerate(values) for x in levels([v], [1.0], trial=i)], "p")[0]

    a = point([100.0] if a_trials == 1 else [99.0, 100.0, 101.0])
    for b_value in (106.0, 154.0):
        b = point([b_value] if b_trials == 1 else [b_value - 1, b_value, b_value + 1])
        d = delta(a, b, "throughput_infer_per_s")
        assert d.significant is None and d.spread_pct is None
        assert d.unknown_note == "spread unknown (1 trial)"
        assert d.describe() == f"{d.change_pct:+.1f} % (spread unknown: 1 trial)"


def _write(run: RunResult, tmp_path: Path) -> tuple[Path, str]:
    run.settings["latency_budget_ms"] = 3.0  # the run's own budget: its own report (another one is a what-if view)
    save(run, tmp_path)
    (tmp_path / "commands.txt").write_text("perf_analyzer -m x\n")
    path = write_report(tmp_path, latency_budget_ms=3.0)
    return path, path.read_text()


def test_report_content_cpu_only(tmp_path: Path):
    path, text = _write(make_run(), tmp_path)
    assert path == tmp_path / "report.md"
    for png in (
        "throughput_vs_concurrency",
        "p99_vs_concurrency",
        "throughput_vs_p99",
        "utilisation_vs_concurrency",
        "latency_breakdown",
    ):
        f = tmp_path / f"{png}.png"
        assert f.exists() and f.stat().st_size > 5000, png
        assert f"]({png}.png)" in text
    assert "GPU util" not in text and "host CPU (% of all cores)" in text and "CPU util" not in text
    assert (
        "host CPU (% of all cores): every process on the host, perf_analyzer included (Triton's `nv_cpu_utilization`); "
        "100 % = every core busy." in text
    )
    # unstable level flagged in its level table, with the footnote
    c8 = text.split("### Concurrency 8")[1].split("###")[0]
    assert "`mlp_onnx_cpu2_nodb_mbs64` †" in c8 and "`mlp_onnx_cpu1_nodb_mbs64` †" not in c8
    assert "† unstable: perf_analyzer did not reach a stable measurement" in text
    assert "`mlp_onnx_cpu2_nodb_mbs64` † unstable" in c8
    # the recommendation says what it ranked last and what it left out, and why
    rec = squash(text.split("## Recommendation")[1].split("## Conclusions")[0])
    assert "**Flagged levels** (1; †; ranked after the stable levels: a flagged level wins only when" in rec
    assert "unstable: 1 level, of `mlp_onnx_cpu2_nodb_mbs64` (1)" in rec  # counted per flag (s22z, Z-3)
    # the appendix names the list for what it holds (it was headed "Ranked after the stable levels")
    appendix = (tmp_path / "appendix.md").read_text()
    assert "## Flagged levels\n\n1 flagged level; †; ranked after the stable levels" in appendix
    assert "## Ranked after" not in appendix
    assert (
        "**Excluded from the recommendation** (1):" in rec
        and "`mlp_onnx_cpu2_db500_mbs64`: the variant failed (server crashed while loading: CUDA out of memory)." in rec
    )
    assert "| `mlp_onnx_cpu2_db500_mbs64` (variant failed later) | 5,000.0 |" in squash(text)  # not bold: not a winner
    # failed variant listed with its error
    assert "`mlp_onnx_cpu2_db500_mbs64`: server crashed while loading: CUDA out of memory" in text
    assert "commands.txt" in text and "2.51.0" in text and "bundled" in text
    # recommendation and conclusions with computed numbers
    assert "`mlp_onnx_cpu1_db500_mbs64` at concurrency 8: 600.0 infer/s, p99 3.00 ms" in text
    assert "+336.9 % over the 1-instance, no-batching baseline `mlp_onnx_cpu1_nodb_mbs64`" in text  # 900/206
    assert "Every level was measured once: spread unknown (1 trial)" in text and "`--trials 3`" in text
    # (the main effects' definition names "not significant"; no number is called so)
    assert "not significant" not in text.replace("*not significant* where the spread covers zero", "")
    assert "noise " not in text.replace("none is assumed to be noise", "")
    # every fair pair is in the appendix (the report has the main effects): batching on vs off at the same
    # count, at the highest common concurrency 16: 900 vs 206
    text = text + (tmp_path / "appendix.md").read_text()
    assert "`mlp_onnx_cpu1_db500_mbs64` vs `mlp_onnx_cpu1_nodb_mbs64` at concurrency 16: throughput +336.9 %" in text
    # 2 vs 1 instances at 16: 385 vs 206 = +86.9 %; at c=1, 101 vs 100 is noise
    assert (
        "2 vs 1 instance (`mlp_onnx_cpu2_nodb_mbs64` vs `mlp_onnx_cpu1_nodb_mbs64`) at concurrency 16: throughput +86.9 %" in text
    )
    assert (
        "The runner-up by highest throughput measured (not by the ranking under the p99 budget of 3.00 ms), "
        "`mlp_onnx_cpu2_nodb_mbs64`, peaked at 385.0 infer/s (concurrency 16): -57.2 % against the best." in text
    )
    assert "executions held 14.00 inferences on average (≈400 µs infer time per inference)" in text
    assert (
        "`mlp_onnx_cpu1_nodb_mbs64` spent 800 µs per request queued and 418 µs in compute (input + infer + output; 400 µs "
        "infer) (queue = 66 % of server time: requests mostly waited for a busy instance)" in text
    )
    assert "1 level did not reach a stable measurement (`mlp_onnx_cpu2_nodb_mbs64` c=8; marked † unstable); its numbers" in text
    assert not re.search(r"\bnan\b", text, re.I)


def test_absent_gpu_not_drawn_as_zero(tmp_path: Path):
    cpu_only = run_points(make_run())
    drawn = plots.plot_utilisation(cpu_only, tmp_path / "u.png")
    assert list(drawn) == [HOST_CPU_PANEL]  # labelled as the host's, not the server's
    # GPU present at some levels only: the null levels are missing from the curve, not 0
    gpu = [30.0, None, 60.0, None, 90.0]
    drawn = plots.plot_utilisation(run_points(make_run(gpu=gpu)), tmp_path / "g.png")
    xs, ys = drawn[GPU_PANEL]["mlp_onnx_cpu1_nodb_mbs64"]
    assert xs == [1, 4, 16] and ys == [30.0, 60.0, 90.0]
    assert "mlp_onnx_cpu2_db500_mbs64" not in drawn[GPU_PANEL]  # no GPU numbers at all
    assert (tmp_path / "g.png").stat().st_size > 5000
    table = squash("\n".join(level_tables(run_points(make_run(gpu=gpu)))))
    assert "GPU util (%)" in table and "| 30.0 |" in table and "| — |" in table


def test_breakdown_and_curves_skip_nulls(tmp_path: Path):
    run = make_run()
    run.variants[0].levels[-1].server_queue_us = None
    drawn = plot_bars.plot_breakdown(run_points(run), tmp_path / "b.png")
    (segments,) = drawn.values()
    assert segments["server queue"][0] == [1.0, 2.0, 3.0]  # variant 0 has no queue bar
    assert segments["compute infer"][1][1] == 400.0 * 14  # db500 at its highest level (16)
    at2 = plot_bars.plot_breakdown(run_points(run), tmp_path / "b2.png", concurrency=2)
    assert list(at2.values())[0]["compute infer"][1] == [400.0, 720.0, 400.0]  # the failed variant has no c=2
    thr = plots.plot_metric(run_points(run), "throughput_infer_per_s", "infer/s", "T", tmp_path / "t.png")
    assert thr["T — client batch size 1"]["mlp_onnx_cpu1_db500_mbs64"] == ([1, 2, 4, 8, 16], [95, 185, 340, 600, 900])


def test_summary_table_and_errors(tmp_path: Path):
    from rich.console import Console

    console = Console(record=True, width=200)
    console.print(summary_table(make_run(), 3.0))
    out = console.export_text()
    assert (
        "best under budget (c=8: 600.0 infer/s, p99 3.00 ms)" in out  # the row shows c=16: the pick's own numbers (T13-18)
        and ("best peak" in out or "best measured (peak not reached)" in out or "best measured (peak not told)" in out)
        and "failed" in out
    )
    with pytest.raises(PerfError, match="no results.json"):
        write_report(tmp_path)
    save(RunResult("empty", "now"), tmp_path)
    with pytest.raises(PerfError, match="no variants"):
        write_report(tmp_path)


def _with_trials(run: RunResult, cpu2_c16: tuple[float, float, float] = (380.0, 385.0, 390.0)) -> RunResult:
    """Trials 1 and 2 for cpu1 nodb (c=16: 215, 206, 190 -> spread 25) and cpu2 nodb (c=16 as given)."""
    base, two = run.variants[0], run.variants[2]
    base.levels += levels([120, 170, 210, 200, 215], [1.1, 1.6, 2.4, 5.5, 9.0], trial=1)
    base.levels += levels([80, 185, 195, 210, 190], [1.3, 1.4, 2.6, 4.5, 11.0], trial=2)
    for t in (1, 2):
        two.levels += levels([101, 190, 360, 380, cpu2_c16[t]], [1.2, 1.3, 1.6, 3.0, 6.0], trial=t)
    two.levels[4].throughput_infer_per_s = cpu2_c16[0]
    return run


def test_report_with_trials(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(plots, "write_plots", lambda *a, **k: {})  # tables and prose only; plots are tested above
    run = _with_trials(make_run())
    _, text = _write(run, tmp_path)
    text += (tmp_path / "appendix.md").read_text()  # the fair pairs
    c1 = text.split("### Concurrency 1\n")[1].split("###")[0]
    assert "100.0 [80.0–120.0]" in c1  # median with min–max
    # 2 vs 1 instance at c=16: 385 vs median 206 (spreads 10 and 25) is significant: no note
    assert (
        "2 vs 1 instance (`mlp_onnx_cpu2_nodb_mbs64` vs `mlp_onnx_cpu1_nodb_mbs64`) at concurrency 16: throughput +86.9 %,"
        in text
    )
    # batching on has 1 trial in a run where others have 3: said per change
    assert "at concurrency 16: throughput +336.9 % (spread unknown: 1 trial)" in text
    assert "Some levels were measured once: spread unknown (1 trial)" in text and "`--trials 3`" in text
    run = _with_trials(make_run(), (205.0, 210.0, 215.0))  # +1.9 %, inside the larger spread (25 of 206 = 12.1 %)
    text = "\n".join(pair_bullets(run))
    assert "at concurrency 16: throughput +1.9 % (not significant, trial spread 12.1 %)" in text


def test_every_level_with_trials_says_the_spread(tmp_path: Path):
    run = make_run()
    for v in run.variants[:3]:
        first = list(v.levels)
        for t, f in ((1, 0.97), (2, 1.03)):
            v.levels += [dataclasses.replace(lv, trial=t, throughput_infer_per_s=lv.throughput_infer_per_s * f) for lv in first]
    run.variants = run.variants[:3]
    text = "\n".join(conclusions(run, recommend(run)) + pair_bullets(run))
    assert "Each level was measured 3 times or more; throughput varied by a median 6.0 % (min–max)" in text
    assert "spread unknown" not in text and "measured once" not in text
    # 900 vs 206 with 6 % spreads: significant; 2 vs 1 instance at 16 too
    assert "throughput +336.9 %, p99" in text


def test_knee_uses_trial_medians_and_interrupted_run():
    # trial 1 alone would put the knee at 2 (flat afterwards); the medians keep growing to 4
    lv = (
        levels([100, 200, 400, 410], [1, 2, 3, 4], trial=0)
        + levels([100, 400, 405, 410], [1, 2, 3, 4], trial=1)
        + levels([100, 210, 390, 400], [1, 2, 3, 4], trial=2)
    )
    assert knee(lv) == 4
    assert knee([x for x in lv if x.trial == 1]) == 2
    run = make_run()
    run.finished = None
    run.variants[2].status, run.variants[2].levels = "pending", run.variants[2].levels[:1]
    text = "\n".join(conclusions(run, recommend(run)))
    # the note at the top says it whole; the conclusions point to it (s17a's left-alone repeat)
    assert "The run did not finish (the note at the top): comparisons use only the levels measured" in text
    from perf.records.unfinished import unfinished_text

    stopped = unfinished_text(run) or ""
    assert (
        "run `20240101-000000` did not finish (interrupted, or still running): it holds 12 measured levels; numbers "
        "for 4 of 4 variants (1 of them part-measured: `mlp_onnx_cpu2_nodb_mbs64`); its ranking and pick are of that only"
    ) in stopped
    assert "run_sweep.sh" not in text + stopped  # no command where the run's folder is not known
    assert "1 variant has only 1 measured level, so no saturation point (`mlp_onnx_cpu2_nodb_mbs64`)" in text


def test_report_without_matplotlib_keeps_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a))
    save(make_run(), tmp_path)
    text = write_report(tmp_path, latency_budget_ms=3.0).read_text()
    assert "no plots: matplotlib is not installed" in text
    assert "### Concurrency 1" in text and not list(tmp_path.glob("*.png"))


def test_server_cpu_in_tables_plots_and_why(tmp_path: Path):
    """Issue 19 item 15: host CPU (every process) is labelled as such; the server's own CPU is shown beside it."""
    run = make_run()
    assert "server CPU" not in "\n".join(level_tables(run_points(run)))  # null everywhere: no column
    for v in run.variants:
        for lv in v.levels:
            lv.server_cpu_cores = 0.45 * lv.concurrency**0.5
    table = squash("\n".join(level_tables(run_points(run))))
    assert "| host CPU (% of all cores) | server CPU (cores) |" in table and "| 100.0 | 1.80 |" in table  # c=16: 0.45 * 4
    assert "server CPU (cores): tritonserver and its child processes (python-backend stubs); 1.00 = one core busy." in table
    why = "\n".join(conclusions(run, recommend(run))).split("**Why.**")[1].split("**When")[0]
    assert "host CPU 100.0 % of all cores, server CPU 1.80 cores" in why and "utilisation CPU" not in why
    drawn = plots.plot_utilisation(run_points(run), tmp_path / "u.png")
    server = "Server CPU (cores) — tritonserver and its child processes (python-backend stubs); 1.00 = one core busy — client batch size 1"
    assert list(drawn) == [HOST_CPU_PANEL, server]
    assert drawn[server]["mlp_onnx_cpu1_nodb_mbs64"][1] == pytest.approx([0.45 * c**0.5 for c in CONC])


def test_an_unfinished_run_says_so_at_the_top_in_its_recommendation_and_in_a_comparison(tmp_path: Path):
    # the trial: line 7 read "finished not finished (interrupted?)" and nothing else said the run had stopped
    from perf.analysis.comparison.runs import compare_markdown

    run = make_run()
    run.finished = None
    run.variants[2].status, run.variants[2].levels = "pending", []
    _, text = _write(run, tmp_path)
    lines = text.splitlines()
    said = "did not finish (interrupted, or still running): it holds "
    assert lines[2].startswith("> **This run** " + said) and "1 not measured (`mlp_onnx_cpu2_nodb_mbs64`)" in lines[2]
    assert "--resume 20240101-000000" in lines[2]
    assert "not finished (interrupted?)" not in text and "**did not finish** (see the note at the top)" in text
    rec = text.split("## Recommendation")[1].split("\n## ")[0]
    # said whole once, at the top; the Recommendation points to it (s17a's left-alone repeat)
    assert "- **Not a finished run's pick**: the run did not finish (what it holds and what continues it: the note at " in rec
    assert text.count(said) == 1 and said not in rec
    done = make_run()
    compared = compare_markdown(done, run, refused=refused_flags_text)
    assert "> **B** (run `20240101-000000`) " + said in compared and "**A**" not in compared


def test_the_conclusions_name_a_levels_status_as_the_tables_mark_it():
    # the trial: "32 level(s) did not reach a stable measurement" while every table marked only "† host busy"
    run = make_run()
    for v in run.variants:
        for lv in v.levels:
            lv.stable, lv.host_busy, lv.host_busy_pct = False, True, 80.0
    text = "\n".join(conclusions(run, recommend(run)))
    assert "did not reach a stable measurement" not in text
    assert "levels were measured while other processes used the host" in text and "marked † host busy" in text
