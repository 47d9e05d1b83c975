"""Every legend entry of a plot has a mark beside it (trial 27, T27-16: pareto_frontier.png's "Pareto frontier (1
level of 1 variant): nothing beats them on both" had none: a one-level frontier is drawn with no line, and it had no
marker either). Read back from the matplotlib artists: each legend handle shows a line or a marker."""

from __future__ import annotations

from pathlib import Path

from factories import level_result, params, run_result, variant_result

from perf.analysis.recommendation.recommend import recommend
from perf.analysis.stats.points import run_points
from perf.plots import figures as plots
from perf.plots import frontier as plot_frontier


def _shows_something(handle) -> bool:
    line = handle.get_linestyle() not in ("None", "none", "", " ") if hasattr(handle, "get_linestyle") else True
    marker = handle.get_marker() not in ("None", "none", "", " ", None) if hasattr(handle, "get_marker") else True
    return line or marker


def _legend(fig) -> list[tuple[str, bool]]:
    """Each legend entry's text and whether the artist it stands for shows a line or a marker (an error bar series: its
    data line, which the legend's proxy draws the marker of apart)."""
    out = []
    for ax in fig.axes:
        if ax.get_legend() is None:
            continue
        for artist, label in zip(*ax.get_legend_handles_labels()):
            shown = artist.lines[0] if hasattr(artist, "lines") and isinstance(artist.lines, tuple) else artist
            out.append((" ".join(label.split()), _shows_something(shown)))
    return out


def _one_level_run():
    names = ("mlp_onnx_cpu1_nodb_mbs64", "mlp_onnx_cpu2_nodb_mbs64")
    variants = [
        variant_result(n, [level_result(4, thr, p99)], params={**params(i + 1, False), "name": n})
        for i, (n, thr, p99) in enumerate(zip(names, (500.0, 900.0), (9.0, 7.0)))
    ]
    return run_result(variants)


def test_a_one_level_frontier_has_a_mark_in_the_legend(tmp_path: Path, kept_figures: list) -> None:
    run = _one_level_run()
    assert plot_frontier.plot_frontier(run_points(run), tmp_path / "f.png", recommend(run, 25.0)) is not None
    (fig,) = kept_figures
    said = _legend(fig)
    assert ("Pareto frontier (1 level of 1 variant): nothing beats them on both", True) in said, said
    assert all(shows for _, shows in said), said


def test_every_legend_entry_of_a_one_level_runs_plots_has_a_mark(tmp_path: Path, kept_figures: list) -> None:
    run = _one_level_run()
    plots.plot_metric(run_points(run), "throughput_infer_per_s", "infer/s", "T", tmp_path / "t.png", rec=recommend(run, 25.0))
    plots.plot_metric(run_points(run), "latency_p99_ms", "ms", "p99", tmp_path / "p.png", latency_budget_ms=25.0)
    assert len(kept_figures) == 2
    for fig in kept_figures:
        said = _legend(fig)
        assert said and all(shows for _, shows in said), said
