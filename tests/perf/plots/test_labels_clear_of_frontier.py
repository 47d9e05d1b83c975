"""No frontier label is struck through by the frontier's staircase (trial 26, T26-7: in mix1's pareto_frontier.png
the pick's label "audionet_onnx_cpu2_nodb_mbs8 [time=1600..16000 (mixed)] c=4†" sat on the horizontal step to c=16,
3 % higher at 4× the latency, and the line ran through it). Read back from the matplotlib artists: each label's box
against the staircase as drawn (steps-post, in display coordinates)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from factories import level_result, params, run_result, variant_result
from matplotlib.cbook import STEP_LOOKUP_MAP
from matplotlib.path import Path as MplPath

from perf.analysis.recommendation.recommend import recommend
from perf.analysis.stats.points import run_points
from perf.plots import frontier as plot_frontier

NODB, DB = "audionet_onnx_cpu2_nodb_mbs8", "audionet_onnx_cpu2_db500_mbs8"
#: Variant -> (concurrency, infer/s, p99 ms): mix1's medians, c=16 3 % above c=4 at 4x its p99.
LEVELS = {
    NODB: ((1, 1180.0, 2.1), (4, 2698.2, 4.4), (16, 2776.8, 17.6)),
    DB: ((1, 1010.0, 2.9), (4, 2350.0, 6.0), (16, 2528.7, 19.0)),
}


def _run():
    variants = [
        variant_result(
            name,
            [level_result(c, thr, p99, spread=True) for c, thr, p99 in lv],
            params=params(2, name == DB, model="audionet", max_batch_size=8),
        )
        for name, lv in LEVELS.items()
    ]
    return run_result(variants)


def _drawn(ax, line) -> MplPath:
    """A line as drawn: its points in display pixels, the steps its drawstyle puts between them."""
    xy = line.get_transform().transform(np.column_stack([line.get_xdata(), line.get_ydata()]))
    return MplPath(np.column_stack(STEP_LOOKUP_MAP[line.get_drawstyle()](xy[:, 0], xy[:, 1])))


def _staircases(ax) -> list[MplPath]:
    """Each frontier line as drawn."""
    return [_drawn(ax, ln) for ln in ax.get_lines() if str(ln.get_label()).startswith("Pareto frontier")]


def test_no_frontier_label_is_struck_through_by_the_staircase(tmp_path: Path, kept_figures: list) -> None:
    run = _run()
    rec = recommend(run, 10.0)  # c=16 over it: c=4 the pick, as in mix1
    assert rec.best_under_budget is not None and (rec.best_under_budget.variant, rec.best_under_budget.concurrency) == (NODB, 4)
    plot_frontier.plot_frontier(run_points(run), tmp_path / "f.png", rec)
    (fig,) = kept_figures
    (ax,) = fig.axes
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    labels = [t for t in ax.texts if " c=" in t.get_text()]
    assert {t.get_text().rstrip("†") for t in labels} >= {f"{NODB} c=4", f"{NODB} c=16"}  # every frontier level labelled
    stairs = _staircases(ax)
    assert stairs
    for t in labels:
        box = t.get_window_extent(renderer)
        assert not any(s.intersects_bbox(box, filled=False) for s in stairs), t.get_text()


def test_no_c_label_of_a_trade_off_plot_is_struck_through_by_a_curve(tmp_path: Path, kept_figures: list) -> None:
    """The same rule in throughput_vs_p99.png: a ``c=`` label never lies across a curve where it fits elsewhere."""
    from perf.analysis.stats.points import THROUGHPUT
    from perf.plots.figures import plot_metric

    run = _run()
    plot_metric(run_points(run), THROUGHPUT, "infer/s", "Throughput vs p99", tmp_path / "t.png", "latency_p99_ms", "p99")
    (fig,) = kept_figures
    (ax,) = fig.axes
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    curves = [_drawn(ax, ln) for ln in ax.get_lines() if ln.get_linestyle() not in ("None", "") and len(ln.get_xdata()) > 1]
    labels = [t for t in ax.texts if t.get_text().startswith("c=")]
    assert len(labels) == 6 and curves
    for t in labels:
        box = t.get_window_extent(renderer)
        assert not any(c.intersects_bbox(box, filled=False) for c in curves), t.get_text()
