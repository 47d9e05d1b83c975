"""PNG plots of one sweep (matplotlib, Agg backend, imported lazily).

Every curve plot has one panel per client batch size (titled with it), so each measured
level, the recommended one included, appears in a panel. Curves use each variant's medians
over trials, with min–max error bars where a level has several trials and a ring around
flagged levels (unstable, host busy). Each highlighted variant has its own colour, marker
and line style (:mod:`perf.plots.styles`: every variant up to 10, beyond that the top N by
peak throughput, the Pareto frontier and the recommended ones); the others are faint grey
context. Request-rate levels get their own plot, achieved against offered rate, with the
``not achieved`` ones crossed out. The recommended levels (best within the latency budget, at the
budget's percentile; best peak) of every client workload are starred, at the numbers the tables give them,
each in its series' colour (:mod:`perf.plots.picks`; a series has one look in every plot of a run,
:func:`perf.plots.styles.series_looks`, and its ``c=`` labels are in its colour too); with a budget that no level meets, the level that came closest is marked
and named in the legend (:class:`perf.analysis.recommendation.missed.Missed`: the lowest latency at the
budget's percentile, as the budget judged it). ``c=`` labels of trade-off plots are placed where they overlap no other
label (:func:`perf.plots.canvas.place_labels`); one that fits nowhere is left out and the
legend says how many. A metric that is null at a level is left out of the curve at that
level — never drawn as 0; a utilisation panel exists only for a metric the run recorded.
The frontier plot is in :mod:`perf.plots.frontier`, the small multiples in :mod:`perf.plots.small_multiples`, the latency
breakdown bars and the request-rate plot in :mod:`perf.plots.bars`.

Every ``plot_*`` function returns what it drew, read back from the matplotlib artists:
``{panel title: {curve label: (xs, ys)}}``, so tests can check the picture's data.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

from core.units import throughput_label
from core.wording import count
from perf.analysis.recommendation.frontier import workload_recommendations
from perf.analysis.recommendation.recommend import Recommendation, recommend
from perf.analysis.stats.curves import curve, gpu_metric
from perf.analysis.stats.points import THROUGHPUT, Point, run_points
from perf.markdown import CPU_MEASURES, TOP_N, flag_mark, fmt_given
from perf.plots import bars as plot_bars
from perf.plots import frontier as plot_frontier
from perf.plots import small_multiples
from perf.plots.canvas import (
    Drawn,
    batch_sizes,
    finish,
    joined_lines,
    log_scale_if_wide,
    panel_title,
    panels,
    place_labels,
    ring_flagged,
    series_linestyle,
)
from perf.plots.palette import REFERENCE
from perf.plots.picks import LOWEST, Pick, draw_pick, judged_latency, pick_colour, pick_points
from perf.plots.styles import ALL_DISTINCT, GREY, Style, series_looks, styles
from perf.plots.ticks import concurrency_axis
from perf.records.results import RunResult

log = logging.getLogger(__name__)


def _series(points: Sequence[Point], metric: str, x_metric: str | None, batch_size: int) -> list[tuple[float, float, Point]]:
    """(x, median, point) of the non-null ``metric`` values along the variant's curve at
    ``batch_size``; x is the concurrency, or the ``x_metric`` median."""
    out = []
    for p in curve(points, batch_size):
        y = p.get(metric)
        x = p.concurrency if x_metric is None else p.get(x_metric)
        if y is not None and x is not None:
            out.append((x, y, p))
    return out


def _draw_curves(
    ax,
    points: dict[str, list[Point]],
    metric: str,
    x_metric: str | None,
    failed: frozenset[str],
    batch_size: int,
    looks: dict[str, Style],
) -> list[tuple[float, float, str, str]]:
    """One curve per variant at ``batch_size``: the ``looks`` variants in their style, the others
    faint grey without a legend entry of their own; returns the ``c=`` labels a trade-off plot
    needs (highlighted variants only), each with its series' colour."""
    unstable_labelled = False
    labels = []
    context: list[list[tuple[float, float]]] = []
    order = [n for n in looks if n in points] + [n for n in points if n not in looks]  # the legend in the looks' order
    for name in order:
        pts = points[name]
        series = _series(pts, metric, x_metric, batch_size)
        if not series:
            continue
        xs, ys = [x for x, _, _ in series], [y for _, y, _ in series]
        look = looks.get(name)
        if look is None:  # context: behind everything, no error bars, rings or labels
            context.append(list(zip(xs, ys)))
            continue
        bounds = [p.bounds(metric) for _, _, p in series]
        yerr = [[y - lo for (_, y, _), (lo, _) in zip(series, bounds)], [hi - y for (_, y, _), (_, hi) in zip(series, bounds)]]
        has_spread = any(e > 0 for row in yerr for e in row)
        line = ax.errorbar(
            xs,
            ys,
            yerr=yerr if has_spread else None,
            marker=look.marker,
            ms=5,
            capsize=3,
            color=look.colour,
            ls=series_linestyle(look.linestyle, xs),
            label=name + (" (failed)" if name in failed else ""),
            zorder=3,
        )
        bad = [(x, y) for x, y, p in series if p.status != "ok"]  # unstable or host busy
        if x_metric is not None and len(points) <= ALL_DISTINCT:  # a trade-off curve: say which concurrency each point is
            labels += [(x, y, f"c={p.concurrency}" + flag_mark(p.status, words=False), look.colour) for x, y, p in series]
        if bad:
            ring_flagged(ax, bad, line.lines[0].get_color(), not unstable_labelled, len(looks) > ALL_DISTINCT)
            unstable_labelled = True
    if context:  # one artist for all of them: 200 lines draw as fast as one
        from matplotlib.collections import LineCollection

        ax.add_collection(LineCollection(context, colors=GREY, linewidths=0.8, alpha=0.45, zorder=1))
        ax.autoscale_view()
        ax.plot([], [], color=GREY, lw=0.8, label=f"{count(len(context), 'other variant')}, grey (report tables, flat.csv)")
        ax.plot([], [], ls="none", label="in colour: the top by peak throughput, then frontier and picks")
    return labels


