"""The serving-efficiency plot (``serving_efficiency.png``; the report's section is
:mod:`perf.report.sections.efficiency`).

Two panels: served ÷ in-process against concurrency per variant and client batch size (at the
batch the server formed), and per variant, at its highest served throughput, where a request's time went
(stacked µs; compute infer split into the in-process time and the serving overhead). What the
tables say of a row, the plot says too (:mod:`perf.analysis.efficiency`): a row whose served run
beat the same call in-process is no evidence and is not drawn as an efficiency (the legend
counts it, in the rule's words: above what its instances can give); a dotted line at 1 (one instance
in-process) and one at each other instance count drawn, the most such a variant can give (trial 25,
T25-24: a 2-instance variant at 1.41 sat above the only line, at 1); a host-busy row is ringed and its legend entry carries the tables' mark
(:func:`perf.markdown.flag_mark`); a negative overhead is not drawn as a bar and the legend says
so. The right panel's time components are greys and hatches (:data:`perf.plots.palette.COMPONENT_LOOKS`): no hue
of the left panel's variants (trial 28, T28-16: "network + protocol" was the blue of the variant on its own bar).

:func:`write_plot` returns what it drew, read back from the artists:
``{panel title: {label: (xs, ys)}}`` (:data:`perf.plots.canvas.Drawn`).
"""

from __future__ import annotations

import logging
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path

from core.wording import count
from perf.analysis.efficiency import COMPONENTS, UNUSABLE, EfficiencyRow, baseline_unusable, best_rows, faster_words
from perf.markdown import flag_mark
from perf.plots.canvas import LEGEND_WRAP, Drawn, pyplot, xy
from perf.plots.empty import say_empty
from perf.plots.palette import BLACK, COMPONENT_LOOKS, REFERENCE
from perf.plots.styles import LINESTYLES, Style, style
from perf.plots.ticks import concurrency_axis, save
from perf.records.levels import HOST_BUSY

log = logging.getLogger(__name__)

RATIO_TITLE = "Serving efficiency (at the batch the server formed)"
TIME_TITLE = "Where a request's time went"
#: The stacked segments of the right panel, with their looks (:data:`perf.plots.palette.COMPONENT_LOOKS`: no two
#: alike, each a grey of no variant's hue, :func:`perf.plots.palette.read_as`).
SEGMENTS = tuple(
    (field, label, COMPONENT_LOOKS[field])
    for field, label in (
        ("client_send_us", "client send"),
        ("network_server_us", "network + protocol"),
        ("server_queue_us", "server queue"),
        ("server_compute_input_us", "compute input"),
        ("in_process", "compute: in-process time"),
        ("overhead", "compute: serving overhead"),
        ("server_compute_output_us", "compute output"),
        ("client_recv_us", "client recv"),
    )
)


def write_plot(
    rows: Sequence[EfficiencyRow], path: Path, looks: Mapping[str, Style] | None = None, unusable: int | None = None
) -> Drawn | None:
    """Draw ``rows`` into ``path`` (see the module docstring), each variant's line in its colour of the
    run's other plots (``looks``: :func:`perf.plots.styles.series_looks`; default, and for a variant
    without one, a colour of its own in row order). ``unusable``: :func:`perf.analysis.efficiency.baseline_unusable`
    of all the run's rows when ``rows`` are some of them (default: of ``rows``). ``None`` (no file) without
    rows or matplotlib."""
    best = best_rows(rows)
    if not best:
        return None
    try:
        plt = pyplot()
    except ImportError:
        log.warning("matplotlib is not installed: no serving-efficiency plot")
        return None
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 0.5 * len(best) + 4.5), layout="constrained")
    drawn: Drawn = {RATIO_TITLE: {}, TIME_TITLE: {}}
    given = looks or {}
    colours = {n: given[n].colour if n in given else style(len(given) + i).colour for i, n in enumerate(best)}
    unusable = baseline_unusable(rows) if unusable is None else unusable
    _ratio_panel(ax1, rows, colours, drawn[RATIO_TITLE], unusable)
    _time_panel(ax2, best, drawn[TIME_TITLE])
    save(fig, path)
    plt.close(fig)
    return drawn


