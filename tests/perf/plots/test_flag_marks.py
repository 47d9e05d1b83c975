"""One mark for a flagged level in tables and plots alike (issue 26, "Plots"): a host-busy level is
† in the tables and † in throughput_vs_p99's and the Pareto plot's labels and legends, read back
from the matplotlib artists. Hand-made records (tests/support/factories.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import make_run

from perf.analysis.recommendation.frontier import frontier_rows, operating_frontier
from perf.analysis.recommendation.recommend import recommend
from perf.analysis.stats.points import run_points
from perf.markdown import flag_mark
from perf.plots import figures as plots
from perf.plots import frontier as plot_frontier
from perf.report.sections.tables import level_tables

DB = "mlp_onnx_cpu1_db500_mbs64"


def _busy_run():
    run = make_run()
    lv = run.variants[1].levels[4]  # db500 c=16: the best peak (900 infer/s), on the frontier
    lv.host_busy, lv.host_busy_pct = True, 55.0
    assert lv.stable and lv.status == "host busy"
    return run


def _texts(monkeypatch: pytest.MonkeyPatch, module) -> list[str]:
    """Every text artist of the axes a plot finishes with (its point labels)."""
    seen: list[str] = []
    real = module.finish

    def spy(fig, axes, path):
        seen.extend(t.get_text() for ax in axes for t in ax.texts)
        return real(fig, axes, path)

    monkeypatch.setattr(module, "finish", spy)
    return seen


def test_a_host_busy_level_carries_the_tables_mark_in_every_plot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    run = _busy_run()
    points = run_points(run)
    rec = recommend(run, None)
    assert flag_mark("host busy") == " † host busy" and flag_mark("host busy", words=False) == "†" and flag_mark("ok") == ""
    # the table
    table = "\n".join(level_tables(points))
    assert f"`{DB}` † host busy" in table
    # throughput vs p99: the point's c= label and the pick's legend entry
    texts = _texts(monkeypatch, plots)
    drawn = plots.plot_metric(
        points, "throughput_infer_per_s", "infer/s", "TP", tmp_path / "tp.png", x_metric="latency_p99_ms", rec=rec
    )
    assert "c=16†" in texts  # drawn without the mark before: it used perf_analyzer's stability only
    panel = drawn["TP — client batch size 1"]
    pick = rec.best_peak
    assert pick is not None and pick.status == "host busy"  # the 900 infer/s beats the stable 600 beyond its spread
    what = "best peak throughput" if pick.unreached is None else "best measured throughput"
    assert f"{what}: {pick.variant} c={pick.concurrency}{flag_mark(pick.status)}" in panel
    # the Pareto plot: the frontier label
    texts = _texts(monkeypatch, plot_frontier)
    failed = frozenset({"mlp_onnx_cpu2_db500_mbs64"})  # its one huge level would dominate the frontier
    plot_frontier.plot_frontier(points, tmp_path / "f.png", rec, failed)
    front = operating_frontier(points, failed)
    busy = [p for p in front if p.status == "host busy"]
    assert busy and all(f"{p.variant} c={p.concurrency}†" in texts for p in busy)
    rows = frontier_rows(front, rec)
    assert any(str(r[0]).endswith("† host busy") for r in rows)


def test_the_pareto_plots_grey_points_carry_their_levels_mark(tmp_path: Path):
    """Every level of the Pareto plot in grey: the flagged ones in a series of their own whose
    legend carries the mark, read back from the artists; with every level host busy, one marked series."""
    run = _busy_run()
    points = run_points(run)
    failed = frozenset({"mlp_onnx_cpu2_db500_mbs64"})
    drawn = plot_frontier.plot_frontier(points, tmp_path / "f.png", recommend(run, None), failed)
    assert drawn is not None
    (panel,) = drawn.values()
    busy = [k for k in panel if k.startswith("levels (1 level of 1 variant) † host busy")]
    assert len(busy) == 1 and panel[busy[0]] == ([4.0], [900.0])  # the db500 c=16 level
    assert any(k.startswith("levels (") and "†" not in k for k in panel)  # the others, unmarked
    for v in run.variants:
        for lv in v.levels:
            lv.host_busy, lv.host_busy_pct = True, 90.0
    drawn = plot_frontier.plot_frontier(run_points(run), tmp_path / "g.png", recommend(run, None), failed)
    assert drawn is not None
    (panel,) = drawn.values()
    assert [k for k in panel if k.startswith("every level")] == ["every level (15 levels of 3 variants) † host busy"]
