"""The Pareto frontier plot (:func:`plot_frontier`), the plot that scales to 200 variants with the small multiples
(:mod:`perf.plots.small_multiples`).

* :func:`plot_frontier`: throughput against the latency the budget is judged on (p99 unless the
  recommendation's percentile is another, :func:`perf.plots.picks.judged_latency`) of every level of every variant as light
  grey dots, the Pareto frontier on that latency (:func:`perf.analysis.recommendation.frontier.operating_frontier`) as a highlighted
  line, one per client workload (:func:`perf.analysis.recommendation.frontier.workload_frontiers`: swept input size,
  client batch size; a black staircase, its own line style: workloads are never compared), each of its
  points in its series' colour and marker (:func:`perf.plots.styles.series_looks`, the curves' own) and
  labelled ``variant c=N`` in that colour (labels never overlap each other or cover a point, nor lie across the staircase where they fit elsewhere), the recommended
  levels marked in their series' colour and the latency budget drawn (trial 15, T15-4: the frontiers took colours
  of their own, the reverse of the curves' for the same series, and the picks were black); a higher median than a
  pick's that its legend entry leaves unexplained is named in a note (:func:`perf.plots.picks.higher_words`; T17-17).

It returns what it drew (:data:`perf.plots.canvas.Drawn`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from core.units import throughput_label
from perf.analysis.recommendation.excluded import candidate
from perf.analysis.recommendation.frontier import levels_words, operating_frontier, workload_frontiers
from perf.analysis.recommendation.recommend import Recommendation
from perf.analysis.stats.points import THROUGHPUT, Point
from perf.markdown import flag_mark, fmt_given
from perf.plots.canvas import Drawn, finish, joined_lines, log_scale_if_wide, panels, place_labels, series_linestyle
from perf.plots.palette import BLACK, REFERENCE
from perf.plots.picks import LOWEST, draw_pick, higher_words, judged_latency, pick_colour, pick_points
from perf.plots.styles import GREY, LINESTYLES, Style, series_looks

#: The frontiers' colour (the PNG's and report.html's): no series' (a frontier runs through the points of
#: several series, each in its own colour; a frontier in a series colour read as that series).
FRONTIER_COLOUR = BLACK
#: The look of a frontier point whose series has none (past :data:`perf.plots.styles.MAX_STYLES` highlighted series).
CONTEXT_LOOK = Style(GREY, "o", "-")


def frontier_label(shape: str, own: list[Point]) -> str:
    """A workload's frontier (:func:`perf.analysis.recommendation.frontier.workload_frontiers`) in a legend, the PNG's and
    report.html's: ``"Pareto frontier at b=8 (3 levels of 2 variants): nothing at b=8 beats them on both"``."""
    if not shape:
        return f"Pareto frontier ({levels_words(own)}): nothing beats them on both"
    return f"Pareto frontier at {shape} ({levels_words(own, sizes=False)}): nothing at {shape} beats them on both"


