"""Every plot marks every client workload's picks, at the tables' numbers (trial 11, F20): a sweep of
``--batch-sizes 1,8`` starred the first workload's pick only, the b=1 panel had none, and the star sat
at the pick's p99 over every round, right of the budget line, for a pick within the budget on its
quieter rounds (the number the tables and the recommendation say beside it). Read back from the
matplotlib artists of the report's own plots (:func:`perf.plots.figures.write_plots`) and from the
plotly page."""

from __future__ import annotations

from pathlib import Path

from factories import params

from perf.analysis.ranking.budget_latency import quieter_note, verdict_notes
from perf.analysis.recommendation.frontier import workload_recommendations
from perf.analysis.recommendation.recommend import recommend
from perf.analysis.stats.points import THROUGHPUT, run_points
from perf.markdown import flag_mark
from perf.plots import figures as plots
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundsRecord
from perf.records.workloads import split_by_workload, workload

BUDGET_MS = 10.0
BUSY = {0, 1, 2}  # rounds in which another process took the host: every p99 doubles
A, B = params(1), params(2, True)
#: (variant, client batch size) -> {concurrency: (infer/s, p99 ms on a quiet round)}: each batch size's pick is
#: within the budget on its quieter rounds only (its median over every round is over it).
SPEED = {
    ("A", 1): {1: (1000.0, 3.0), 2: (1900.0, 8.0)},
    ("B", 1): {1: (600.0, 4.0), 2: (1100.0, 6.0)},
    ("A", 8): {1: (3000.0, 6.0), 2: (4000.0, 14.0)},
    ("B", 8): {1: (6000.0, 7.0), 2: (7000.0, 12.0)},
}


def _variant(which: str) -> VariantResult:
    p = A if which == "A" else B
    levels = [
        LevelResult(
            c,
            b,
            r,
            throughput_infer_per_s=thr * (1 + r / 50),
            latency_p99_ms=p99 * (2.0 if r in BUSY else 1.0),
            host_busy_pct=180.0 if r in BUSY else 15.0 + r,
            host_busy=r in BUSY,
        )
        for b in (1, 8)
        for c, (thr, p99) in SPEED[which, b].items()
        for r in range(6)
    ]
    return VariantResult(p["name"], p, "ok", None, levels)


def _run() -> RunResult:
    run = RunResult("r", "now", {}, {"latency_budget_ms": BUDGET_MS, "batch_sizes": [1, 8]}, [_variant("A"), _variant("B")])
    run.rounds = RoundsRecord(seed=1)
    run.finished = "later"
    return split_by_workload(run)


def _stars(ax) -> list:
    """The best-under-budget marks of one panel (labelled star markers)."""
    return [ln for ln in ax.get_lines() if ln.get_marker() == "*" and not ln.get_label().startswith("_")]


def test_every_workload_gets_its_star_at_the_tables_numbers_left_of_the_budget_line(tmp_path: Path, kept_figures: list):
    run = _run()
    rec = recommend(run, BUDGET_MS)
    per = workload_recommendations(run, rec)
    assert list(per) == ["b=1", "b=8"]
    picks = {label: r.best_under_budget for label, r in per.items()}
    assert all(c is not None for c in picks.values())
    assert rec.best_under_budget in picks.values()  # the report's first pick stands at its own workload
    points = {n: {(q.batch_size, q.concurrency): q for q in pts} for n, pts in run_points(run).items()}
    notes = verdict_notes(run, 99, BUDGET_MS)  # what the level tables say beside a p99 the verdict did not use
    plots.write_plots(run, tmp_path, latency_budget_ms=BUDGET_MS, rec=rec)
    axes = {ax.get_title(): ax for fig in kept_figures for ax in fig.axes}
    for title in ("Throughput vs p99 latency", "p99 latency vs concurrency", "Throughput vs concurrency"):
        for label, c in picks.items():
            ax = axes[f"{title} — client batch size {c.batch_size}"]
            (star,) = _stars(ax)  # one per workload: its own panel (F20: the b=1 panel had none)
            assert star.get_label().startswith(f"best under p99 budget 10.00 ms: {c.variant} c={c.concurrency}")
            level = points[c.variant][(c.batch_size, c.concurrency)]
            assert workload(run.variant(c.variant)) == label
            assert flag_mark(level.status) and flag_mark(level.status) in star.get_label()  # the tables' † host busy
            note = notes[(c.variant, c.batch_size, c.concurrency)]  # the table's cell: the median, then this
            assert level.value("latency_p99_ms") > BUDGET_MS and note in star.get_label()
            (x,), (y,) = star.get_data()
            xs = {"Throughput vs p99 latency": x, "p99 latency vs concurrency": y}
            if title in xs:  # at the p99 the table's note gives, left of (below) the budget line
                assert note == quieter_note(99, xs[title]) and xs[title] <= BUDGET_MS
            if title != "p99 latency vs concurrency":
                assert y == level.value(THROUGHPUT)  # the table's throughput
            if title == "Throughput vs p99 latency":
                (budget,) = [ln for ln in ax.get_lines() if ln.get_label().startswith("p99 budget")]
                assert x < budget.get_xdata()[0]


def test_the_pareto_plot_and_the_html_page_mark_every_workloads_picks_at_the_same_points(tmp_path: Path, kept_figures: list):
    from perf.report.html import figures as html_figures

    run = _run()
    rec = recommend(run, BUDGET_MS)
    plots.write_plots(run, tmp_path, latency_budget_ms=BUDGET_MS, rec=rec)
    (front,) = [ax for fig in kept_figures for ax in fig.axes if ax.get_title().startswith("Pareto frontier")]
    marked = {ln.get_label(): tuple(float(v[0]) for v in ln.get_data()) for ln in _stars(front)}
    assert len(marked) == 2  # one per workload
    trade = html_figures(run, rec)[0]
    stars = {t.name: (float(t.x[0]), float(t.y[0])) for t in trade.data if t.marker.symbol == "star"}
    assert stars == marked  # the same labels (flag marks and notes) at the same numbers
    for r in workload_recommendations(run, rec).values():
        c = r.best_under_budget
        (label,) = [k for k in marked if k.split(": ", 1)[1].startswith(f"{c.variant} c={c.concurrency}")]
        assert marked[label][0] == r.budget_latency_ms <= BUDGET_MS and marked[label][1] == c.throughput_infer_per_s