def _mark_picks(
    ax,
    points: dict[str, list[Point]],
    picks: Sequence[Pick],
    metric: str,
    x_metric: str | None,
    batch_size: int,
    lat: str,
    looks: Mapping[str, Style],
) -> None:
    """Mark the picks of this panel's batch size (:func:`perf.plots.picks.pick_points`: every client
    workload's, at the tables' numbers), each in its series' colour (``looks``; trial 15, T15-4: two
    workloads' picks were black marks on top of each other); the level closest to a budget no level meets
    on an axis of the budget's latency ``lat`` only. A mark at the budget's quieter-rounds latency is joined
    to its level's point on the curve by a thin dotted line."""
    for pick in picks:
        c = pick.choice
        if c.batch_size != batch_size or c.variant not in points or (pick.kind == LOWEST and lat not in (metric, x_metric)):
            continue
        x, y = pick.at(x_metric), pick.at(metric)
        if x is None or y is None:
            continue
        colour = pick_colour(pick, looks)
        draw_pick(ax, pick, x, y, colour)
        if pick.moved and pick.curve_ms is not None and lat in (metric, x_metric):
            curve_x = pick.curve_ms if x_metric == lat else x
            curve_y = pick.curve_ms if metric == lat else y
            ax.plot([curve_x, x], [curve_y, y], ls=":", lw=0.9, color=colour, zorder=4, label="_to its curve point")


def _concurrency_axis(ax, points: dict[str, list[Point]], batch_size: int) -> None:
    levels = {p.concurrency for pts in points.values() for p in curve(pts, batch_size)}
    concurrency_axis(ax, levels, "concurrency (outstanding requests)")


