"""Tick labels of every plot (reviewer, session 6): a log axis fell back to "1e+06" and a 6-decade
axis got 18 labels; a given budget of 1e-7 ms printed "0.000000". Read back from the artists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from factories import level_result, make_run, params, run_result, variant_result

from perf.analysis.stats.points import run_points
from perf.markdown import fmt_given
from perf.plots import figures as plots
from perf.plots.ticks import MAX_TICKS, thinned, tick_text

SCIENTIFIC = re.compile(r"\de[+-]?\d|\^|\$")


def _shown(ax, axis: str) -> list[str]:
    """The major tick labels drawn inside the axis' limits."""
    ax.figure.canvas.draw()
    lo, hi = sorted(ax.get_ylim() if axis == "y" else ax.get_xlim())
    ticks = ax.yaxis.get_major_ticks() if axis == "y" else ax.xaxis.get_major_ticks()
    return [t.label1.get_text() for t in ticks if t.label1.get_text() and lo <= t.get_loc() <= hi]


@pytest.mark.parametrize(
    ("value", "text"),
    [(0.002, "0.002"), (0.5, "0.5"), (20.0, "20"), (1500.0, "1,500"), (20_000.0, "20k"), (1.5e6, "1.5M"), (1e6, "1M"), (0, "0")],
)
def test_a_tick_label_is_a_plain_number(value: float, text: str) -> None:
    assert tick_text(value) == text


def test_a_six_decade_log_axis_has_plain_labels_and_at_most_one_per_decade(tmp_path: Path, kept_figures: list) -> None:
    p99 = [0.01, 0.1, 1.0, 100.0, 10_000.0]  # 6 decades
    run = run_result(
        [
            variant_result(
                params=params(1, False),
                levels=[level_result(c, 100.0 * c, p, batch_size=1, spread=True) for c, p in zip((1, 2, 4, 8, 16), p99)],
            )
        ]
    )
    plots.plot_metric(run_points(run), "latency_p99_ms", "ms", "p99", tmp_path / "p.png", latency_budget_ms=10.0)
    (fig,) = kept_figures
    (ax,) = fig.axes
    assert ax.get_yscale() == "log"
    labels = _shown(ax, "y")
    assert labels and not [t for t in labels if SCIENTIFIC.search(t)], labels
    assert len(labels) <= 7 and "1k" in labels and "10k" in labels, labels  # one per decade, one style (T25-15)


def test_a_throughput_axis_in_millions_has_no_offset_and_no_exponent(tmp_path: Path, kept_figures: list) -> None:
    run = make_run()
    for v in run.variants:
        for lv in v.levels:
            lv.throughput_infer_per_s = (lv.throughput_infer_per_s or 0) * 10_000  # up to ~1e7 infer/s
    plots.plot_metric(run_points(run), "throughput_infer_per_s", "infer/s", "T", tmp_path / "t.png")
    (ax,) = kept_figures[0].axes
    labels = _shown(ax, "y")
    assert labels and not [t for t in labels if SCIENTIFIC.search(t)], labels
    assert ax.yaxis.get_offset_text().get_text() == ""


def test_a_concurrency_axis_of_many_levels_is_thinned_to_a_bounded_count() -> None:
    levels = list(range(1, 65))
    shown = thinned(levels)
    assert len(shown) <= MAX_TICKS and shown == [1, 2, 4, 8, 16, 32, 64]
    odd = [3 * i for i in range(1, 40)]
    assert len(thinned(odd)) <= MAX_TICKS and thinned(odd)[-1] == odd[-1]


def test_every_plot_is_saved_through_the_one_rule() -> None:
    """No plot module calls savefig itself: :func:`perf.plots.ticks.save` labels the axes first."""
    root = Path(__file__).resolve().parents[3] / "perf" / "plots"
    calls = [p.name for p in root.glob("*.py") if "savefig(" in p.read_text() and p.name != "ticks.py"]
    assert calls == []


@pytest.mark.parametrize("value", [1e-7, 2.5e-9, 1.234567e-7, -3e-8])
def test_a_given_number_never_prints_as_zero(value: float) -> None:
    text = fmt_given(value)
    assert text.strip("-0.,") != "", text
    assert float(text.replace(",", "")) == pytest.approx(value, rel=1e-5)


def test_a_given_number_keeps_its_digits() -> None:
    assert (fmt_given(0.025), fmt_given(10.0), fmt_given(10.0, 0), fmt_given(1e6, 0)) == ("0.025", "10.00", "10", "1,000,000")


def test_a_given_budget_reads_as_given_in_the_plot_and_the_report_words(tmp_path: Path, kept_figures: list) -> None:
    """The same KIND in words: `:g` printed a given 1e-7 ms budget "1e-07" and 2,000,000 ms "2e+06"."""
    from perf.report.layout import what_if

    plots.plot_metric(run_points(make_run()), "latency_p99_ms", "ms", "p99", tmp_path / "p.png", latency_budget_ms=1e-7)
    (ax,) = kept_figures[0].axes
    legend = [" ".join(t.get_text().split()) for t in ax.get_legend().get_texts()]
    assert "p99 budget 0.0000001 ms" in legend, legend
    run = make_run()
    run.settings["latency_budget_ms"] = 2_000_000.0
    ((_, words),) = what_if(run, 1e-7, None)
    assert words == "p99 budget 0.0000001 ms instead of the run's 2,000,000 ms"


def test_a_value_rounding_up_across_a_unit_takes_the_next_unit() -> None:
    """Review: tick_text(999999) read "1,000k" and 9999.5 read "10,000" beside 10000's "10k"."""
    from perf.plots.ticks import tick_text

    assert tick_text(999_999) == tick_text(1e6) == "1M"
    assert tick_text(9_999.5) == tick_text(10_000) == "10k"
    assert tick_text(-999_999) == "-1M" and tick_text(0.0015) == "0.0015" and tick_text(1_500) == "1,500"
