"""No level meets the latency budget: the one sentence that says so, and the level that came closest.

Every place that says it reads :class:`Missed` (:attr:`perf.analysis.recommendation.recommend.Recommendation.missed`):
the Recommendation's notes (report.md and the console summary, :mod:`perf.cli.summary`), the
conclusions (:mod:`perf.report.conclusions.numbers`), the plots' mark of the closest level
(:mod:`perf.plots.picks`) and export-deployment's refusal (:mod:`perf.deploy.choose`). Five places
wrote it in five wordings, two of them with the lowest p99 under a p95 budget, and export-deployment
repeated it after its own.

The closest level is the one with the lowest latency at the budget's percentile **as the budget
judges it** (:func:`perf.analysis.ranking.budget_latency.level_judged`: a rounds run's quieter rounds
where the rule takes them, a sequential run's median over its trials), so the number said is the one
the verdict used, with how it was taken where that is not the plain median, the level's flag, and
``not verified here`` where its rounds were too busy to judge it (a quiet host might meet the budget).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from perf.analysis.ranking.budget_latency import RULE_WORDS, Judged, host_cores, latency_metric, level_judged
from perf.analysis.recommendation.choice import Choice
from perf.analysis.recommendation.excluded import where
from perf.analysis.stats.points import Point
from perf.markdown import flag_mark, fmt, fmt_given
from perf.records.results import RunResult


@dataclasses.dataclass(frozen=True)
class Missed:
    """A latency budget that no level meets, and the level that came closest.

    Attributes:
        budget_ms: The latency budget (ms).
        percentile: The client latency percentile it is on (50, 90, 95, 99).
        rounds: A rounds run (the sentence names the rule a level is judged by).
        lowest: The level with the lowest latency at :attr:`percentile` as the budget judged it;
            ``None`` when no level can be ranked.
        judged: That level's latency as the budget judged it (ms, with how it was taken).
        at: Where that level is, in words (:func:`perf.analysis.recommendation.excluded.where`).
    """

    budget_ms: float
    percentile: int
    rounds: bool
    lowest: Choice | None = None
    judged: Judged | None = None
    at: str = ""

    @property
    def lowest_ms(self) -> float | None:
        """The lowest latency at :attr:`percentile` as the budget judged it (ms)."""
        return self.judged.ms if self.judged is not None else None

    def budget_words(self, whose: str = "the") -> str:
        """``"the p99 budget of 5 ms"`` (``whose``: ``"the"``, ``"its"``, ``"the given"``)."""
        return f"{whose} p{self.percentile} budget of {fmt_given(self.budget_ms)} ms"

    def closest(self) -> str:
        """``"the lowest p99 measured is 7.00 ms (`fast` at concurrency 1 † host busy; median of 3 rounds,
        all 3 host busy, not verified here)"``; ``""`` without a level."""
        if self.lowest is None or self.judged is None:
            return ""
        j = self.judged
        said = f"{self.at}{flag_mark(self.lowest.flags)}"
        if j.quieter or j.loaded:
            said += f"; {j.basis()}"
        if far := j.far_over(self.percentile, self.budget_ms):
            said += f", {far}"
        elif j.unverified_why(self.percentile, self.budget_ms):
            said += ", not verified here"
        return f"the lowest p{self.percentile} measured is {fmt(j.ms, 2)} ms ({said})"

    def sentence(self, whose: str = "the") -> str:
        """The sentence (module docstring): ``"No level meets the p99 budget of 5 ms; the lowest p99
        measured is 7.00 ms (`fast` at concurrency 1)."``, a rounds run's with the rule it judged by.

        Args:
            whose: Whose budget, in words (``"the"``; export-deployment: ``"its"``, ``"the given"``).
        """
        rule = f" (each level judged on {RULE_WORDS})" if self.rounds else ""
        closest = self.closest()
        return f"No level meets {self.budget_words(whose)}{rule}" + (f"; {closest}." if closest else ".")

    def label(self) -> str:
        """A plot legend's words for the closest level's mark (the mark's own label adds the level):
        ``"lowest p99 measured 7.00 ms — no level meets the p99 budget of 5 ms"``."""
        low = f"lowest p{self.percentile} measured {fmt(self.lowest_ms, 2)} ms — " if self.lowest_ms is not None else ""
        return f"{low}no level meets {self.budget_words()}"


def missed(run: RunResult, cands: Iterable[Point], budget_ms: float, percentile: int) -> Missed:
    """The :class:`Missed` of a budget no candidate level meets: the closest as the budget judges it.

    Args:
        run: The run the candidates are of (its variants named as the points' series).
        cands: The recommendation's candidate levels (:func:`perf.analysis.recommendation.excluded.candidate`).
        budget_ms: The latency budget (ms).
        percentile: The percentile it is on.
    """
    metric, paired = latency_metric(percentile), run.rounds is not None
    judged: list[tuple[Judged, Point]] = []
    for p in cands:
        v = run.variant(p.variant)
        levels = [
            lv
            for lv in (v.levels if v is not None else [])
            if (lv.concurrency, lv.batch_size, lv.request_rate) == (p.concurrency, p.batch_size, None)
        ]
        if (j := level_judged(levels, metric, paired, cores=host_cores(run))) is not None:
            judged.append((j, p))
    if not judged:
        return Missed(budget_ms, percentile, paired)
    j, p = min(judged, key=lambda jp: jp[0].ms)
    return Missed(budget_ms, percentile, paired, Choice.of(p), j, where(p))
