"""``report.html``: one self-contained interactive page of a sweep (``triton-perf report --html``).

Written with `plotly <https://plotly.com/python/>`_ (imported lazily); the plotly.js library
is embedded in the file (``include_plotlyjs=True``), so the page opens offline, with no
network at view time. Two figures: throughput against the latency the budget is judged on (p99 unless the
budget is on another percentile, :func:`perf.plots.picks.judged_latency`) of every level (the Pareto
frontier on it highlighted, one line per client workload as pareto_frontier.png draws it
(:func:`perf.analysis.recommendation.frontier.workload_frontiers`), every client workload's recommended levels marked
at the tables' numbers (:mod:`perf.plots.picks`), the latency budget drawn) and throughput
against concurrency, one line per variant and client batch size (the highlighted ones of
:mod:`perf.plots.styles` shown, the others one legend click away). Hovering a point shows the variant's parameters
and the level's numbers.
"""

from __future__ import annotations

import html
import importlib.util
from pathlib import Path
from typing import Any

from core.errors import PerfError
from core.units import throughput_label, throughput_text
from perf.analysis.recommendation.excluded import candidate
from perf.analysis.recommendation.frontier import operating_frontier, workload_frontiers, workload_recommendations
from perf.analysis.recommendation.recommend import Recommendation
from perf.analysis.stats.curves import curve
from perf.analysis.stats.points import P99, THROUGHPUT, Point, run_points
from perf.markdown import flag_mark, fmt, fmt_given, write_kept
from perf.plots.frontier import CONTEXT_LOOK, FRONTIER_COLOUR, frontier_label
from perf.plots.palette import CONTEXT
from perf.plots.picks import LOWEST, UNDER, judged_latency, pick_colour, pick_points
from perf.plots.styles import styles
from perf.records.results import RunResult

HTML_FILE = "report.html"
#: The frontiers' dashes, one per client workload in order (plotly's names of the PNG's line styles).
DASHES = ("solid", "dash", "dashdot", "dot")
#: Variant parameters shown on hover (``results.json`` params keys), in this order.
HOVER_PARAMS = (
    "format",
    "precision",
    "kind",
    "count",
    "max_batch_size",
    "dynamic_batching",
    "max_queue_delay_us",
    "preferred_batch_sizes",
    "warmup",
    "trt_accelerator",
)


def _hover(params: dict[str, Any] | None, p: Point, lat: str = P99, name: str = "p99") -> str:
    """A level's hover text: its numbers (the budget's latency ``lat``, named ``name``, before the p99) and the variant's parameters."""
    lines = [
        f"<b>{html.escape(p.variant)}</b>",
        f"concurrency {p.concurrency}, batch {p.batch_size} ({flag_mark(p.flags).strip() or p.status})",
    ]
    other = f"{name} {fmt(p.get(lat), 2)} ms, " if lat != P99 else ""
    thr = throughput_text(v, p.batch_size, fmt) if (v := p.get(THROUGHPUT)) is not None else "— infer/s"
    lines.append(f"{thr}, {other}p99 {fmt(p.get(P99), 2)} ms")
    lines += [f"{k}: {html.escape(str(params[k]))}" for k in HOVER_PARAMS if params and k in params]
    return "<br>".join(lines)