def plot_metric(
    points: dict[str, list[Point]],
    metric: str,
    ylabel: str,
    title: str,
    path: Path,
    x_metric: str | None = None,
    xlabel: str | None = None,
    failed: frozenset[str] = frozenset(),
    latency_budget_ms: float | None = None,
    rec: Recommendation | None = None,
    looks: dict[str, Style] | None = None,
    per_workload: Mapping[str, Recommendation] | None = None,
) -> Drawn:
    """One panel per client batch size, one curve per variant of ``metric`` against
    concurrency (log2 axis) or ``x_metric``.

    ``looks`` (:func:`perf.plots.styles.styles`) picks the highlighted variants and their
    style (default: every variant, each its look of :func:`perf.plots.styles.series_looks`); the rest are grey context.
    ``failed`` variants say so in the legend; the latency budget (ms) is drawn as a dotted line on an axis of
    the latency it is judged on (``rec``'s percentile, :func:`perf.plots.picks.judged_latency`); the recommended levels of every client workload (``per_workload``,
    :func:`perf.analysis.recommendation.frontier.workload_recommendations`; default: ``rec``'s) are starred in their
    batch size's panel (and the level closest to the budget marked when nothing meets it), at the tables'
    numbers (:func:`perf.plots.picks.pick_points`). Trade-off plots label each point
    ``c=N`` (``†`` when flagged, :func:`perf.markdown.flag_mark`: the tables' mark) without
    overlapping labels.
    """
    sizes, picks = batch_sizes(points), pick_points(rec, per_workload)
    lat, name = judged_latency(rec)
    looks = looks if looks is not None else series_looks(points, failed)
    fig, axes = panels(len(sizes))
    for ax, bs in zip(axes, sizes):
        ax.set_title(panel_title(title, bs))
        labels = _draw_curves(ax, points, metric, x_metric, failed, bs, looks)
        ax.set_ylabel(ylabel)
        if x_metric is None:
            _concurrency_axis(ax, points, bs)
            if metric == lat:  # one overloaded level would otherwise squash the budget's region
                log_scale_if_wide(ax, [y for pts in points.values() for _, y, _ in _series(pts, metric, None, bs)], "y")
        else:
            log_scale_if_wide(ax, [x for pts in points.values() for x, _, _ in _series(pts, metric, x_metric, bs)])
        ax.set_xlabel(xlabel or ax.get_xlabel())
        if latency_budget_ms is not None and lat in (metric, x_metric):
            draw = ax.axvline if x_metric == lat else ax.axhline
            draw(latency_budget_ms, color=REFERENCE, ls=":", lw=1.2, label=f"{name} budget {fmt_given(latency_budget_ms, 0)} ms")
        _mark_picks(ax, points, picks, metric, x_metric, bs, lat, looks)
        if labels:
            place_labels(ax, labels, what="c= label", listed="the tables list every level", lines=joined_lines(ax))
    return finish(fig, axes, path)


def plot_utilisation(
    points: dict[str, list[Point]], path: Path, failed: frozenset[str] = frozenset(), looks: dict[str, Style] | None = None
) -> Drawn | None:
    """Host CPU (%), the server's own CPU (cores) and GPU utilisation (%) against
    concurrency: one panel per metric the run has and client batch size.

    Returns:
        What was drawn, or None (and no file) when the run has no utilisation metric.
    """
    gpu = gpu_metric(points)
    measures = [(m, f"{label} ({unit})", desc.replace("`", "")) for m, (label, unit, _, desc) in CPU_MEASURES.items()]
    measures += [(gpu, "GPU utilisation (%)", "")] if gpu else []
    measures = [(m, y, d) for m, y, d in measures if any(p.get(m) is not None for pts in points.values() for p in pts)]
    if not measures:
        return None
    rows = [(m, y, d, bs) for m, y, d in measures for bs in batch_sizes(points)]
    looks = looks if looks is not None else series_looks(points, failed)
    fig, axes = panels(len(rows), 4.0)
    for ax, (metric, ylabel, desc, bs) in zip(axes, rows):
        ax.set_title(panel_title(ylabel[0].upper() + ylabel[1:] + (f" — {desc}" if desc else ""), bs), fontsize=9)
        _draw_curves(ax, points, metric, None, failed, bs, looks)
        _concurrency_axis(ax, points, bs)
        ax.set_ylabel(ylabel)
        top = max((y for line in ax.get_lines() for y in line.get_ydata() if y == y), default=0.0)
        ax.set_ylim(bottom=0, top=max(ax.get_ylim()[1], top * 1.06))  # a point at 100 % is not cut by the frame
    return finish(fig, axes, path)


