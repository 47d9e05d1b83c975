"""The recommended levels as every plot marks them: :func:`pick_points` gives each pick's point,
one set per client workload, at the numbers the report's tables and recommendation text give it,
with the tables' flag mark. A plot draws these points and never looks a pick's numbers up again
(trial 11, F20: with ``--batch-sizes 1,8`` the plots starred the first workload's pick only, at
its p99 over every round, right of the budget line for a pick within the budget on its quieter
rounds).

The latency of a mark is on the percentile the budget is judged on
(:attr:`perf.analysis.recommendation.recommend.Recommendation.latency_percentile`, the one place the
report reads it; :func:`judged_latency` names its field and words): every plot draws that latency (trial 14,
T14-7: a p95 view starred its pick at its p99 under a legend that said p95, with no budget line).

The point: throughput the level's median (:attr:`perf.analysis.recommendation.choice.Choice.throughput_infer_per_s`);
latency the level's median at that percentile (:meth:`~perf.analysis.recommendation.choice.Choice.latency_at`),
except for a best under the budget within it only on its quieter rounds
(:mod:`perf.analysis.ranking.budget_latency`): there the number the verdict used, which the tables and
the recommendation say beside the median (:attr:`~perf.analysis.recommendation.choice.Choice.judged_note`); and
for the level closest to a budget no level meets, the latency that budget judged it on
(:attr:`perf.analysis.recommendation.missed.Missed.lowest_ms`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from perf.analysis.ranking.budget_latency import DEFAULT_LATENCY_PERCENTILE, latency_metric
from perf.analysis.recommendation.choice import Choice
from perf.analysis.recommendation.frontier import size_of
from perf.analysis.recommendation.recommend import Recommendation
from perf.analysis.saturation.peaks import peak_title
from perf.analysis.stats.points import THROUGHPUT, Point
from perf.markdown import flag_mark, fmt, fmt_given
from perf.plots.palette import BLACK

#: Kinds of pick: the best under the latency budget, the best peak, and where no level meets the budget the
#: level closest to it (:class:`perf.analysis.recommendation.missed.Missed`, in its words).
UNDER, PEAK, LOWEST = "under", "peak", "lowest"
#: Higher levels named in a :func:`higher_words` note (the rest counted).
HIGHER_NAMED = 3
#: Each kind's matplotlib marker (a star, a bold plus, a bold cross).
MARKERS = {UNDER: "*", PEAK: "P", LOWEST: "X"}


@dataclasses.dataclass(frozen=True)
class Pick:
    """One recommended level as a plot marks it (module docstring).

    Attributes:
        kind: :data:`UNDER`, :data:`PEAK` or :data:`LOWEST`.
        choice: The level picked (a series of a client workload in a run of several).
        latency_ms: The latency the mark sits at (ms), on :attr:`percentile` (module docstring); ``None``
            where its level has none at that percentile (no mark).
        what: The pick in words: ``"best under p99 budget 10.00 ms"``, ``"best peak throughput"``, ...
        percentile: The client latency percentile of :attr:`latency_ms`: the budget's.
        same_as: What an earlier pick of the same level is (:attr:`what`), whose mark sits on the same point; ``""``
            for none (trial 24, T24-15: a star and a cross on one point, nothing saying they were one level).
    """

    kind: str
    choice: Choice
    latency_ms: float | None
    what: str
    percentile: int = DEFAULT_LATENCY_PERCENTILE
    same_as: str = ""

    @property
    def label(self) -> str:
        """The legend entry: what, the series and level, the tables' flag mark, the budget's
        quieter-rounds note when the mark sits at that number, and for a best under the budget below its workload's
        Pareto frontier why (:attr:`perf.analysis.recommendation.choice.Choice.dominated_mark`: "not decided", or
        ahead by the rule in the rounds they shared; trial 16, T16-5: a plain star under the frontier line), and a tied
        pick's tie (:meth:`~perf.analysis.recommendation.choice.Choice.tie_mark`)."""
        c = self.choice
        note = f" ({c.judged_note})" if self.kind == UNDER and c.judged_note else ""
        below = f" — {c.dominated_mark.replace('`', '')}" if c.dominated_mark else ""  # T16-5; a best peak's (F10)
        same = f" — the same level as the {self.same_as}: one point, two marks" if self.same_as else ""
        tie = f" — {mark.replace('`', '')}" if (mark := c.tie_mark()) else ""  # as the console's note (trial 27, T27-17)
        return f"{self.what}: {c.variant} c={c.concurrency}{flag_mark(c.flags)}{note}{below}{tie}{same}" + "".join(
            f" — {w.replace('`', '')}" for w in self.higher_said
        )

    @property
    def higher_said(self) -> list[str]:
        """Why a level with a higher median throughput is not the pick, where the recommendation says it (trial 17,
        T17-17: "best measured throughput" under a tie-set member's higher median, the plot silent): each tie-set
        member's (:attr:`~perf.analysis.recommendation.choice.Choice.rivals`) and, for the best peak, a higher level
        of its own variant's (:attr:`~perf.analysis.recommendation.choice.Choice.level_why`)."""
        c = self.choice
        return [*c.rivals, *([c.level_why] if self.kind == PEAK and c.level_why else [])]

    def higher_unsaid(self, levels: Iterable[Point]) -> list[Point]:
        """The ``levels`` of its client workload with a higher median throughput than the pick's whose why
        :attr:`higher_said` does not give (another variant not named there; its own variant's without a
        ``level_why``): a plot names them beside the pick (:func:`higher_words`). The best peak's alone: a best
        under the budget is below the levels over it by the budget, and below a frontier level by its
        :attr:`~perf.analysis.recommendation.choice.Choice.dominated_mark`."""
        c = self.choice
        if self.kind != PEAK:
            return []
        own = next((size_of(p) for p in levels if p.variant == c.variant), None)
        said = " ".join(self.higher_said)
        return [
            p
            for p in levels
            if size_of(p) == own
            and p.value(THROUGHPUT) > c.throughput_infer_per_s
            and not (p.variant == c.variant and self.kind == PEAK and c.level_why)
            and f"`{p.variant}`" not in said
        ]

    @property
    def moved(self) -> bool:
        """The mark's latency is not the level's median (the curve's point): the budget's quieter rounds."""
        return self.latency_ms != self.curve_ms

    @property
    def curve_ms(self) -> float | None:
        """Its level's median latency at :attr:`percentile` (ms): the point on the curve."""
        return self.choice.latency_at(self.percentile)

    def at(self, metric: str | None) -> float | None:
        """The mark's coordinate on a ``metric`` axis: throughput, its percentile's latency, or the
        concurrency (``None``); ``None`` on any other metric's axis (another percentile's)."""
        if metric is None:
            return float(self.choice.concurrency)
        return {THROUGHPUT: self.choice.throughput_infer_per_s, latency_metric(self.percentile): self.latency_ms}.get(metric)