def figures(run: RunResult, rec: Recommendation) -> list[Any]:
    """The page's plotly figures (see the module docstring).

    Raises:
        PerfError: plotly is not installed.
    """
    if importlib.util.find_spec("plotly") is None:
        raise PerfError("plotly is not installed, so report.html cannot be written", hint="pip install plotly")
    import plotly.graph_objects as go

    points = run_points(run)
    failed = {v.name for v in run.variants if v.status == "failed"}
    params = {v.name: v.params for v in run.variants}
    lat, pct = judged_latency(rec)  # the latency the budget is judged on, as the PNG plots draw

    def hover(p: Point) -> str:
        return _hover(params[p.variant], p, lat, pct)

    every = [p for n, pts in points.items() if n not in failed for p in pts if candidate(p) and p.get(lat) is not None]
    front = operating_frontier(points, failed, lat)
    trade = go.Figure()
    trade.add_trace(
        go.Scatter(
            x=[p.value(lat) for p in every],
            y=[p.value(THROUGHPUT) for p in every],
            mode="markers",
            marker={"color": CONTEXT, "size": 6},
            name=f"every level ({len(every)})",
            text=[hover(p) for p in every],
            hoverinfo="text",
        )
    )
    per_workload = workload_recommendations(run, rec)  # every client workload's picks, as the PNG plots mark them
    looks = styles(points, rec, failed, per_workload=per_workload, run=run)  # each series' colour in the PNG plots
    for i, (shape, own) in enumerate(workload_frontiers(front).items()):  # one per client workload, as the PNG
        trade.add_trace(
            go.Scatter(
                x=[p.value(lat) for p in own],
                y=[p.value(THROUGHPUT) for p in own],
                mode="lines+markers",
                line={"color": FRONTIER_COLOUR, "width": 2, "shape": "hv", "dash": DASHES[i % len(DASHES)]},  # as the PNG
                marker={"color": [looks.get(p.variant, CONTEXT_LOOK).colour for p in own], "size": 8},  # its series' colour
                name=frontier_label(shape, own),
                text=[hover(p) for p in own],
                hoverinfo="text",
            )
        )
    for pick in pick_points(rec, per_workload):
        if pick.kind != LOWEST and pick.latency_ms is not None:
            trade.add_trace(
                go.Scatter(
                    x=[pick.latency_ms],
                    y=[pick.at(THROUGHPUT)],
                    mode="markers",
                    marker={"symbol": "star" if pick.kind == UNDER else "cross", "size": 16, "color": pick_colour(pick, looks)},
                    name=pick.label,
                )
            )
    if rec.latency_budget_ms is not None:
        trade.add_vline(
            x=rec.latency_budget_ms, line_dash="dot", annotation_text=f"{pct} budget {fmt_given(rec.latency_budget_ms, 0)} ms"
        )
    trade.update_layout(
        title=f"Throughput vs {pct}, every level (hover for the variant's parameters)",
        xaxis_title=f"client {pct} latency (ms)",
        yaxis_title=throughput_label(p.batch_size for pts in points.values() for p in pts),
    )
    lines = go.Figure()
    for name, pts in points.items():
        sizes = sorted({p.batch_size for p in pts if p.ok})  # every client batch size a line: none left out
        for bs in sizes:
            c = curve(pts, bs)
            lines.add_trace(
                go.Scatter(
                    x=[p.concurrency for p in c],
                    y=[p.value(THROUGHPUT) for p in c],
                    mode="lines+markers",
                    name=name + (f" (b={bs})" if len(sizes) > 1 else ""),
                    text=[hover(p) for p in c],
                    hoverinfo="text",
                    visible=True if name in looks else "legendonly",
                    line={"color": looks[name].colour if name in looks else CONTEXT},  # the PNG's colour of the series
                )
            )
    lines.update_layout(
        title="Throughput vs concurrency (the highlighted variants shown; click a legend entry to add one)",
        xaxis={"title": "concurrency", "type": "log"},
        yaxis_title=throughput_label(p.batch_size for pts in points.values() for p in pts),
    )
    return [trade, lines]


def write_html(run: RunResult, run_dir: Path, rec: Recommendation) -> Path:
    """Write :data:`HTML_FILE` into ``run_dir`` (plotly.js embedded once); returns its path.

    Raises:
        PerfError: plotly is not installed.
    """
    figs = figures(run, rec)
    body = "\n".join(f.to_html(full_html=False, include_plotlyjs=(i == 0)) for i, f in enumerate(figs))
    title = html.escape(f"Sweep {run.run_id}")
    path = Path(run_dir) / HTML_FILE
    write_kept(
        path,
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{title}</title></head>\n'
        f"<body><h1>{title}</h1>\n<p>Interactive view of results.json; the written report is report.md.</p>\n{body}\n</body></html>\n",
    )
    return path


def html_line(run: RunResult, run_dir: Path, rec: Recommendation) -> str:
    """Write the page and return the report's line linking it."""
    path = write_html(run, run_dir, rec)
    return (
        f"Interactive view: [{path.name}]({path.name}) (one self-contained file, plotly.js included: opens offline; "
        "hover a point for the variant's parameters)."
    )
