"""Tick labels of every plot's number axes, set once when a figure is saved (:func:`save`).

The rule (reviewer, session 6: a log axis labelled "1e+06", and 18 labels on a 6-decade axis):

* a tick label is a plain number (:func:`tick_text`): thousands separators below 10,000, an SI-like
  short form from there (``20k``, ``1.5M``), never scientific notation;
* one style per axis (:func:`axis_texts`; trial 25, T25-15: ``0  5,000  10k  15k``): an axis with a
  tick from 10,000 writes every tick from 1,000 in the short form (``0  5k  10k  15k``; a log axis
  ``100  1k  10k``), one whose ticks stay below writes them all out (``0  2,500  5,000``);
* a log axis is labelled 1, 2 and 5 per decade up to :data:`DENSE_DECADES` decades, 1s only
  beyond, and never more than :data:`MAX_TICKS` labels (decades skipped evenly past that);
* a concurrency axis (log2) is labelled at the measured levels (:func:`concurrency_axis`), at most
  :data:`MAX_TICKS` of them: past that, the powers of two, then every k-th.

Axes whose labels are names (bar charts' variants) keep them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from pathlib import Path

from perf.plots.empty import blank_empty

#: Decades a log axis spans before it labels only 1s (1, 2 and 5 per decade up to here).
DENSE_DECADES = 3.0
#: The most labels a number axis shows.
MAX_TICKS = 10
#: SI-like short forms from 10,000 up: (factor, suffix).
SHORT_FORMS = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))
#: Below this, a number is written out with thousands separators.
SHORT_FROM = 10_000.0


def tick_text(value: float, short_from: float = SHORT_FROM) -> str:
    """A tick's label: ``"0.002"``, ``"0.5"``, ``"20"``, ``"1,500"``, ``"20k"``, ``"1.5M"`` (module rule).

    Args:
        value: The tick's value (any float; ticks are round numbers, so at most three
            significant digits are shown).
        short_from: The size from which the short form is written (:func:`axis_texts` lowers it
            to 1,000 for an axis that has a tick from :data:`SHORT_FROM`).

    Returns:
        A plain number: never ``"1e+06"``, and a value that is not zero never reads ``"0"``.
    """
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else str(value)
    sign, v = ("-" if value < 0 else ""), float(f"{abs(value):.3g}")  # rounded first: 999,999 is 1M, not 1,000k
    if v >= short_from:
        factor, suffix = next((f, s) for f, s in SHORT_FORMS if v >= f)
        return sign + _plain(v / factor) + suffix
    return sign + _plain(v)


def axis_texts(values: Sequence[float]) -> list[str]:
    """The labels of one axis' ticks ``values``, in one style (module rule): the short form for every
    tick from 1,000 when any tick reaches :data:`SHORT_FROM` (``0, 5k, 10k``), else written out."""
    short_from = _short_from(values)
    return [tick_text(v, short_from) for v in values]


def _short_from(values: Iterable[float]) -> float:
    """1,000 when a tick of ``values`` (rounded as shown) reaches :data:`SHORT_FROM`, else :data:`SHORT_FROM`."""
    top = max((abs(float(f"{v:.3g}")) for v in values if math.isfinite(v)), default=0.0)
    return 1_000.0 if top >= SHORT_FROM else SHORT_FROM


def axis_formatter():
    """A matplotlib formatter that labels an axis' ticks together (:func:`axis_texts`), the style chosen
    from the ticks inside the axis' view (a locator's ticks past the limits are not drawn)."""
    from matplotlib.ticker import Formatter

    class OneStyle(Formatter):
        def format_ticks(self, values):
            shown = list(values)
            if self.axis is not None:
                lo, hi = sorted(self.axis.get_view_interval())
                shown = [v for v in shown if lo <= v <= hi] or shown
            short_from = _short_from(shown)
            return [tick_text(v, short_from) for v in values]

        def __call__(self, x, pos=None):
            return tick_text(x)

    return OneStyle()


def _plain(v: float) -> str:
    """``v`` (> 0) with thousands separators and the decimals three significant digits need, trailing zeros cut."""
    decimals = max(0, 2 - math.floor(math.log10(v)))
    text = f"{v:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def concurrency_axis(ax, levels: Iterable[int], label: str = "concurrency") -> None:
    """A log2 x axis labelled at the measured concurrency ``levels`` (module rule), no minor ticks."""
    ticks = thinned(sorted(set(levels)))
    ax.set_xscale("log", base=2)
    ax.set_xticks(ticks, axis_texts(ticks))  # the measured levels only (no "2^-1" for a one-level run)
    ax.minorticks_off()
    ax.set_xlabel(label)


def thinned(levels: Sequence[int], most: int = MAX_TICKS) -> list[int]:
    """At most ``most`` of the sorted ``levels``: all of them, else the powers of two among them,
    else every k-th (the first and the last kept)."""
    if len(levels) <= most:
        return list(levels)
    powers = [c for c in levels if c > 0 and c & (c - 1) == 0]
    if 2 <= len(powers) <= most:
        return powers
    step = math.ceil((len(levels) - 1) / (most - 1))
    return sorted({*levels[::step], levels[-1]})[-most:]


def label_numbers(fig) -> None:
    """Apply the module rule to every number axis of ``fig``: a log10 axis gets its locator and
    labels; a linear one plain labels; fixed ticks (set by :func:`concurrency_axis`) and named ones stay."""
    from matplotlib.ticker import FixedLocator, LogLocator, NullFormatter, ScalarFormatter

    for ax in fig.axes:
        for axis, limits in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
            if isinstance(axis.get_major_locator(), FixedLocator):
                continue
            if axis.get_scale() == "log" and getattr(axis.get_transform(), "base", 10) == 10:
                low, high = sorted(abs(x) for x in limits)
                decades = math.log10(high / low) if low > 0 else math.inf
                subs = (1.0, 2.0, 5.0) if decades <= DENSE_DECADES else (1.0,)
                axis.set_major_locator(LogLocator(base=10, subs=subs, numticks=MAX_TICKS))
                axis.set_major_formatter(axis_formatter())
                axis.set_minor_formatter(NullFormatter())
            elif axis.get_scale() == "linear" and isinstance(axis.get_major_formatter(), ScalarFormatter):
                axis.set_major_formatter(axis_formatter())


def save(fig, path: Path, tight: bool = True) -> None:
    """Label ``fig``'s number axes (:func:`label_numbers`), say in words what a panel with no data
    holds (:func:`perf.plots.empty.blank_empty`: no broken tick scale) and write it to ``path``
    (PNG, 110 dpi): the one place a plot is saved, so no plot escapes the rule."""
    blank_empty(fig)
    label_numbers(fig)
    fig.savefig(path, dpi=110, bbox_inches="tight" if tight else None)
