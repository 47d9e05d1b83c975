"""The canvas of the sweep's plots: matplotlib (Agg, imported lazily), stacked panels with the
legend to their right, labels that never overlap each other or cover a point, nor lie across a line where they fit elsewhere (:func:`place_labels`), and :func:`finish`,
which saves a figure and reads back what it drew, so tests can check the picture's data:
``{panel title: {curve label: (xs, ys)}}``.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from core.wording import agree, count
from perf.analysis.stats.points import Point
from perf.markdown import UNSTABLE_MARK
from perf.plots.palette import BLACK, ink
from perf.plots.ticks import save
from perf.records.levels import HOST_BUSY, UNSTABLE

if TYPE_CHECKING:  # matplotlib is imported lazily (pyplot)
    from matplotlib.lines import Line2D

Drawn = dict[str, dict[str, tuple[list[float], list[float]]]]
#: Legend entries beside a panel before the legend takes two columns.
LEGEND_ROWS = 16
#: Characters per line of a legend label (longer ones wrap): a legend stays narrower than its panel.
LEGEND_WRAP = 48
#: The legend entry of the rings round flagged levels (:func:`ring_flagged`), one wording in every plot: the two
#: flags the tables mark with † (:func:`perf.markdown.flag_mark` of a level's
#: :attr:`~perf.analysis.stats.points.Point.flags`). Trial 28, T28-6: the small multiples said "ring: a flagged level
#: behind the point † host busy" of levels the tables call "host busy; unstable", the request-rate plot "(ring)".
RING_LABEL = f"flagged level: {UNSTABLE} or {HOST_BUSY} (ring, {UNSTABLE_MARK})"
#: A latency axis spanning more than this ratio (max / min) is drawn on a log scale.
LOG_SPAN = 20.0
#: Label positions tried around a point, in order: (dx, dy) in points, horizontal and vertical alignment.
LABEL_OFFSETS = (
    (5, 4, "left", "bottom"),
    (5, -4, "left", "top"),
    (-5, 4, "right", "bottom"),
    (-5, -4, "right", "top"),
    (5, 13, "left", "bottom"),
    (-5, 13, "right", "bottom"),
    (5, -13, "left", "top"),
    (-5, -13, "right", "top"),
    (14, 0, "left", "center"),
    (-14, 0, "right", "center"),
)

#: The margin around a label's box (display pixels) that no other label or marker may enter.
LABEL_PAD = 1.0
#: How many times farther from a label than its own point every other marker must be (:func:`place_labels`).
NEARER_X = 2.0


def pyplot():
    """matplotlib.pyplot on the Agg backend (imported on first use)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def batch_sizes(points: dict[str, list[Point]]) -> list[int]:
    """Client batch sizes with a measured level, ascending: one panel each."""
    return sorted({p.batch_size for pts in points.values() for p in pts if p.ok})


def panel_title(title: str, batch_size: int) -> str:
    """``"Throughput vs concurrency — client batch size 4"``."""
    return f"{title} — client batch size {batch_size}"


