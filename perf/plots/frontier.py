"""The plots that scale to 200 variants: the Pareto frontier and the small multiples.

* :func:`plot_frontier`: throughput against p99 of every level of every variant as light
  grey dots, the Pareto frontier (:func:`perf.analysis.frontier.operating_frontier`) as a highlighted
  line with each point labelled ``variant c=N`` (labels never overlap), the recommended
  levels marked and the p99 budget drawn.
* :func:`plot_small_multiples`: throughput against concurrency, one panel per value of one
  factor of the grid (:func:`facets`: instance count first), one line per value of a second
  factor (the batching setting first): the median over the variants sharing both values,
  with their min–max as a band — the grid's shape at a glance, whatever its size.

Both return what they drew (:data:`perf.plots.canvas.Drawn`).
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from core.wording import count
from perf.analysis.effects import FACTORS, Factor, value_order
from perf.analysis.frontier import operating_frontier
from perf.analysis.pairs import variant_of
from perf.analysis.peaks import peak_title
from perf.analysis.recommendation import Recommendation, candidate
from perf.analysis.stats import P99, THROUGHPUT, Point, curve
from perf.markdown import flag_mark, fmt_given
from perf.plots.canvas import Drawn, finish, log_scale_if_wide, panels, place_labels, pyplot, series_linestyle, xy
from perf.plots.palette import BLACK, REFERENCE, SERIES
from perf.plots.styles import GREY, style
from perf.plots.ticks import concurrency_axis, save
from perf.records.results import RunResult

#: Facet factors in order of preference (keys of :data:`perf.analysis.effects.FACTORS`).
FACET_ORDER = ("count", "format", "mbs", "kind", "precision", "warmup", "preferred", "ortrt", "gpus")
#: Colour factors in order of preference; ``setting`` is the batching setting (off, or the queue delay).
COLOUR_ORDER = ("setting", "format", "count", "mbs", "precision", "kind", "warmup", "preferred", "ortrt", "gpus")
#: Small-multiple panels per row.
PANEL_COLUMNS = 3

SETTING = Factor(
    "setting",
    "dynamic batching",
    ("dynamic_batching", "max_queue_delay_us"),
    lambda t: t.max_queue_delay_us if t.dynamic_batching else "off",
    lambda v: "batching off" if v == "off" else f"queue delay {v} µs",
)
_BY_KEY: dict[str, Factor] = {f.key: f for f in (*FACTORS, SETTING)}


def plot_frontier(
    points: dict[str, list[Point]], path: Path, rec: Recommendation | None = None, failed: frozenset[str] = frozenset()
) -> Drawn | None:
    """Every level in grey, the frontier highlighted and labelled, the picks marked, the p99
    budget drawn (a p99 budget only). None (no file) when no level can be ranked."""
    every = [p for n, pts in points.items() if n not in failed for p in pts if candidate(p)]
    front = operating_frontier(points, failed)
    if not front:
        return None
    fig, (ax,) = panels(1, 6.5)
    title = "Pareto frontier: throughput vs p99, every level of every variant"
    ax.set_title(title)
    by_status: dict[str, list[Point]] = {}
    for p in every:
        by_status.setdefault(p.status, []).append(p)
    for status, group in sorted(by_status.items(), key=lambda kv: (flag_mark(kv[0]) != "", kv[0])):
        flagged = flag_mark(status) != ""
        ax.plot(  # the tables' mark on each status's grey points; a flagged level drawn hollow
            [p.value(P99) for p in group],
            [p.value(THROUGHPUT) for p in group],
            ls="none",
            marker="o",
            ms=3.5,
            color=GREY,
            mfc="none" if flagged else GREY,
            alpha=0.6,
            label=f"{'every level' if len(by_status) == 1 else 'levels'} ({len(group)}; "
            f"{count(len({p.variant for p in group}), 'variant')}){flag_mark(status)}",
            zorder=1,
        )
    ax.plot(
        [p.value(P99) for p in front],
        [p.value(THROUGHPUT) for p in front],
        marker="o",
        ms=6,
        lw=2,
        color=SERIES[3],
        drawstyle="steps-post",  # the best throughput reachable within a p99 is a step function
        label=f"Pareto frontier ({len(front)} levels): nothing beats them on both",
        zorder=3,
    )
    log_scale_if_wide(ax, [p.value(P99) for p in every])
    if rec is not None:
        if rec.latency_budget_ms is not None and rec.latency_percentile == 99:
            ax.axvline(
                rec.latency_budget_ms,
                color=REFERENCE,
                ls=":",
                lw=1.2,
                label=f"p99 budget {fmt_given(rec.latency_budget_ms, 0)} ms",
            )
        marks = (
            (rec.best_under_budget, "*", 17, "best under budget"),
            (rec.best_peak, "P", 12, peak_title(rec.best_peak).split(" (")[0].lower()),
        )
        for choice, marker, size, what in marks:
            if choice is not None:
                ax.plot(
                    [choice.latency_p99_ms],
                    [choice.throughput_infer_per_s],
                    ls="none",
                    marker=marker,
                    ms=size,
                    mfc="none",
                    mec=BLACK,
                    mew=1.4,
                    zorder=4,
                    label=f"{what}: {choice.variant} c={choice.concurrency}{flag_mark(choice.status)}"
                    + (f" ({choice.judged_note})" if choice.judged_note else ""),
                )
    ax.set_xlabel("client p99 latency (ms)")
    ax.set_ylabel("throughput (infer/s)")
    labels = [
        (p.value(P99), p.value(THROUGHPUT), f"{p.variant} c={p.concurrency}" + flag_mark(p.status, words=False)) for p in front
    ]
    picks = [c for c in (rec.best_under_budget, rec.best_peak) if c is not None] if rec is not None else []
    _, left_out = place_labels(ax, labels, 6.5, [(c.latency_p99_ms, c.throughput_infer_per_s, 14.0) for c in picks])
    if left_out:
        ax.plot([], [], ls="none", label=f"{left_out} frontier label(s) left out where they would overlap (report table)")
    return finish(fig, [ax], path)


def _factor_values(run: RunResult, names: list[str]) -> dict[str, dict[str, Any]]:
    """``{factor key: {variant: value}}`` for the factors with more than one value among ``names``."""
    typed = {v.name: t for v in run.variants if v.name in names and (t := variant_of(v)) is not None}
    out = {}
    for key, f in _BY_KEY.items():
        vals = {n: f.value(t) for n, t in typed.items() if f.value(t) is not None}
        if len(set(vals.values())) > 1 and len(vals) == len(typed):
            out[key] = vals
    return out


def facets(run: RunResult, names: list[str]) -> tuple[Factor, Factor, dict[str, Any], dict[str, Any]] | None:
    """The facet factor, the colour factor and each variant's values of both; None when the
    grid has fewer than two factors that vary over every variant."""
    vals = _factor_values(run, names)
    facet = next((k for k in FACET_ORDER if k in vals), None)
    if facet is None:
        return None
    colour = next((k for k in COLOUR_ORDER if k in vals and k != facet and not (k == "setting" and facet == "batching")), None)
    if colour is None:
        return None
    return _BY_KEY[facet], _BY_KEY[colour], vals[facet], vals[colour]


def _median_curve(group: list[list[Point]]) -> tuple[list[int], list[float], list[float], list[float]]:
    by: dict[int, list[float]] = {}
    for c in group:
        for p in c:
            by.setdefault(p.concurrency, []).append(p.value(THROUGHPUT))
    xs = sorted(by)
    return xs, [statistics.median(by[x]) for x in xs], [min(by[x]) for x in xs], [max(by[x]) for x in xs]


def plot_small_multiples(
    run: RunResult, points: dict[str, list[Point]], path: Path, failed: frozenset[str] = frozenset()
) -> Drawn | None:
    """Throughput vs concurrency faceted by one factor, coloured by another (see the module
    docstring). None (no file) when the grid has fewer than two varying factors."""
    names = [n for n in points if n not in failed and curve(points[n])]
    picked = facets(run, names)
    if picked is None:
        return None
    facet, colour, fv, cv = picked
    panel_values = sorted(set(fv.values()), key=value_order)
    colour_values = sorted(set(cv.values()), key=value_order)
    plt = pyplot()
    cols = min(PANEL_COLUMNS, len(panel_values))
    rows = -(-len(panel_values) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 1.2 + 3.6 * rows), squeeze=False, sharey=True, layout="constrained")
    drawn: Drawn = {}
    bs = min(curve(points[n])[0].batch_size for n in names)
    for ax, value in zip(axes.flat, panel_values):
        title = facet.show(value)
        ax.set_title(title, fontsize=10)
        drawn[title] = {}
        for i, c in enumerate(colour_values):
            group = [curve(points[n], bs) for n in names if fv[n] == value and cv[n] == c]
            group = [g for g in group if g]
            if not group:
                continue
            xs, med, lo, hi = _median_curve(group)
            look = style(i)
            label = colour.show(c)
            (line,) = ax.plot(
                xs, med, color=look.colour, marker=look.marker, ls=series_linestyle(look.linestyle, xs), ms=4, label=label
            )
            if len(group) > 1:
                ax.fill_between(xs, lo, hi, color=look.colour, alpha=0.07, lw=0)
            drawn[title][label] = xy(line)
        concurrency_axis(ax, {p.concurrency for n in names for p in curve(points[n], bs)})
        ax.grid(True, alpha=0.3)
    for ax in axes.flat[len(panel_values) :]:
        ax.set_visible(False)
    axes[0, 0].set_ylabel("throughput (infer/s)")
    handles = {c: h for ax in axes.flat for h, c in zip(*ax.get_legend_handles_labels())}
    fig.legend(list(handles.values()), list(handles), loc="outside lower center", ncol=min(6, len(handles)), fontsize=8)
    fig.suptitle(
        f"Throughput vs concurrency by {facet.label} (panels) and {colour.label} (lines): median over the variants "
        f"sharing both, band = their min–max" + (f"; client batch size {bs}" if bs != 1 else ""),
        fontsize=10,
    )
    save(fig, path)
    plt.close(fig)
    return drawn
