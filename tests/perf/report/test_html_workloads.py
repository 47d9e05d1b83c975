"""report.html draws what the PNG plots draw, workload by workload (trial 11 review): its Pareto
frontier was one line through the levels of every client workload (``--batch-sizes 1,8``), stepping
from b=1's levels to b=8's, where pareto_frontier.png draws one per workload; and its throughput lines
took each series' smallest client batch size only, so a series measured at b=1 and b=8 lost its b=8
levels. Read back from the page's plotly data and the PNG's matplotlib artists."""

from __future__ import annotations

from pathlib import Path

from factories import level_result, params, run_result, variant_result

from perf.analysis.recommendation.recommend import recommend
from perf.analysis.stats.points import run_points
from perf.plots import frontier as plot_frontier
from perf.records.workloads import split_by_workload
from perf.report.html import figures

A, B = params(1), params(2, True)
#: (variant params, client batch size) -> {concurrency: (infer/s, p99 ms)}: b=8 throughputs well above b=1's
SPEED = {
    (A["name"], 1): {1: (1000.0, 3.0), 2: (1900.0, 8.0)},
    (B["name"], 1): {1: (600.0, 4.0), 2: (2100.0, 9.0)},
    (A["name"], 8): {1: (3000.0, 6.0), 2: (4000.0, 14.0)},
    (B["name"], 8): {1: (6000.0, 7.0), 2: (7000.0, 12.0)},
}


def _run():
    variants = [
        variant_result(
            p["name"],
            [
                level_result(c, thr, p99, batch_size=b)
                for (name, b), levels in SPEED.items()
                if name == p["name"]
                for c, (thr, p99) in levels.items()
            ],
            params=p,
        )
        for p in (A, B)
    ]
    return run_result(variants, settings={"batch_sizes": [1, 8]}, finished="x")


def test_the_html_draws_one_frontier_per_workload_as_the_png_does(tmp_path: Path) -> None:
    run = split_by_workload(_run())
    rec = recommend(run)
    drawn = plot_frontier.plot_frontier(run_points(run), tmp_path / "f.png", rec)
    assert drawn is not None
    (panel,) = drawn.values()
    png = {k: v for k, v in panel.items() if k.startswith("Pareto frontier")}
    assert len(png) == 2  # b=1 and b=8
    trade = figures(run, rec)[0]
    html = {t.name: ([float(x) for x in t.x], [float(y) for y in t.y]) for t in trade.data if t.name.startswith("Pareto")}
    assert html == png  # the same lines, labels and points
    for name, (_, ys) in html.items():
        workload = name.split(" ")[3]  # "Pareto frontier at b=8 (...)"
        assert set(ys) <= {thr for (_, b), lv in SPEED.items() if f"b={b}" == workload for thr, _ in lv.values()}


def test_the_html_lines_keep_every_client_batch_size_of_a_series() -> None:
    run = _run()  # not split: one series holds both batch sizes
    lines = figures(run, recommend(run))[1]
    got = {t.name: ([int(x) for x in t.x], [float(y) for y in t.y]) for t in lines.data}
    want = {f"{name} (b={b})": (sorted(levels), [levels[c][0] for c in sorted(levels)]) for (name, b), levels in SPEED.items()}
    assert got == want