def place_labels(
    ax,
    items: Sequence[tuple[float, float, str] | tuple[float, float, str, str]],
    fontsize: float = 7,
    avoid: Sequence[tuple[float, float, float]] = (),
    *,
    what: str,
    listed: str,
    apart: bool = False,
    lines: Sequence[Line2D] = (),
) -> tuple[list, int]:
    """Annotate points so that no label overlaps another label or covers a point (simple
    collision avoidance), and say in the legend how many were left out.

    Each label tries :data:`LABEL_OFFSETS` around its point in turn and takes the first
    position whose box (display coordinates) lies inside the axes, overlaps no label placed
    before and covers no marker drawn on the axes (:func:`_markers`: every point of a line with
    a marker, the grey context points and the picks' stars included; trial 9, F31: a grey level
    was hidden under a frontier label), and with ``apart`` lies :data:`NEARER_X` times nearer its own point
    than any other marker (:func:`_nearer_other`); a label that fits nowhere is left out, and a legend entry says how
    many and where every point is listed: ``"1 combination label left out where it would overlap a label or
    cover a point (report.md's table lists every one)"``, on every plot that labels points (trial 19, T19-9:
    the co-location plot left a point unlabelled and said nothing, the Pareto plot said it). Call after the
    axes' limits are final and every point is drawn, before :func:`finish` (which draws the legend).

    Args:
        ax: Matplotlib axes.
        items: ``(x, y, text)`` in data coordinates, or ``(x, y, text, colour)``: a label of a series,
            its text in the series' colour (:func:`perf.plots.palette.ink`), so that two labels alike
            (``c=4†`` of two workloads' series) say which point each is of (trial 15, T15-4); black without.
        fontsize: Label size (points).
        avoid: ``(x, y, radius)``: more markers (data coordinates, radius in display pixels) no
            label may cover, beyond those drawn on the axes.
        what: What one label is, counted in the note (``"c= label"``, ``"frontier label"``).
        listed: Where the reader finds every point, said in the note's parentheses (``"the tables list every level"``).
        apart: Points that no curve joins, each a thing of its own (the co-location plot's combinations): a label
            must not sit nearer another point than :data:`NEARER_X` times its own point's distance. Off (default)
            for curves, whose labels (``c=4``) next to the same curve's neighbours say their order, in its colour.
        lines: Lines no label may cross where a position clear of them exists (:func:`_drawn_paths`: as drawn, a
            staircase's steps included; trial 26, T26-7: the Pareto frontier ran through its pick's label); a label
            that fits only across one is still placed there rather than left out.

    Returns:
        The annotations placed and the number left out.
    """
    fig = ax.figure
    fig.canvas.draw()  # final limits and transforms
    renderer = fig.canvas.get_renderer()
    from matplotlib.transforms import Bbox

    frame = ax.get_window_extent(renderer)
    taken: list[Bbox] = []
    centres, radii = _markers(ax)
    for x, y, r in avoid:
        px, py = ax.transData.transform((x, y))
        taken.append(Bbox.from_extents(px - r, py - r, px + r, py + r))
    paths = _drawn_paths(ax, lines)
    tries = [(o, True) for o in LABEL_OFFSETS] + ([(o, False) for o in LABEL_OFFSETS] if paths else [])
    placed, left_out = [], 0
    for x, y, text, *colour in items:
        for (dx, dy, ha, va), off_lines in tries:
            ann = ax.annotate(
                text,
                (x, y),
                xytext=(dx, dy),
                textcoords="offset points",
                ha=ha,
                va=va,
                fontsize=fontsize,
                alpha=0.85,
                color=ink(colour[0]) if colour else BLACK,
            )
            box = ann.get_window_extent(renderer).padded(LABEL_PAD)  # a fixed margin: a 3-line label's is a 1-line one's
            inside = frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1
            clear = not any(box.overlaps(b) for b in taken) and not _covers(box, centres, radii)
            clear = clear and not (off_lines and any(path.intersects_bbox(box, filled=False) for path in paths))
            if inside and clear and not (apart and _nearer_other(box, ax.transData.transform((x, y)), centres)):
                taken.append(box)
                placed.append(ann)
                break
            ann.remove()
        else:
            left_out += 1
    if left_out:
        ax.plot(
            [],
            [],
            ls="none",
            label=f"{count(left_out, what)} left out where {agree(left_out, 'it', 'they')} would overlap a label or "
            f"cover a point ({listed})",
        )
    return placed, left_out


def joined_lines(ax) -> list[Line2D]:
    """The lines drawn on ``ax`` that join points (a curve, a frontier's staircase, a budget line): every visible one
    with a line style, for :func:`place_labels`' ``lines``."""
    return [ln for ln in ax.get_lines() if ln.get_visible() and ln.get_linestyle() not in ("None", "none", "", " ")]