def write_plots(
    run: RunResult,
    out_dir: Path,
    breakdown_concurrency: int | None = None,
    latency_budget_ms: float | None = None,
    rec: Recommendation | None = None,
    top_n: int = TOP_N,
) -> dict[str, Path]:
    """Write every plot the run's data allows into ``out_dir``.

    Args:
        run: A loaded sweep.
        out_dir: Folder for the PNG files (the run folder).
        breakdown_concurrency: Concurrency of the breakdown bars (default: each variant's highest).
        latency_budget_ms: Latency budget (ms), on the run's percentile: the recommendation's when ``rec`` is
            not given (default: none).
        rec: The recommendation to mark (default: :func:`perf.analysis.recommendation.recommend.recommend` with
            ``latency_budget_ms``), with every other client workload's picks
            (:func:`perf.analysis.recommendation.frontier.workload_recommendations`). Its budget's percentile is the
            latency every plot draws, named in titles, axes and file names (``throughput_vs_p95.png``), and its
            budget is drawn as a line on them (trial 14, T14-7: a p95 view drew p99, no budget line).
        top_n: Variants highlighted by peak throughput in a run of more than
            :data:`perf.plots.styles.ALL_DISTINCT` (the frontier and the picks are added).

    Returns:
        ``{title: png path}`` in report order.
    """
    points = {n: pts for n, pts in run_points(run).items() if any(p.ok for p in pts)}
    out_dir = Path(out_dir)
    made: dict[str, Path] = {}
    failed = frozenset(v.name for v in run.variants if v.status == "failed")
    if plot_bars.plot_request_rates(run, out_dir / "request_rates.png") is not None:
        made["Achieved vs offered request rate"] = out_dir / "request_rates.png"
    if not points:
        log.warning("no measured concurrency level in run %s: no curves", run.run_id)
        return made
    rec = rec if rec is not None else recommend(run, latency_budget_ms)
    per_workload = workload_recommendations(run, rec)  # every workload's picks, marked in every plot
    looks = styles(points, rec, failed, top_n, per_workload, run)
    if plot_frontier.plot_frontier(points, out_dir / "pareto_frontier.png", rec, failed, per_workload, looks) is not None:
        made["Pareto frontier"] = out_dir / "pareto_frontier.png"
    lat, name = judged_latency(rec)  # the latency the budget is judged on: every plot's
    thr = throughput_label(p.batch_size for pts in points.values() for p in pts)  # what infer/s counts (T23-15)
    specs = [
        ("Throughput vs concurrency", "throughput_vs_concurrency.png", THROUGHPUT, thr, None),
        (f"{name} latency vs concurrency", f"{name}_vs_concurrency.png", lat, f"client {name} latency (ms)", None),
        (f"Throughput vs {name} latency", f"throughput_vs_{name}.png", THROUGHPUT, thr, lat),
    ]
    for title, file, metric, ylabel, x_metric in specs:
        plot_metric(
            points,
            metric,
            ylabel,
            title,
            out_dir / file,
            x_metric,
            f"client {name} latency (ms)" if x_metric else None,
            failed,
            rec.latency_budget_ms,
            rec,
            looks,
            per_workload,
        )
        made[title] = out_dir / file
    if small_multiples.plot_small_multiples(run, points, out_dir / "small_multiples.png", failed) is not None:
        made["Throughput by factor (small multiples)"] = out_dir / "small_multiples.png"
    if plot_utilisation(points, out_dir / "utilisation_vs_concurrency.png", failed, looks) is not None:
        made["Utilisation vs concurrency"] = out_dir / "utilisation_vs_concurrency.png"
    shown = {n: pts for n, pts in points.items() if n in looks}  # the bars of the highlighted variants
    if plot_bars.plot_breakdown(shown, out_dir / "latency_breakdown.png", breakdown_concurrency, failed) is not None:
        made["Server latency breakdown"] = out_dir / "latency_breakdown.png"
    return made
