"""The small multiples, the plot that scales to 200 variants with the Pareto frontier (:mod:`perf.plots.frontier`).

:func:`plot_small_multiples`: throughput against concurrency, one row of panels per client workload
(:func:`workload_rows`: client batch size, swept input size; never pooled), one panel per value of one factor of
the grid (:func:`facets`: instance count first), one line per value of a second factor (the batching setting
first), split by every other setting its variants differ in (format, model, ...; up to :data:`MAX_LINES` lines,
past it the label names what a line pools): the median over the variants sharing them, with their min–max as a
band — the grid's shape at a glance, whatever its size. A line is a setting, not a variant: it is drawn in grey with
its own marker and dash (:func:`perf.plots.styles.not_a_variant`), the colours being the variants' in every other plot
of the run. A point with a flagged level behind it is ringed, its legend entry the other plots'
(:data:`perf.plots.canvas.RING_LABEL`); a panel missing a line the grid has says why (cut for time, failed) under its title.

It returns what it drew (:data:`perf.plots.canvas.Drawn`).
"""

from __future__ import annotations

import statistics
import textwrap
from collections import Counter
from pathlib import Path
from typing import Any

from builders.config.variants import Variant
from core.units import throughput_label
from core.wording import count
from perf.analysis.recommendation.frontier import size_order
from perf.analysis.stats.curves import curve
from perf.analysis.stats.pairs import FACTORS, Factor, value_order, variant_of
from perf.analysis.stats.points import THROUGHPUT, Point
from perf.markdown import flag_mark
from perf.plots.canvas import RING_LABEL, Drawn, pyplot, ring_flagged, series_linestyle, xy
from perf.plots.styles import ALL_DISTINCT, not_a_variant
from perf.plots.ticks import concurrency_axis, save
from perf.records.results import RunResult
from perf.records.workloads import workload

#: Facet factors in order of preference (keys of :data:`perf.analysis.stats.pairs.FACTORS`).
FACET_ORDER = ("count", "format", "mbs", "kind", "precision", "warmup", "preferred", "ortrt", "gpus")
#: Colour factors in order of preference; ``setting`` is the batching setting (off, or the queue delay).
COLOUR_ORDER = ("setting", "format", "count", "mbs", "precision", "kind", "warmup", "preferred", "ortrt", "gpus")
#: Small-multiple panels per row.
PANEL_COLUMNS = 3
#: Lines of a small-multiples figure: past it, a line pools the last settings of :data:`SPLIT_ORDER` (and says so).
MAX_LINES = ALL_DISTINCT

SETTING = Factor(
    "setting",
    "dynamic batching",
    ("dynamic_batching", "max_queue_delay_us"),
    lambda t: t.max_queue_delay_us if t.dynamic_batching else "off",
    lambda v: "batching off" if v == "off" else f"queue delay {v} µs",
)
MODEL = Factor("model", "model", ("model",), lambda t: t.model, lambda v: f"model {v}")
_BY_KEY: dict[str, Factor] = {f.key: f for f in (*FACTORS, SETTING, MODEL)}
#: Settings a line is split by where variants sharing its panel and colour differ in them, most
#: telling first (a median over formats or models is a number no variant had).
SPLIT_ORDER = ("model", *COLOUR_ORDER)


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


def _median_curve(group: list[list[Point]]) -> tuple[list[int], list[float], list[float], list[float], list[bool]]:
    """Each concurrency's median, min and max over ``group``'s curves, and whether a level behind the point is
    flagged (its flags as the tables mark them, :func:`perf.markdown.flag_mark` of :attr:`Point.flags`)."""
    by: dict[int, list[Point]] = {}
    for c in group:
        for p in c:
            by.setdefault(p.concurrency, []).append(p)
    xs = sorted(by)
    ys = {x: [p.value(THROUGHPUT) for p in by[x]] for x in xs}
    flags = [any(flag_mark(p.flags) for p in by[x]) for x in xs]
    return xs, [statistics.median(ys[x]) for x in xs], [min(ys[x]) for x in xs], [max(ys[x]) for x in xs], flags