def _drawn_paths(ax, lines: Sequence[Line2D]) -> list:
    """Each of ``lines`` as drawn on ``ax``, in display pixels: its finite points joined in order, with the steps its
    drawstyle puts between them (``steps-post``: across, then up), as matplotlib draws it."""
    from matplotlib.cbook import STEP_LOOKUP_MAP
    from matplotlib.path import Path as MplPath

    out = []
    for line in lines:
        xs, ys = np.asarray(line.get_xdata(), dtype=float), np.asarray(line.get_ydata(), dtype=float)
        keep = np.isfinite(xs) & np.isfinite(ys)
        if keep.sum() < 2:
            continue
        xy = line.get_transform().transform(np.column_stack([xs[keep], ys[keep]]))
        steps = STEP_LOOKUP_MAP[line.get_drawstyle() or "default"](xy[:, 0], xy[:, 1])
        out.append(MplPath(np.column_stack(steps)))
    return out


def _markers(ax) -> tuple[np.ndarray, np.ndarray]:
    """Every marker drawn on ``ax``: centres ``(n, 2)`` and radii ``(n,)`` in display pixels (half
    the marker size, at least 2 px); lines without a marker (a budget line) have none."""
    centres, radii = [], []
    px_per_pt = ax.figure.dpi / 72.0
    for line in ax.get_lines():
        if line.get_marker() in (None, "None", "", " ", "none") or not line.get_visible():
            continue
        xs, ys = np.asarray(line.get_xdata(), dtype=float), np.asarray(line.get_ydata(), dtype=float)
        keep = np.isfinite(xs) & np.isfinite(ys)
        if not keep.any():
            continue
        centres.append(line.get_transform().transform(np.column_stack([xs[keep], ys[keep]])))
        radii.append(np.full(int(keep.sum()), max(2.0, line.get_markersize() * px_per_pt / 2)))
    if not centres:
        return np.empty((0, 2)), np.empty(0)
    return np.concatenate(centres), np.concatenate(radii)


def _nearer_other(box, own: np.ndarray, centres: np.ndarray) -> bool:
    """Whether a marker other than the label's own point (``own``, display coordinates) is less than
    :data:`NEARER_X` times as far from ``box`` as its own point: the label could read as that point's (trial 19,
    T19-9: a label 16 px left of its point ended 20 px from the next point's marker, between the two)."""
    if not len(centres):
        return False
    dx = np.maximum(np.maximum(box.x0 - centres[:, 0], centres[:, 0] - box.x1), 0.0)
    dy = np.maximum(np.maximum(box.y0 - centres[:, 1], centres[:, 1] - box.y1), 0.0)
    far = np.hypot(dx, dy)
    mine = np.hypot(*(centres - own).T) < 0.5
    ox = max(box.x0 - own[0], own[0] - box.x1, 0.0)
    oy = max(box.y0 - own[1], own[1] - box.y1, 0.0)
    return bool(np.any(far[~mine] < NEARER_X * np.hypot(ox, oy)))


def _covers(box, centres: np.ndarray, radii: np.ndarray) -> bool:
    """Whether ``box`` (display coordinates) overlaps the square around any marker."""
    if not len(radii):
        return False
    x, y = centres[:, 0], centres[:, 1]
    return bool(np.any((x + radii > box.x0) & (x - radii < box.x1) & (y + radii > box.y0) & (y - radii < box.y1)))


def finish(fig, ax_list, path: Path) -> Drawn:
    """Add legends and grids, save the figure to ``path`` (PNG, 110 dpi) and close it.

    Args:
        fig: The matplotlib figure.
        ax_list: Its panels.
        path: The PNG file written.

    Returns:
        What was drawn, read back from the axes: panel title -> series label -> its ``(x, y)`` values.
    """
    from matplotlib.container import ErrorbarContainer

    drawn: Drawn = {}
    for ax in ax_list:
        legend_beside(ax)
        ax.grid(True, alpha=0.3, axis="y" if one_x(ax) else "both")
        drawn[ax.get_title()] = {  # errorbar() labels its container; the data line is lines[0]
            label: xy(c.lines[0])
            for c in ax.containers
            if isinstance(c, ErrorbarContainer) and (label := c.get_label()) is not None and not label.startswith("_")
        }
        drawn[ax.get_title()].update(
            {  # the marks of recommended levels (and other labelled plain markers)
                m.get_label(): xy(m)
                for m in ax.get_lines()
                if not m.get_label().startswith("_") and m.get_marker() not in (None, "None", "")
            }
        )
    save(fig, path)
    pyplot().close(fig)
    return drawn