def _ratio_panel(ax, rows: Sequence[EfficiencyRow], colours: Mapping[str, str], drawn: dict, unusable: int) -> None:
    """One line per variant (``colours``: each one's) and client batch size (a batch size is the client's:
    never one line; the panel drew the b=1 rows alone, a b=8 series got no line and no word); ``unusable``:
    :func:`no_ratio_words`."""
    shown = [r for r in rows if r.ratio is not None and not r.served_faster]
    faster = [r for r in rows if r.ratio is not None and r.served_faster]
    for name, colour in colours.items():
        sizes = sorted({r.point.batch_size for r in shown if r.variant == name})
        for j, bs in enumerate(sizes):
            pts = [r for r in shown if r.variant == name and r.point.batch_size == bs]
            label = name + (f" (b={bs})" if len(sizes) > 1 else "")
            (line,) = ax.plot(
                [r.point.concurrency for r in pts],
                [r.ratio for r in pts],
                marker="o",
                ls=LINESTYLES[j % len(LINESTYLES)],
                color=colour,
                label=label,
            )
            drawn[label] = xy(line)
    busy = [r for r in shown if r.note is not None]  # host busy on one side: ringed, marked as in the tables
    if busy:
        rings = ax.scatter(
            [r.point.concurrency for r in busy],
            [r.ratio for r in busy],
            s=110,
            facecolors="none",
            edgecolors=BLACK,
            linewidths=1.3,
            zorder=3,
            label=f"not measured fairly{flag_mark(HOST_BUSY)} (served or in-process)",
        )
        drawn[str(rings.get_label())] = ([float(r.point.concurrency) for r in busy], [float(r.ratio or 0) for r in busy])
    if not shown:  # every level left out: words, not an empty frame with piled-up ticks (trial 21, T21-3)
        words = no_ratio_words(len(faster), unusable, faster_words(faster))
        say_empty(ax, words)
        ax.set_title(RATIO_TITLE)
        drawn[words] = ([], [])  # the panel's words, as a legend note is returned
        return
    if faster:  # never drawn as an efficiency above its instances' line: counted in the legend
        # the table's words (trial 24, T24-1: "served faster" left out levels whose throughput ratio, this axis, was below 1)
        label = f"{count(len(faster), 'level')} left out: {faster_words(faster)} (not evidence; measured under different load)"
        ax.plot([], [], ls="none", label=label)
        drawn[label] = ([], [])
    _ceilings(ax, shown, drawn)
    concurrency_axis(ax, {r.point.concurrency for r in shown} or {r.point.concurrency for r in rows})
    ax.set_ylabel("served ÷ in-process throughput")
    ax.set_title(RATIO_TITLE)
    _legend_below(ax)


def _ceilings(ax, shown: Sequence[EfficiencyRow], drawn: dict) -> None:
    """The line at 1 (one instance's in-process throughput) and, per instance count ``n`` of the drawn
    variants, the most ``n`` instances can give (``n`` x one in-process: the rule that leaves a level out,
    :func:`perf.analysis.efficiency.served_faster`): a 2-instance variant drawn at 1.41 sits under its own
    line, not above the only one (trial 25, T25-24)."""
    counts = sorted({ceiling(r) for r in shown})
    styles = (":", "--", "-.")
    for i, n in enumerate(sorted({1, *counts})):
        if n == 1:
            label = "1 = one instance in-process" + (": the most a 1-instance variant can give" if 1 in counts else "")
        else:
            label = f"{n} = the most a {n}-instance variant can give ({n} × one instance in-process)"
        line = ax.axhline(float(n), color=REFERENCE, linestyle=styles[min(i, len(styles) - 1)], linewidth=1, label=label)
        drawn[label] = xy(line)


def ceiling(row: EfficiencyRow) -> int:
    """The highest served ÷ in-process ratio ``row``'s instances can give: its instance count (at least 1)."""
    return max(1, row.target.instances)


