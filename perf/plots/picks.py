"""The recommended levels as every plot marks them: :func:`pick_points` gives each pick's point,
one set per client workload, at the numbers the report's tables and recommendation text give it,
with the tables' flag mark. A plot draws these points and never looks a pick's numbers up again
(trial 11, F20: with ``--batch-sizes 1,8`` the plots starred the first workload's pick only, at
its p99 over every round, right of the budget line for a pick within the budget on its quieter
rounds).

The point: throughput the level's median (:attr:`perf.analysis.recommendation.choice.Choice.throughput_infer_per_s`);
p99 the level's median (:attr:`~perf.analysis.recommendation.choice.Choice.latency_p99_ms`, the tables'
column), except for a best under a p99 budget within it only on its quieter rounds
(:mod:`perf.analysis.ranking.budget_latency`): there the number the verdict used, which the tables and
the recommendation say beside the median (:attr:`~perf.analysis.recommendation.choice.Choice.judged_note`); and
for the level closest to a p99 budget no level meets, the p99 that budget judged it on
(:attr:`perf.analysis.recommendation.missed.Missed.lowest_ms`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from perf.analysis.recommendation.choice import Choice
from perf.analysis.recommendation.recommend import Recommendation
from perf.analysis.saturation.peaks import peak_title
from perf.analysis.stats.points import P99, THROUGHPUT
from perf.markdown import flag_mark, fmt_given

#: Kinds of pick: the best under the latency budget, the best peak, and where no level meets the budget the
#: level closest to it (:class:`perf.analysis.recommendation.missed.Missed`, in its words).
UNDER, PEAK, LOWEST = "under", "peak", "lowest"
#: Each kind's matplotlib marker (a star, a bold plus, a bold cross).
MARKERS = {UNDER: "*", PEAK: "P", LOWEST: "X"}


@dataclasses.dataclass(frozen=True)
class Pick:
    """One recommended level as a plot marks it (module docstring).

    Attributes:
        kind: :data:`UNDER`, :data:`PEAK` or :data:`LOWEST`.
        choice: The level picked (a series of a client workload in a run of several).
        latency_p99_ms: The p99 the mark sits at (ms; module docstring).
        what: The pick in words: ``"best under p99 budget 10.00 ms"``, ``"best peak throughput"``, ...
    """

    kind: str
    choice: Choice
    latency_p99_ms: float
    what: str

    @property
    def label(self) -> str:
        """The legend entry: what, the series and level, the tables' flag mark, and the budget's
        quieter-rounds note when the mark sits at that number."""
        c = self.choice
        note = f" ({c.judged_note})" if self.kind == UNDER and c.judged_note else ""
        return f"{self.what}: {c.variant} c={c.concurrency}{flag_mark(c.status)}{note}"

    @property
    def moved(self) -> bool:
        """The mark's p99 is not the level's median (the curve's point): the budget's quieter rounds."""
        return self.latency_p99_ms != self.choice.latency_p99_ms

    def at(self, metric: str | None) -> float | None:
        """The mark's coordinate on a ``metric`` axis: throughput, p99, or the concurrency (``None``);
        ``None`` on any other metric's axis."""
        if metric is None:
            return float(self.choice.concurrency)
        return {THROUGHPUT: self.choice.throughput_infer_per_s, P99: self.latency_p99_ms}.get(metric)


def pick_points(rec: Recommendation | None, per_workload: Mapping[str, Recommendation] | None = None) -> list[Pick]:
    """Every pick a plot marks: each client workload's best under the budget and best peak, and
    the level closest to a budget no level meets (module docstring).

    Args:
        rec: The report's recommendation (``None``: nothing to mark).
        per_workload: Each client workload's recommendation
            (:func:`perf.analysis.recommendation.frontier.workload_recommendations`); default: ``rec`` alone (a run of one workload).
    """
    recs: Iterable[Recommendation] = per_workload.values() if per_workload else [rec] if rec is not None else []
    out: list[Pick] = []
    for r in recs:
        budget = f"p{r.latency_percentile} budget {fmt_given(r.latency_budget_ms)} ms"
        miss = r.missed
        kinds = (
            (UNDER, r.best_under_budget, f"best under {budget}"),
            (PEAK, r.best_peak, peak_title(r.best_peak).split(" (")[0].lower()),
            (LOWEST, miss.lowest if miss is not None else None, miss.label() if miss is not None else ""),
        )
        for kind, c, what in kinds:
            if c is None:
                continue
            judged = kind == UNDER and c.judged_note and r.latency_percentile == 99 and r.budget_latency_ms is not None
            at = r.budget_latency_ms if judged else c.latency_p99_ms
            if kind == LOWEST and miss is not None and r.latency_percentile == 99:  # the number the verdict used
                at = miss.lowest_ms
            pick = Pick(kind, c, at, what)  # type: ignore[arg-type]
            if pick not in out:
                out.append(pick)
    return out


def picked_variants(picks: Iterable[Pick]) -> list[str]:
    """The series the picks are of, once each, in order (a plot highlights them)."""
    return list(dict.fromkeys(p.choice.variant for p in picks))


def draw_pick(ax: Any, pick: Pick, x: float | None, y: float | None, color: str) -> None:
    """One pick's mark on ``ax`` at ``(x, y)``: its kind's marker (:data:`MARKERS`), the best under the
    budget larger, drawn above the curves' points and rings (zorder 3), labelled for the legend;
    nothing where the pick has no number on an axis."""
    if x is None or y is None:
        return
    ax.plot(
        [x], [y], ls="none", marker=MARKERS[pick.kind], ms=16 if pick.kind == UNDER else 11,
        mfc="none", mec=color, mew=1.3, zorder=4, label=pick.label,
    )  # fmt: skip