def series_linestyle(linestyle: str, xs: Sequence[float]) -> str:
    """A series' line style: its own, or ``"none"`` (markers only) when it has a single x value —
    a line through one x draws nothing but shows as a line in the legend (issue 26)."""
    return linestyle if len(set(xs)) > 1 else "none"


def one_x(ax) -> bool:
    """Whether every data line of ``ax`` sits at one x value (a one-level run): its x grid line
    would be drawn through every point as if it were a curve, so :func:`finish` leaves it out."""
    xs = {float(x) for line in ax.get_lines() for x in np.asarray(line.get_xdata(), dtype=float)}
    return len(xs) == 1


def legend_beside(ax) -> None:
    """The panel's legend to its right, never wider than the panel (issue 26: the p99 plot's legend
    was wider than its plot): labels wrapped at :data:`LEGEND_WRAP` characters, two columns for a
    long legend (more than :data:`LEGEND_ROWS` entries: a large run's highlighted variants), and
    one column, then a smaller font, while it is still wider. The artists keep their labels."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return
    wrapped = [textwrap.fill(label, LEGEND_WRAP, break_long_words=False, break_on_hyphens=False) for label in labels]
    renderer = ax.figure.canvas.get_renderer()
    width = ax.get_window_extent(renderer).width
    tries = [(2 if len(handles) > LEGEND_ROWS else 1, 7.0), (1, 7.0), (1, 6.0), (1, 5.0)]
    for ncol, size in dict.fromkeys(tries):
        legend = ax.legend(
            handles, wrapped, fontsize=size, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0, ncol=ncol
        )
        if legend.get_window_extent(renderer).width <= width:
            return


def xy(line: Line2D) -> tuple[list[float], list[float]]:
    """The data a line drew, as plain floats."""
    return (np.asarray(line.get_xdata(), dtype=float).tolist(), np.asarray(line.get_ydata(), dtype=float).tolist())


def panels(n: int, height: float = 4.5):
    """``n`` stacked axes in a fixed layout (legends go right of the axes, in the figure's
    right third): the axes never move after :func:`place_labels` measured the labels."""
    fig, axes = pyplot().subplots(n, 1, figsize=(14, height * n), squeeze=False)
    fig.subplots_adjust(left=0.07, right=0.64, top=1 - 0.45 / (height * n), bottom=0.55 / (height * n), hspace=0.45)
    return fig, list(axes[:, 0])


def log_scale_if_wide(ax, values: Sequence[float], axis: str = "x") -> None:
    """Put ``axis`` on a log scale when ``values`` (all > 0) span more than :data:`LOG_SPAN`:
    a few overloaded levels at seconds would otherwise squash every other point into one edge.
    Its ticks are plain numbers, set when the figure is saved (:mod:`perf.plots.ticks`)."""
    vals = [v for v in values if v > 0]
    if vals and max(vals) / min(vals) > LOG_SPAN:
        (ax.set_xscale if axis == "x" else ax.set_yscale)("log")


def ring_flagged(
    ax, flagged: Sequence[tuple[float, float]], colour: str | Sequence[str], legend: bool, many: bool = False
) -> None:
    """Ring ``flagged`` points (unstable or host busy levels) hollow in their line's ``colour`` (one, or one per
    point), the one status mark of the level plots; ``legend``: add the legend entry, :data:`RING_LABEL`, drawn
    apart in black (a ring takes each series' colour, so the entry is no series': trial 7, F22), once per panel.
    ``many``: smaller rings, or they hide the curves."""
    if not flagged:
        return
    size, width = (55, 1.0) if many else (110, 1.5)
    xs, ys = [x for x, _ in flagged], [y for _, y in flagged]
    ax.scatter(xs, ys, s=size, facecolors="none", edgecolors=colour, linewidths=width, zorder=3)
    if legend:
        ax.scatter([], [], s=size, facecolors="none", edgecolors=BLACK, linewidths=width, label=RING_LABEL)