def no_ratio_words(faster: int, unusable: int = 0, what: str = "") -> str:
    """The ratio panel's words when it shows no level (``faster``: the levels it has that were served
    faster than in-process; ``unusable``: :func:`perf.analysis.efficiency.baseline_unusable` of all the run's
    rows, which decides whether the baseline is called unusable and is the count then named; ``what``: what
    beat the in-process call, :func:`perf.analysis.efficiency.faster_words`)."""
    if not faster:
        return "No level to show: no level has both a served run and an in-process point at its batch."
    n = unusable or faster
    said = (
        f"No level to show: {'the' if n == 1 else 'all'} {count(n, 'level')} with an in-process point "
        if unusable
        else f"No level to show: the {count(n, 'level')} drawn with an in-process point "
    )
    said += f"{'was' if n == 1 else 'were'} served faster than in-process{f' ({what})' if what else ''}, which is not evidence (measured under different load)"
    if not unusable:  # another variant's level is evidence: report.md's table and appendix have it
        return said + "."
    return said + f": {UNUSABLE}; measure it again on a quiet host (report.md says how)."


def _time_panel(ax, best: dict[str, EfficiencyRow], drawn: dict) -> None:
    names = list(best)
    left = [0.0] * len(names)
    for field, label, fill in SEGMENTS:
        widths = [_segment(best[n], field) for n in names]
        ax.barh(names, widths, left=left, label=label, color=fill.colour, hatch=fill.hatch, edgecolor=fill.hatch_colour, lw=0)
        drawn[label] = ([float(i) for i in range(len(names))], [float(w) for w in widths])
        left = [a + b for a, b in zip(left, widths)]
    negative = [n for n in names if (best[n].overhead_us or 0.0) < 0]
    if negative:
        label = f"{count(len(negative), 'variant')} with a negative overhead: compute infer drawn whole as in-process (compute infer below in-process)"
        ax.plot([], [], ls="none", label=label)  # words, no swatch: an empty bar's swatch took the default blue (T17-8)
        drawn[label] = ([], [])
    ax.set_xlabel("µs per request (at each variant's highest throughput)")
    ax.set_title(TIME_TITLE)
    ax.invert_yaxis()
    ax.tick_params(axis="y", labelsize=7)
    _legend_below(ax)


def _legend_below(ax) -> None:
    """The panel's legend under its x label, outside the data: inside, it hid the bottom bars'
    segments (trial 9 F38: compute output and client recv of the last two variants). Labels wrap at
    :data:`perf.plots.canvas.LEGEND_WRAP` characters and the legend stays within its half of the figure
    (two columns, then one, then a smaller font): a long note ran into the other panel's legend (trial 17, T17-8)."""
    entries = list(zip(*ax.get_legend_handles_labels(), strict=True))
    notes = [(h, t) for h, t in entries if _words_only(h)]  # the notes (no swatch) after the swatches
    handles, labels = zip(*[e for e in entries if e not in notes], *notes, strict=True) if entries else ((), ())
    wrapped = [textwrap.fill(label, LEGEND_WRAP, break_long_words=False, break_on_hyphens=False) for label in labels]
    renderer = ax.figure.canvas.get_renderer()
    half = ax.figure.bbox.width / 2
    for ncol, size in ((2, 7.0), (1, 7.0), (1, 6.0), (1, 5.0)):
        legend = ax.legend(
            handles, wrapped, fontsize=size, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=ncol, frameon=False
        )
        if legend.get_window_extent(renderer).width <= half:
            return


def _words_only(handle) -> bool:
    """Whether a legend handle draws nothing (a note: an empty line without a marker)."""
    return getattr(handle, "get_linestyle", lambda: "-")() in ("None", "none", "") and handle.get_marker() in (None, "None", "")


def _segment(r: EfficiencyRow, field: str) -> float:
    """A segment of the stacked bar (µs): a perf_analyzer component, or compute infer split
    into in-process time and overhead (a negative overhead draws compute infer whole as in-process)."""
    if field == "in_process":
        return min(r.in_process_us or 0.0, r.compute_infer_us or 0.0)
    if field == "overhead":
        return max(r.overhead_us or 0.0, 0.0)
    assert field in dict(COMPONENTS)
    return r.components.get(field) or 0.0
