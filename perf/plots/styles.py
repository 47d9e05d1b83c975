"""Which variants a plot highlights, and a look for each that no other series shares.

Up to :data:`ALL_DISTINCT` variants every one is drawn in its own style. Beyond that the
plots highlight the top N by peak throughput (the recommendation's rule,
:func:`perf.analysis.recommendation.frontier.best_levels`), the variants on the Pareto frontier and the recommended
ones; the others are faint grey context without a legend entry each.

A :class:`Style` is a colour (:data:`perf.plots.palette.SERIES`), a marker and a line style;
:func:`style` gives series ``i`` a combination no other ``i < MAX_STYLES`` has: the colour
cycles fastest, the marker shifts by one every ten series, the line style every ten too, so
neighbours in the legend differ in colour and (past ten) in marker and dash. A colour of
:data:`COLOURS` is a variant's: lines that are not variants (the small multiples') take
:func:`not_a_variant`'s greys.

:func:`series_looks` is the one source of every series' look in every plot of a run (the curves,
the frontier's points and labels, the picks' marks, request_rates.png, serving_efficiency.png,
report.html): it depends on the run alone, never on the recommendation, so a what-if report's plots
(another budget or percentile) draw a series as the run's own do (trial 15, T15-4: the ``--shapes``
series were blue T=16 / orange T=128 in throughput_vs_p99.png and the frontiers yellow T=16 / blue
T=128 in pareto_frontier.png; the picks were black, whichever workload they were of).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

from perf.analysis.recommendation.frontier import best_level_frontier, best_levels, operating_frontier
from perf.analysis.recommendation.recommend import Recommendation
from perf.analysis.stats.points import THROUGHPUT, Point
from perf.markdown import TOP_N
from perf.plots.palette import CONTEXT, GREYS, SERIES
from perf.plots.picks import LOWEST, judged_latency, pick_points, picked_variants
from perf.records.results import RunResult

#: Variants drawn each in its own style without selection.
ALL_DISTINCT = 10
COLOURS = SERIES
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h")
LINESTYLES = ("-", "--", "-.", ":")
#: Series that get pairwise-distinct styles (colour x marker pairs).
MAX_STYLES = len(COLOURS) * len(MARKERS)
#: The look of context series (not highlighted).
GREY = CONTEXT


@dataclasses.dataclass(frozen=True)
class Style:
    """One series' look: matplotlib colour, marker and line style."""

    colour: str
    marker: str
    linestyle: str

    @property
    def key(self) -> tuple[str, str, str]:
        """``(colour, marker, linestyle)``: equal keys look the same."""
        return (self.colour, self.marker, self.linestyle)


def style(i: int) -> Style:
    """The look of series ``i`` (0-based); distinct from every other ``i < MAX_STYLES``.

    Raises:
        ValueError: ``i`` is negative.
    """
    if i < 0:
        raise ValueError(f"series index {i} < 0")
    c, decade = i % len(COLOURS), (i // len(COLOURS)) % len(MARKERS)
    # (colour, marker) is unique below MAX_STYLES: the colour gives i mod 10, the marker shift gives the decade
    return Style(COLOURS[c], MARKERS[(c + decade) % len(MARKERS)], LINESTYLES[decade % len(LINESTYLES)])


def not_a_variant(i: int) -> Style:
    """The look of line ``i`` of a plot whose lines are not variants (the small multiples': a setting's values),
    distinct from every other ``i < len(MARKERS)``: a grey of :data:`perf.plots.palette.GREYS` with its own marker and
    a line style. Never a colour of :data:`COLOURS`, each a variant's in the run's other plots (trial 28, T28-6: the
    small multiples' "batching off · torchscript" line was orange, the pick's colour everywhere else)."""
    return Style(GREYS[i % len(GREYS)], MARKERS[i % len(MARKERS)], LINESTYLES[i % len(LINESTYLES)])


def series_looks(points: dict[str, list[Point]], failed: Iterable[str] = (), run: RunResult | None = None) -> dict[str, Style]:
    """``{series: Style}`` of every series with a measured level (module docstring): up to
    :data:`ALL_DISTINCT` in the run's order, beyond in order of peak throughput (the order
    :func:`highlighted` takes its top N in, so the top N look as they did), then the failed ones.
    Past :data:`MAX_STYLES` series the looks repeat (:func:`styles` keeps the highlighted ones apart)."""
    names = [n for n, pts in points.items() if any(p.ok for p in pts)]
    if len(names) > ALL_DISTINCT:
        best = best_levels(points, failed, run)
        ranked = sorted(best, key=lambda n: -best[n].value(THROUGHPUT))
        names = [*ranked, *(n for n in names if n not in best)]
    return {n: style(i) for i, n in enumerate(names)}


def highlighted(
    points: dict[str, list[Point]],
    rec: Recommendation | None,
    failed: Iterable[str] = (),
    top_n: int = TOP_N,
    per_workload: Mapping[str, Recommendation] | None = None,
    run: RunResult | None = None,
) -> list[str]:
    """The variants a plot draws in their own style, in legend order.

    Every variant up to :data:`ALL_DISTINCT`; beyond, the ``top_n`` by peak throughput, then
    the variants on the frontier (at their best level, and over every level) and the
    recommended ones not among them: every client workload's (``per_workload``,
    :func:`perf.plots.picks.pick_points`; default ``rec``'s). A variant's peak and best level are
    the ones the console table and the report name
    (:func:`perf.analysis.recommendation.frontier.best_levels`: ``run``'s paired rule for a rounds sweep).
    """
    names = [n for n, pts in points.items() if any(p.ok for p in pts)]
    if len(names) <= ALL_DISTINCT:
        return names
    failed = set(failed)
    best = best_levels(points, failed, run)
    ranked = sorted(best, key=lambda n: -best[n].value(THROUGHPUT))
    chosen = ranked[:top_n]
    lat = judged_latency(rec)[0]  # the frontier the plots draw: on the budget's latency
    extra = [p.variant for p in [*best_level_frontier(points, failed, run, lat), *operating_frontier(points, failed, lat)]]
    extra += picked_variants(p for p in pick_points(rec, per_workload) if p.kind != LOWEST)
    for n in extra:
        if n not in chosen:
            chosen.append(n)
    return chosen[:MAX_STYLES]


def styles(
    points: dict[str, list[Point]],
    rec: Recommendation | None,
    failed: Iterable[str] = (),
    top_n: int = TOP_N,
    per_workload: Mapping[str, Recommendation] | None = None,
    run: RunResult | None = None,
) -> dict[str, Style]:
    """``{variant: Style}`` for :func:`highlighted` variants, in legend order, each its look of
    :func:`series_looks` (a look another highlighted series took first, past :data:`MAX_STYLES`
    series: the first one free); every other variant is context (grey)."""
    looks = series_looks(points, failed, run)
    out: dict[str, Style] = {}
    for n in highlighted(points, rec, failed, top_n, per_workload, run):
        taken = {s.key for s in out.values()}
        look = looks.get(n, style(len(out)))
        out[n] = look if look.key not in taken else next(s for j in range(MAX_STYLES) if (s := style(j)).key not in taken)
    return out
