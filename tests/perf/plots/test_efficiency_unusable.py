"""The plot and report.md decide "the in-process baseline is unusable here" once, on every row (review r18a).

The plot draws the top :data:`perf.markdown.TOP_N` variants' rows (perf.report.sections.efficiency_table.top_rows);
it decided from those alone, so it could call the baseline unusable where report.md did not, and its
"all N levels" counted the levels drawn, not the run's."""

from __future__ import annotations

from pathlib import Path

from efficiency_runs import efficiency_run

from perf.analysis.efficiency import UNUSABLE, baseline_unusable, efficiency_rows
from perf.plots import efficiency as plot_efficiency
from perf.report.sections.baseline_unusable import unusable_lines
from perf.report.sections.efficiency import efficiency_section


def _panel_words(figures) -> str:
    (fig,) = figures
    return " ".join(" ".join(t.get_text() for t in fig.axes[0].texts).split())  # the panel wraps its words


def test_the_plot_calls_the_baseline_unusable_only_where_report_md_does(tmp_path: Path, keep_figures) -> None:
    run = efficiency_run(12, faster=11)  # 24 rows: the plot draws the first 10 variants, all served faster
    assert baseline_unusable(efficiency_rows(run)) == 0 and unusable_lines(run, tmp_path) == []
    figures = keep_figures(plot_efficiency)
    text = "\n".join(efficiency_section(run, tmp_path, tmp_path))
    words = _panel_words(figures)
    assert "No level to show: the 20 levels drawn with an in-process point were served faster" in words
    assert UNUSABLE not in words and UNUSABLE not in text.lower()


def test_the_plot_counts_every_level_of_an_unusable_baseline(tmp_path: Path, keep_figures) -> None:
    run = efficiency_run(12, faster=12)
    assert baseline_unusable(efficiency_rows(run)) == 24
    figures = keep_figures(plot_efficiency)
    text = "\n".join(efficiency_section(run, tmp_path, tmp_path))
    words = _panel_words(figures)
    assert "all 24 levels with an in-process point were served faster" in words and UNUSABLE in words
    assert "**The in-process baseline is unusable here.** All 24 levels" in text