def plot_frontier(
    points: dict[str, list[Point]],
    path: Path,
    rec: Recommendation | None = None,
    failed: frozenset[str] = frozenset(),
    per_workload: Mapping[str, Recommendation] | None = None,
    looks: Mapping[str, Style] | None = None,
) -> Drawn | None:
    """Every level in grey, the frontier highlighted and labelled, the picks of every client
    workload marked (``per_workload``, :func:`perf.plots.picks.pick_points`; default ``rec``'s) at
    the tables' numbers, the latency budget drawn; all on the latency ``rec``'s budget is judged on
    (:func:`perf.plots.picks.judged_latency`). A frontier point and a pick are in their series' look
    (``looks``, the other plots': default :func:`perf.plots.styles.series_looks`). None (no file) when
    no level can be ranked."""
    lat, name = judged_latency(rec)
    looks = looks if looks is not None else series_looks(points, failed)
    every = [p for n, pts in points.items() if n not in failed for p in pts if candidate(p) and p.get(lat) is not None]
    front = operating_frontier(points, failed, lat)
    if not front:
        return None
    fig, (ax,) = panels(1, 6.5)
    title = f"Pareto frontier: throughput vs {name}, every level of every variant"
    ax.set_title(title)
    by_status: dict[str, list[Point]] = {}
    for p in every:
        by_status.setdefault(p.flags, []).append(p)  # the tables' words: "host busy; unstable", not its worst flag
    for status, group in sorted(by_status.items(), key=lambda kv: (flag_mark(kv[0]) != "", kv[0])):
        flagged = flag_mark(status) != ""
        ax.plot(  # the tables' mark on each status's grey points; a flagged level drawn hollow
            [p.value(lat) for p in group],
            [p.value(THROUGHPUT) for p in group],
            ls="none",
            marker="o",
            ms=3.5,
            color=GREY,
            mfc="none" if flagged else GREY,
            alpha=0.6,
            label=f"{'every level' if len(by_status) == 1 else 'levels'} ({levels_words(group)}){flag_mark(status)}",
            zorder=1,
        )
    for i, (shape, own) in enumerate(workload_frontiers(front).items()):  # one per workload: never compared
        ls = series_linestyle(LINESTYLES[i % len(LINESTYLES)], [p.value(lat) for p in own])
        ax.plot(  # a frontier at one latency has no line: a ring round its points, in the legend too (trial 27, T27-16)
            [p.value(lat) for p in own],
            [p.value(THROUGHPUT) for p in own],
            **({"marker": "none"} if ls != "none" else {"marker": "o", "ms": 11, "mfc": "none", "mew": 1.5}),
            lw=1.5,
            ls=ls,
            color=FRONTIER_COLOUR,
            drawstyle="steps-post",  # the best throughput reachable within a latency is a step function
            label=frontier_label(shape, own),
            zorder=2,
        )
    for variant in dict.fromkeys(p.variant for p in front):  # its points in the curves' look of their series
        look = looks.get(variant, CONTEXT_LOOK)
        own = [p for p in front if p.variant == variant]
        ax.plot(
            [p.value(lat) for p in own],
            [p.value(THROUGHPUT) for p in own],
            ls="none",
            marker=look.marker,
            ms=6,
            color=look.colour,
            label=f"_frontier levels of {variant}",  # named by their labels; the curves' legends give the look
            zorder=3,
        )
    log_scale_if_wide(ax, [p.value(lat) for p in every])
    if rec is not None and rec.latency_budget_ms is not None:
        ax.axvline(
            rec.latency_budget_ms,
            color=REFERENCE,
            ls=":",
            lw=1.2,
            label=f"{name} budget {fmt_given(rec.latency_budget_ms, 0)} ms",
        )
    picks = [p for p in pick_points(rec, per_workload) if p.kind != LOWEST]
    for pick in picks:
        colour = pick_colour(pick, looks)
        draw_pick(ax, pick, pick.at(lat), pick.at(THROUGHPUT), colour)
        if pick.moved and pick.curve_ms is not None:  # at the budget's quieter-rounds latency: joined to its level's point
            c = pick.choice
            ax.plot([pick.curve_ms, pick.latency_ms], [c.throughput_infer_per_s] * 2, ls=":", lw=0.9, color=colour, zorder=4)
        if higher := pick.higher_unsaid(every):  # a higher median the legend would leave unexplained (T17-17)
            ax.plot([], [], ls="none", label=higher_words(pick, higher))
    ax.set_xlabel(f"client {name} latency (ms)")
    ax.set_ylabel(throughput_label(p.batch_size for pts in points.values() for p in pts))
    labels = [
        (
            p.value(lat),
            p.value(THROUGHPUT),
            f"{p.variant} c={p.concurrency}" + flag_mark(p.status, words=False),
            looks.get(p.variant, CONTEXT_LOOK).colour,
        )
        for p in front
    ]
    place_labels(
        ax,
        labels,
        6.5,
        [(x, p.choice.throughput_infer_per_s, 14.0) for p in picks if (x := p.latency_ms) is not None],
        what="frontier label",
        listed="report table",
        lines=joined_lines(ax),  # never across the frontier's staircase where a label fits elsewhere (T26-7)
    )
    return finish(fig, [ax], path)