def _split(facet: Factor, colour: Factor, typed: dict[str, Variant]) -> tuple[list[Factor], list[Factor]]:
    """The settings off the panels' axes that vary among the variants of one colour: those a line is split by
    (:data:`SPLIT_ORDER`, while the lines stay within :data:`MAX_LINES`) and those a line's median still spans
    (its label names them). A setting that varies only from panel to panel is named too (T25-25: one format per
    panel, TorchScript in "1 instance" and ONNX in "2 instances", read as an instance-count effect)."""
    groups: dict[object, list[Variant]] = {}
    for t in typed.values():  # by colour, across panels: a setting that differs only between panels varies here
        groups.setdefault(colour.value(t), []).append(t)
    varying = [
        f
        for k in SPLIT_ORDER
        if k not in (facet.key, colour.key)
        and any(len({repr((f := _BY_KEY[k]).value(t)) for t in g}) > 1 for g in groups.values())
    ]
    split = list(varying)
    while split and len({_line_key(colour, split, t) for t in typed.values()}) > MAX_LINES:
        split.pop()
    return split, varying[len(split) :]


def _line_key(colour: Factor, split: list[Factor], t: Variant) -> tuple:
    return (colour.value(t), *(repr(f.value(t)) for f in split))


def _line_label(colour: Factor, split: list[Factor], t: Variant) -> str:
    """The colour value's words, then each split setting's (where it applies)."""
    return " · ".join([colour.show(colour.value(t)), *(f.show(v) for f in split if (v := f.value(t)) is not None)])


def _not_drawn(run: RunResult, names: list[str], bs: int, failed: frozenset[str]) -> dict[str, str]:
    """Why each variant of the run without a curve at client batch size ``bs`` has none."""
    out = {}
    for v in run.variants:
        if v.name in names:
            continue
        if (v.error or "").startswith("cut for time"):
            out[v.name] = "cut for time"
        elif v.name in failed or v.status == "failed":
            out[v.name] = "failed"
        elif v.levels:
            out[v.name] = f"no level at client batch size {bs}"
        else:
            out[v.name] = "not reached" if v.status == "pending" else v.status
    return out


def workload_rows(run: RunResult, names: list[str], points: dict[str, list[Point]]) -> list[tuple[str, int]]:
    """The client workloads the small multiples draw, one row of panels each, in the workloads'
    order: ``(label, client batch size)`` with the label of a run split by workload
    (:func:`perf.records.workloads.workload`: ``"b=8"``, ``"ncat=32"``; ``""`` for a run of one),
    and each client batch size a series has levels at (a size or a batch size is the client's: a
    line never pools two; trial 11 review: the plot drew the lowest batch size alone, a b=8 workload
    got no line and no word)."""
    label = {v.name: workload(v) or "" for v in run.variants}
    keys = {(label.get(n, ""), p.batch_size) for n in names for p in points[n] if p.ok}
    order = size_order(k for k, _ in keys)
    return sorted(keys, key=lambda k: (order.index(k[0]), k[1]))


def _row_words(label: str, bs: int) -> str:
    """A row's client workload in words: its label, else ``"client batch size 8"``."""
    return label or f"client batch size {bs}"


