"""One number style per plot axis (trial 25, T25-15: latency_breakdown.png's x axis read
``0  5,000  10k  15k  20k``: the ticks below 10,000 written out, those from it short). Read back
from the artists of the saved figures."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import make_run

from perf.analysis.stats.points import run_points
from perf.plots import bars as plot_bars
from perf.plots import canvas as plot_canvas
from perf.plots.ticks import axis_texts, concurrency_axis, label_numbers


def _shown(ax, axis: str) -> list[str]:
    """The major tick labels drawn inside the axis' limits."""
    ax.figure.canvas.draw()
    lo, hi = sorted(ax.get_ylim() if axis == "y" else ax.get_xlim())
    ticks = (ax.yaxis if axis == "y" else ax.xaxis).get_major_ticks()
    return [t.label1.get_text() for t in ticks if t.label1.get_text() and lo <= t.get_loc() <= hi]


def _styles(labels: list[str]) -> set[str]:
    """The styles of ``labels``' numbers from 1,000: "short" (``5k``) or "written" (``5,000``)."""
    short = {label for label in labels if label[-1:] in ("k", "M", "G", "T")}
    written = {label for label in labels if label not in short and float(label.replace(",", "")) >= 1000}
    return ({"short"} if short else set()) | ({"written"} if written else set())


def test_the_breakdown_bars_axis_in_tens_of_thousands_is_in_one_style(tmp_path: Path, keep_figures) -> None:
    figures = keep_figures(plot_bars)
    run = make_run()
    for v in run.variants:
        for lv in v.levels:
            lv.server_compute_infer_us = (lv.server_compute_infer_us or 0) * 6  # up to ~30,000 µs, as the trial's
    plot_bars.plot_breakdown(run_points(run), tmp_path / "b.png")
    (fig,) = figures
    (ax,) = fig.axes
    labels = _shown(ax, "x")
    assert any(label.endswith("k") for label in labels), labels
    assert _styles(labels) == {"short"}, labels  # 0, 5k, 10k ..., not 5,000 beside 10k


@pytest.mark.parametrize(
    ("values", "texts"),
    [
        ([0, 5_000, 10_000, 15_000], ["0", "5k", "10k", "15k"]),
        ([0, 2_500, 5_000, 7_500], ["0", "2,500", "5,000", "7,500"]),
        ([100, 1_000, 10_000, 100_000], ["100", "1k", "10k", "100k"]),
        ([0.5, 1, 1.5], ["0.5", "1", "1.5"]),
    ],
)
def test_an_axis_ticks_are_labelled_together(values: list[float], texts: list[str]) -> None:
    assert axis_texts(values) == texts


def test_every_kind_of_number_axis_keeps_one_style() -> None:
    """A linear axis, a log10 axis and a concurrency (log2) axis, each across 10,000."""
    plt = plot_canvas.pyplot()
    fig, (lin, log, conc) = plt.subplots(1, 3)
    try:
        lin.plot([0, 31_000], [0, 1])
        log.plot([1, 2], [50, 50_000])
        log.set_yscale("log")
        concurrency_axis(conc, [1, 64, 512, 2048, 8192, 16384])
        label_numbers(fig)
        for ax, axis in ((lin, "x"), (log, "y"), (conc, "x")):
            labels = _shown(ax, axis)
            assert labels and _styles(labels) == {"short"}, (axis, labels)
    finally:
        plt.close(fig)
