"""The serving-efficiency plot's legends sit outside the data (trial 9 F38: the right panel's legend,
at its lower right, hid the compute-output and client-recv segments of the two bottom bars)."""

from __future__ import annotations

from pathlib import Path

from efficiency_runs import efficiency_run as _run

from perf.analysis.efficiency import efficiency_rows
from perf.plots import efficiency as plot_efficiency


def test_no_legend_covers_a_bar_or_a_point(tmp_path: Path, keep_figures) -> None:
    figures = keep_figures(plot_efficiency)
    assert plot_efficiency.write_plot(efficiency_rows(_run(8)), tmp_path / "e.png") is not None
    (fig,) = figures
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        legend = ax.get_legend().get_window_extent(renderer)
        bars = [p.get_window_extent(renderer) for p in ax.patches if p.get_width() > 0 and p.get_height() > 0]
        points = [
            (x, y)
            for line in ax.get_lines()
            for x, y in ax.transData.transform(list(zip(line.get_xdata(), line.get_ydata(), strict=True)))
        ]
        assert not [b for b in bars if b.overlaps(legend)], ax.get_title()
        assert not [pt for pt in points if legend.contains(*pt)], ax.get_title()
        assert not ax.xaxis.label.get_window_extent(renderer).overlaps(legend)


def test_the_two_legends_stay_apart_and_no_swatch_repeats(tmp_path: Path, keep_figures) -> None:
    """Trial 17, T17-8: the left legend's "served faster" note ran into the right legend, and the
    negative-overhead note's empty bar showed the default blue of "network + protocol"."""
    figures = keep_figures(plot_efficiency)
    assert plot_efficiency.write_plot(efficiency_rows(_run(3, faster=1)), tmp_path / "e.png") is not None
    (fig,) = figures
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    left, right = (ax.get_legend() for ax in fig.axes)
    assert any("served compute infer below" in t.get_text() for t in left.get_texts())
    assert any("negative overhead" in t.get_text() for t in right.get_texts())
    assert not left.get_window_extent(renderer).overlaps(right.get_window_extent(renderer))
    for legend in (left, right):
        assert fig.bbox.contains(*legend.get_window_extent(renderer).p0)
        assert fig.bbox.contains(*legend.get_window_extent(renderer).p1)
    for ax in fig.axes:  # a swatch is its grey and hatch (perf.plots.palette.COMPONENT_LOOKS)
        looks = [
            (tuple(h.get_facecolor()), h.get_hatch())
            for h in ax.get_legend().legend_handles
            if hasattr(h, "get_width") and h.get_visible()
        ]
        assert len(looks) == len(set(looks)), ax.get_title()