def plot_small_multiples(
    run: RunResult, points: dict[str, list[Point]], path: Path, failed: frozenset[str] = frozenset()
) -> Drawn | None:
    """Throughput vs concurrency faceted by one factor, coloured by another (see the module
    docstring), one row of panels per client workload (:func:`workload_rows`; a panel's title names
    its workload when there are several). None (no file) when the grid has fewer than two varying factors.

    A line never pools settings off the panels' axes without saying so: it is split by them
    (format, model, ...; :func:`_split`), or, past :data:`MAX_LINES`, its label names what its
    median spans. A point whose levels include a flagged one is ringed, its legend entry
    carrying the tables' mark (:func:`perf.markdown.flag_mark`); a panel without a line the
    grid has (variants cut for time, failed) says which and why under its title.
    """
    names = [n for n in points if n not in failed and curve(points[n])]
    picked = facets(run, names)
    if picked is None:
        return None
    facet, colour, fv, _ = picked
    typed = {v.name: t for v in run.variants if (t := variant_of(v)) is not None}
    split, spanned = _split(facet, colour, {n: typed[n] for n in names})
    keys = {n: _line_key(colour, split, t) for n, t in typed.items()}
    labels = {keys[n]: _line_label(colour, split, t) for n, t in typed.items()}
    for k in {keys[n] for n in names}:  # what a line's median pools, in its label
        spans = [f.label for f in spanned if len({repr(f.value(typed[n])) for n in names if keys[n] == k}) > 1]
        if spans:
            labels[k] += f" (median over {', '.join(spans)})"
    line_keys = sorted({keys[n] for n in names}, key=lambda k: [value_order(v) for v in k])
    panel_values = sorted(set(fv.values()), key=value_order)
    rows_of = workload_rows(run, names, points)
    of_row = {v.name: workload(v) or "" for v in run.variants}
    plt = pyplot()
    cols = min(PANEL_COLUMNS, len(panel_values))
    per_row = -(-len(panel_values) // cols)  # grid rows of one workload's panels
    height = 1.2 + 3.6 * per_row * len(rows_of)
    fig, axes = plt.subplots(per_row * len(rows_of), cols, figsize=(5.2 * cols, height), squeeze=False, layout="constrained")
    drawn: Drawn = {}
    for r, (row, bs) in enumerate(rows_of):
        own = [n for n in names if of_row.get(n, "") == row and curve(points[n], bs)]
        why = {n: w for n, w in _not_drawn(run, own, bs, failed).items() if of_row.get(n, "") in ("", row)}
        grid = list(axes[r * per_row : (r + 1) * per_row].flat)
        for ax, value in zip(grid, panel_values):
            if ax is not grid[0]:
                ax.sharey(grid[0])  # one y scale per workload: b=8's throughput is not on b=1's scale
            title = facet.show(value) + (f" — {_row_words(row, bs)}" if len(rows_of) > 1 else "")
            drawn[title] = _panel(ax, [n for n in own if fv[n] == value], points, bs, line_keys, keys, labels)
            missing: dict[str, list[str]] = {}
            for n, t in typed.items():
                if facet.value(t) == value and keys[n] not in {keys[m] for m in own if fv[m] == value} and n in why:
                    missing.setdefault(labels[keys[n]], []).append(why[n])
            notes = [
                f"no line {lab}: " + ", ".join(f"{count(c, 'variant')} {w}" for w, c in Counter(ws).items())
                for lab, ws in sorted(missing.items())
            ]
            for note in notes:
                drawn[title][note] = ([], [])
            ax.set_title("\n".join([title, *(textwrap.fill(n, 70) for n in notes)]), fontsize=10)
            concurrency_axis(ax, {p.concurrency for n in own for p in curve(points[n], bs)})
            ax.grid(True, alpha=0.3)
        for ax in grid[len(panel_values) :]:
            ax.set_visible(False)
        for ax in grid[::cols]:
            ax.set_ylabel(throughput_label([bs]) + (f"\n{_row_words(row, bs)}" if len(rows_of) > 1 else ""))
    handles = {c: h for ax in axes.flat for h, c in zip(*ax.get_legend_handles_labels())}
    fig.legend(list(handles.values()), list(handles), loc="outside lower center", ncol=min(4, len(handles)), fontsize=8)
    sizes = {bs for _, bs in rows_of}
    title = (
        f"Throughput vs concurrency by {facet.label} (panels) and {colour.label}"
        + "".join(f", {f.label}" for f in split)
        + " (lines): a line pools only the variants sharing every setting it names (median, band = their min–max)"
        + (f"; one row of panels per client workload ({', '.join(_row_words(*k) for k in rows_of)})" if len(rows_of) > 1 else "")
        + (f"; client batch size {next(iter(sizes))}" if sizes != {1} and len(sizes) == 1 else "")
    )
    fig.suptitle(textwrap.fill(title, 60 * cols), fontsize=10)
    save(fig, path)
    plt.close(fig)
    return drawn


def _panel(
    ax, own: list[str], points: dict[str, list[Point]], bs: int, line_keys: list, keys: dict, labels: dict
) -> dict[str, tuple[list[float], list[float]]]:
    """One panel's lines (the median over each line's variants ``own``, its min–max band) and the
    rings of flagged points; returns what it drew."""
    drawn: dict[str, tuple[list[float], list[float]]] = {}
    rings: list[tuple[float, float, str]] = []  # flagged points: (x, y, line colour)
    for i, k in enumerate(line_keys):
        group = [curve(points[n], bs) for n in own if keys[n] == k]
        if not group:
            continue
        xs, med, lo, hi, flags = _median_curve(group)
        look = not_a_variant(i)
        (line,) = ax.plot(
            xs, med, color=look.colour, marker=look.marker, ls=series_linestyle(look.linestyle, xs), ms=4, label=labels[k]
        )
        if len(group) > 1:
            ax.fill_between(xs, lo, hi, color=look.colour, alpha=0.07, lw=0)
        drawn[labels[k]] = xy(line)
        rings += [(x, y, look.colour) for x, y, flagged in zip(xs, med, flags) if flagged]
    if rings:
        rx, ry, colours = (list(c) for c in zip(*rings))
        ring_flagged(ax, list(zip(rx, ry)), colours, legend=True, many=True)
        drawn[RING_LABEL] = ([float(x) for x in rx], [float(y) for y in ry])
    return drawn
