"""One series, one colour, in every plot of a run, and each pick in its series' colour (trial 15, T15-4): with
``--shapes T=16,128`` throughput_vs_p99.png drew T=16 blue and T=128 orange, pareto_frontier.png drew the
T=16 frontier gold and the T=128 one blue; the picks of both sizes were the same black star and cross on
top of each other, four legend entries no reader could match to a mark, two ``c=4†`` labels beside them.
Read back from the matplotlib artists of the report's own plots (:func:`perf.plots.figures.write_plots`)
and from the plotly page."""

from __future__ import annotations

from pathlib import Path

from matplotlib.colors import to_hex
from matplotlib.container import ErrorbarContainer
from synthetic_runs import GRID_48, synthetic_run, with_baseline, with_shapes

from perf.analysis.recommendation.frontier import operating_frontier, workload_recommendations
from perf.analysis.recommendation.recommend import recommend
from perf.analysis.stats.points import P99, THROUGHPUT, run_points
from perf.plots import figures as plots
from perf.plots.palette import ink
from perf.plots.picks import pick_points
from perf.plots.styles import styles
from perf.records.workloads import split_by_workload, workload

#: One variant at two input sizes that measure almost alike (trial 15: both picks at c=4, 4.00 and 4.15 ms).
GRID_1 = {"formats": ("onnx",), "counts": (1,), "delays": (None,), "mbs": (64,)}
GRID_2 = {**GRID_1, "formats": ("onnx", "torchscript")}
BUDGET_MS = 100.0


def _run(grid: dict = GRID_1, cost: float = 0.005):
    return split_by_workload(with_shapes(synthetic_run(grid, concurrency=(1, 2, 4, 8)), cost=cost))


def _axes(kept_figures: list, start: str):
    (ax,) = [ax for fig in kept_figures for ax in fig.axes if ax.get_title().startswith(start)]
    return ax


def _curve_colours(ax) -> dict[str, str]:
    """Each series' curve colour in a curves plot: ``{series: hex}``."""
    return {c.get_label(): to_hex(c.lines[0].get_color()) for c in ax.containers if isinstance(c, ErrorbarContainer)}


def _picks(ax) -> dict[str, str]:
    """The picks' marks of a panel: ``{legend label: edge colour}``."""
    return {ln.get_label(): to_hex(ln.get_markeredgecolor()) for ln in ax.get_lines() if ln.get_label().startswith("best ")}


def test_a_series_has_one_colour_in_every_plot_and_each_pick_its_series_colour(tmp_path: Path, kept_figures: list):
    run = _run()
    rec = recommend(run, BUDGET_MS)
    per = workload_recommendations(run, rec)
    assert list(per) == ["T=16", "T=128"]
    plots.write_plots(run, tmp_path, latency_budget_ms=BUDGET_MS, rec=rec)
    trade = _axes(kept_figures, "Throughput vs p99 latency")
    front = _axes(kept_figures, "Pareto frontier")
    colour = _curve_colours(trade)
    assert len(set(colour.values())) == len(colour) == 2  # one per workload's series
    for title in ("Throughput vs concurrency", "p99 latency vs concurrency"):
        assert _curve_colours(_axes(kept_figures, title)) == colour
    # the frontier's points: each level in its series' colour (before: the frontier's own, T=16 gold, T=128 blue)
    points = {n: pts for n, pts in run_points(run).items()}
    on_front = operating_frontier(points, frozenset(), P99)
    assert {p.variant for p in on_front} == set(colour)
    for p in on_front:
        at = (p.value(P99), p.value(THROUGHPUT))
        drawn = [
            to_hex(ln.get_color())
            for ln in front.get_lines()
            if ln.get_marker() not in ("None", "none", "")
            and not ln.get_label().startswith(("best ", "every level", "levels"))
            and at in zip(ln.get_xdata(), ln.get_ydata())
        ]
        assert drawn == [colour[p.variant]], (p.variant, p.concurrency, drawn)
    # each pick's mark in its series' colour, its legend entry naming its series (so its workload)
    picks = pick_points(rec, per)
    assert {workload(run.variant(p.choice.variant)) for p in picks} == {"T=16", "T=128"}
    for ax in (trade, front, _axes(kept_figures, "Throughput vs concurrency")):
        marks = _picks(ax)
        assert len(marks) == len(picks)
        for p in picks:
            (label,) = [k for k in marks if k.startswith(p.label)]
            assert f"[{workload(run.variant(p.choice.variant))}]" in label
            assert marks[label] == colour[p.choice.variant]
    # two labels alike ("c=4†" of either size) each in its series' colour, at a point of that series
    texts = [t for t in trade.texts if t.get_text().startswith("c=")]
    xy = {n: {(x, y) for x, y in zip(*c.lines[0].get_data())} for c in trade.containers if (n := c.get_label()) in colour}
    for t in texts:
        (owner,) = [n for n, pts in xy.items() if tuple(t.xy) in pts]
        assert to_hex(t.get_color()) == ink(colour[owner])
    assert {t.get_text() for t in texts if t.get_text().startswith("c=4")} and len({to_hex(t.get_color()) for t in texts}) == 2