def higher_words(pick: Pick, higher: list[Point]) -> str:
    """A legend note for :meth:`Pick.higher_unsaid`: what the pick is named by and the higher levels, with why
    they are not ahead where the recommendation knows it (not compared in shared rounds; a flagged level)."""
    c = pick.choice
    parts = []
    for p in sorted(higher, key=lambda p: -p.value(THROUGHPUT))[:HIGHER_NAMED]:
        why = (
            "behind it by the paired rule"
            if p.variant in c.beats
            else "behind another variant by the paired rule, not compared with it (the search dropped it)"
            if p.variant in c.through  # not the pick's own verdict (trial 26, T26-1)
            else "not compared with it in shared rounds"
            if p.variant in c.uncompared
            else "not ranked against it here: see the report's paired ranking"
        )
        parts.append(f"{p.variant} c={p.concurrency}{flag_mark(p.flags)} {fmt(p.value(THROUGHPUT))} infer/s ({why})")
    more = f"; {len(higher) - HIGHER_NAMED} more" if len(higher) > HIGHER_NAMED else ""
    return f"higher medians than the {pick.what}'s {fmt(c.throughput_infer_per_s)}, not the pick: {'; '.join(parts)}{more}"


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
        pct = r.latency_percentile
        for kind, c, what in kinds:
            if c is None:
                continue
            at = c.latency_at(pct)
            if kind == UNDER and c.judged_note and r.budget_latency_ms is not None:  # the number the verdict used
                at = r.budget_latency_ms
            if kind == LOWEST and miss is not None and miss.lowest_ms is not None:  # the number the verdict used
                at = miss.lowest_ms
            same = next(
                (p.what for p in out if p.choice.variant == c.variant and p.choice.at(c.concurrency, c.batch_size)),
                "",
            )
            pick = Pick(kind, c, at, what, pct, same)
            if pick not in out:
                out.append(pick)
    return out


def picked_variants(picks: Iterable[Pick]) -> list[str]:
    """The series the picks are of, once each, in order (a plot highlights them)."""
    return list(dict.fromkeys(p.choice.variant for p in picks))


def pick_colour(pick: Pick, looks: Mapping[str, Any]) -> str:
    """The colour of ``pick``'s mark: its series' (``looks``: :func:`perf.plots.styles.series_looks`), so
    that each client workload's picks are told apart and matched to their curve (trial 15, T15-4: the
    T=16 and T=128 picks were the same black marks, stacked); black for a series without a look."""
    look = looks.get(pick.choice.variant)
    return look.colour if look is not None else BLACK


def draw_pick(ax: Any, pick: Pick, x: float | None, y: float | None, color: str) -> None:
    """One pick's mark on ``ax`` at ``(x, y)``: its kind's marker (:data:`MARKERS`) hollow in ``color``
    (:func:`pick_colour`; hollow, so that two picks at nearly one point both show), the best under the
    budget larger, drawn above the curves' points and rings (zorder 3), labelled for the legend
    (:attr:`Pick.label`: its series, so its workload); nothing where the pick has no number on an axis."""
    if x is None or y is None:
        return
    ax.plot(
        [x], [y], ls="none", marker=MARKERS[pick.kind], ms=16 if pick.kind == UNDER else 11,
        mfc="none", mec=color, mew=1.6, zorder=4, label=pick.label,
    )  # fmt: skip


def judged_latency(rec: Recommendation | None) -> tuple[str, str]:
    """The latency every plot draws (module docstring): the :class:`perf.records.levels.LevelResult` field and
    the name of the percentile the budget is judged on, ``("latency_p95_ms", "p95")``; p99 without a
    recommendation."""
    if rec is None:
        return latency_metric(DEFAULT_LATENCY_PERCENTILE), f"p{DEFAULT_LATENCY_PERCENTILE}"
    return rec.latency_field, f"p{rec.latency_percentile}"
