"""A panel with nothing to draw says so in words, with no number axes (trial 21, T21-3).

A panel whose every point was left out (the serving-efficiency panel when every level was served
faster than in-process; a batch size's panel of a metric no level of it has) drew an empty frame: a
reference line, default y ticks around it and the measured levels' x ticks piled on one edge
of an axis with no data to scale it. :func:`say_empty` writes why a panel is empty in it;
:func:`blank_empty` (run by :func:`perf.plots.ticks.save`, the one place a plot is saved) gives every
panel without data that treatment, with its own words or the default :data:`NOTHING_DRAWN`.
"""

from __future__ import annotations

import math
import textwrap

#: The words of an empty panel that gave none of its own.
NOTHING_DRAWN = "Nothing to show here: no level of this panel has a value to draw."
#: The gid of the words :func:`say_empty` writes (how :func:`blank_empty` and tests find them).
EMPTY_GID = "empty-panel"
#: Characters per line of an empty panel's words.
WRAP = 44


def say_empty(ax, words: str) -> None:
    """Write ``words`` (why nothing is drawn) in the middle of ``ax`` and take its number axes away."""
    for line in ax.get_lines():  # reference lines (a budget, 1.0): nothing to refer to
        line.set_visible(False)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_xlabel("")
    ax.set_ylabel("")
    ax.text(
        0.5,
        0.5,
        textwrap.fill(words, WRAP, break_long_words=False, break_on_hyphens=False),
        transform=ax.transAxes,
        ha="center",
        va="center",
        fontsize=9,
        gid=EMPTY_GID,
    )


def empty_words(ax) -> str | None:
    """The words :func:`say_empty` wrote in ``ax`` (unwrapped to one line), ``None`` where it wrote none."""
    return next((" ".join(t.get_text().split()) for t in ax.texts if t.get_gid() == EMPTY_GID), None)


def has_data(ax) -> bool:
    """Whether ``ax`` draws a data point: a line, scatter or line collection with a finite value in
    data coordinates, or a bar of some size (reference lines such as ``axhline`` and legend-only
    artists do not count)."""
    for line in ax.get_lines():
        if line.get_visible() and line.get_transform() == ax.transData and _finite(line.get_xydata()):
            return True
    for coll in ax.collections:
        if _finite(coll.get_offsets()) or any(len(s) and _finite(s) for s in getattr(coll, "get_segments", list)()):
            return True
    return any(abs(p.get_width()) > 0 and abs(p.get_height()) > 0 for p in ax.patches if hasattr(p, "get_width"))


def blank_empty(fig) -> None:
    """Every panel of ``fig`` without data (:func:`has_data`) gets :func:`say_empty`'s treatment
    (its own words where it wrote them, else :data:`NOTHING_DRAWN`)."""
    for ax in fig.axes:
        if ax.get_label() == "<colorbar>" or has_data(ax):
            continue
        if empty_words(ax) is None:
            say_empty(ax, NOTHING_DRAWN)
        else:
            ax.set_xticks([])
            ax.set_yticks([])


def _finite(values) -> bool:
    """Whether ``values`` (rows of (x, y)) hold a row with both finite."""
    try:
        return any(math.isfinite(float(x)) and math.isfinite(float(y)) for x, y in values)
    except (TypeError, ValueError):
        return False
