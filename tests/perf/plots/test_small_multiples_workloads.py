"""small_multiples.png draws every client workload (review of trial 11, F20): with ``--batch-sizes 1,8``
it drew the lowest client batch size alone (a b=8 workload got no line and no word), and a shape
sweep's input sizes were pooled into one line's median, a number no workload had. Now one row of
panels per workload (:func:`perf.plots.small_multiples.workload_rows`), each line its workload's series
only. Read back from the matplotlib artists of the figure the plot closes."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import level_result, params, run_result, variant_result

from perf.analysis.stats.curves import curve
from perf.analysis.stats.points import THROUGHPUT, run_points
from perf.plots import small_multiples
from perf.records.workloads import split_by_workload, workload

GRID = [params(count, db, model="tabular") for count in (1, 2) for db in (False, True)]


def _run(workloads: list[tuple[str | None, int]]):
    """Every variant of :data:`GRID` at each ``(shape, batch size)``, each workload's throughput its own
    (b=8 and the larger size far from b=1's)."""
    variants = []
    for i, p in enumerate(GRID):
        levels = [
            level_result(c, (100.0 + 10 * i) * c * (w + 1) * b, 2.0 * c, batch_size=b, shape=shape)
            for w, (shape, b) in enumerate(workloads)
            for c in (1, 2, 4)
        ]
        variants.append(variant_result(params=p, levels=levels))
    return split_by_workload(run_result(variants, settings={"batch_sizes": sorted({b for _, b in workloads})}))


@pytest.mark.parametrize("workloads", [[(None, 1), (None, 8)], [("ncat=1", 1), ("ncat=32", 1)]], ids=["batch sizes", "shapes"])
def test_every_workload_gets_its_row_of_panels_and_a_line_never_pools_two(tmp_path: Path, keep_figures, workloads) -> None:
    figures = keep_figures(small_multiples)
    run = _run(workloads)
    points = run_points(run)
    assert small_multiples.plot_small_multiples(run, points, tmp_path / "s.png") is not None
    (fig,) = figures
    drawn = {
        (ax.get_title().split("\n")[0], ln.get_label()): (list(map(float, ln.get_xdata())), list(map(float, ln.get_ydata())))
        for ax in fig.axes
        if ax.get_visible()
        for ln in ax.get_lines()
    }
    every = sorted(y for _, ys in drawn.values() for y in ys)
    assert every == sorted(q.value(THROUGHPUT) for pts in points.values() for q in pts)  # every level drawn once
    labels = {workload(v) for v in run.variants}
    assert len(labels) == 2
    for v in run.variants:  # one variant per (instances, batching): each line is that series' own curve
        p = v.params
        panel = f"{p['count']} instance{'s' if p['count'] > 1 else ''} — {workload(v)}"
        line = "queue delay 500 µs" if p["dynamic_batching"] else "batching off"
        own = curve(points[v.name])
        assert drawn[(panel, line)] == ([float(q.concurrency) for q in own], [q.value(THROUGHPUT) for q in own])
    title = fig.get_suptitle().replace("\n", " ")
    assert "one row of panels per client workload" in title and all(label in title for label in labels)
