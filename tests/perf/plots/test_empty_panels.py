"""Trial 21, T21-3: a panel whose every point is left out says so in words and has no number axes.

The demo's serving_efficiency.png drew its left panel empty (all 28 levels served faster than
in-process: not evidence) with the x ticks 1, 4 and 16 piled on one another at its right edge; a
batch size's panel of a metric no level of it has drew the same empty frame. Read back from the
matplotlib artists."""

from __future__ import annotations

from pathlib import Path

from efficiency_runs import efficiency_run
from factories import levels, make_run

from perf.analysis.efficiency import efficiency_rows
from perf.analysis.stats.points import run_points
from perf.plots import efficiency as plot_efficiency
from perf.plots import figures as plots
from perf.plots.empty import NOTHING_DRAWN, empty_words, has_data
from perf.report.layout import Part, fit
from perf.report.sections.baseline_unusable import unusable_lines


def _ticks_shown(ax) -> list[str]:
    """The tick labels ``ax`` draws on either axis (after a draw)."""
    ticks = [*ax.get_xticklabels(), *ax.get_yticklabels()]
    return [t.get_text() for t in ticks if t.get_visible() and t.get_text()]


def test_an_efficiency_panel_with_every_level_left_out_says_so(tmp_path: Path, keep_figures) -> None:
    figures = keep_figures(plot_efficiency)
    drawn = plot_efficiency.write_plot(efficiency_rows(efficiency_run(3, faster=3)), tmp_path / "e.png")
    assert drawn is not None and list(drawn[plot_efficiency.RATIO_TITLE]) == [
        plot_efficiency.no_ratio_words(6, 6, "served compute infer below in-process")
    ]
    (fig,) = figures
    fig.canvas.draw()
    ratio, times = fig.axes
    assert not has_data(ratio) and has_data(times)
    assert _ticks_shown(ratio) == []  # the old panel: 1 and 4 on a log2 axis of no data, 0.96..1.04 around 1.0
    words = empty_words(ratio)
    assert words is not None and "all 6 levels with an in-process point were served faster than in-process" in words
    assert not [line for line in ratio.get_lines() if line.get_visible()]  # no reference line left to refer to nothing
    assert _ticks_shown(times)


def test_a_panel_with_some_levels_shown_keeps_its_axes(tmp_path: Path, keep_figures) -> None:
    figures = keep_figures(plot_efficiency)
    plot_efficiency.write_plot(efficiency_rows(efficiency_run(3, faster=1)), tmp_path / "e.png")
    (fig,) = figures
    fig.canvas.draw()
    ratio = fig.axes[0]
    assert has_data(ratio) and empty_words(ratio) is None
    assert {"1", "4"} <= set(_ticks_shown(ratio))


def test_a_batch_size_panel_without_the_metric_says_so(tmp_path: Path, kept_figures) -> None:
    """Every plot is saved through perf.plots.ticks.save, which blanks any panel with no data."""
    run = make_run()
    b4 = levels([300, 600], [2.0, 2.6], batch=[4, 7])
    for lv in b4:
        lv.batch_size, lv.latency_p99_ms = 4, None
    run.variants[1].levels += b4
    plots.plot_metric(run_points(run), "latency_p99_ms", "ms", "P", tmp_path / "p.png", latency_budget_ms=3.0)
    (fig,) = kept_figures
    fig.canvas.draw()
    one, four = fig.axes
    assert has_data(one) and empty_words(one) is None and _ticks_shown(one)
    assert not has_data(four) and empty_words(four) == NOTHING_DRAWN
    assert _ticks_shown(four) == []


def test_the_unusable_baseline_line_stays_in_the_report_when_its_section_moves(tmp_path: Path) -> None:
    run = efficiency_run(2, faster=2)
    line = unusable_lines(run, tmp_path / "r")[0]
    assert line.startswith("**The in-process baseline is unusable here.** All 4 levels with an in-process point were")
    assert f"`triton-perf baseline {tmp_path / 'r'} --replace` on a quiet host" in line
    assert unusable_lines(efficiency_run(2, faster=1), tmp_path / "r") == []  # one variant's ratios are evidence
    lines = ["## Serving efficiency", "", line, "", *["x"] * 20]
    section = Part(lines, detail=True, kept=unusable_lines(run, tmp_path / "r"))  # as perf.report.write builds it
    report, moved = fit([Part(["# R"] * 5), section], limit=10)
    assert line in report and "## Serving efficiency" in report and moved[2] == line


def test_report_md_keeps_the_unusable_line_it_built_not_one_found_in_the_section(tmp_path: Path, monkeypatch) -> None:
    """Review r18a: write_report found the line by scanning the rendered section for its prefix; it passes the
    lines unusable_lines built to the section and to the Part that keeps them."""
    from perf.records import results
    from perf.report import write

    monkeypatch.setattr(plots, "write_plots", lambda *a, **k: {})
    seen: list[list[Part]] = []
    monkeypatch.setattr(write, "fit", lambda parts, *a, **k: (seen.append(list(parts)), fit(parts, *a, **k))[1])
    run = efficiency_run(2, faster=2)
    results.save(run, tmp_path)
    write.write_report(tmp_path)
    parts = seen[-1]  # the final fit (write_report sizes the level tables with one before it, bfd2f68's T23-5)
    (eff,) = [p for p in parts if p.lines[:1] == ["## Serving efficiency"]]
    assert eff.kept == unusable_lines(run, tmp_path) and eff.kept[0] in eff.lines