def test_the_html_page_draws_each_series_and_pick_in_the_png_colour(tmp_path: Path, kept_figures: list):
    from perf.report.html import figures as html_figures

    run = _run(GRID_2, 0.5)
    rec = recommend(run, 60.0)
    plots.write_plots(run, tmp_path, latency_budget_ms=60.0, rec=rec)
    colour = _curve_colours(_axes(kept_figures, "Throughput vs concurrency"))
    trade, lines = html_figures(run, rec)
    assert {t.name: t.line.color for t in lines.data} == colour
    for t in trade.data:
        if t.name.startswith("Pareto frontier"):
            assert list(t.marker.color) == [colour[n] for n in (h.split("</b>")[0].removeprefix("<b>") for h in t.text)]
        if t.name.startswith("best "):
            (series,) = [n for n in colour if f": {n} c=" in t.name]
            assert t.marker.color == colour[series]


def test_a_what_if_budget_keeps_every_series_look():
    """A what-if report (a p95 budget: another frontier, so other highlighted series in a large run) draws
    each series as the run's own report does: the looks depend on the run only."""
    run = synthetic_run(GRID_48, (1, 2, 4, 8))
    pts = run_points(run)
    own, what_if = styles(pts, recommend(run, 25.0), run=run), styles(pts, recommend(run, 25.0, latency_percentile=95), run=run)
    both = set(own) & set(what_if)
    assert set(own) != set(what_if) and len(both) > 10
    assert {n: own[n] for n in both} == {n: what_if[n] for n in both}


def test_serving_efficiency_draws_each_series_in_its_curves_colour(tmp_path: Path, keep_figures):
    from perf.plots import canvas, efficiency
    from perf.report.sections.efficiency import efficiency_section

    """A run of more series than get a look each: the plot's top 10 by served throughput, in the run's order,
    were coloured by their place in it, the curves by peak throughput."""
    run = with_baseline(synthetic_run(GRID_48, concurrency=(1, 2, 4, 8)))
    kept = keep_figures(canvas)
    keep_figures(efficiency)
    plots.write_plots(run, tmp_path, latency_budget_ms=40.0, rec=recommend(run, 40.0))
    efficiency_section(run, tmp_path, tmp_path)
    colour = _curve_colours(_axes(kept, "Throughput vs concurrency"))
    ratio = _axes(kept, efficiency.RATIO_TITLE)
    drawn = {ln.get_label(): to_hex(ln.get_color()) for ln in ratio.get_lines() if ln.get_label() in colour}
    assert len(drawn) > 2 and drawn == {n: colour[n] for n in drawn}
