"""Which variants a time budget keeps when it cannot keep them all: the order a plan cuts in
(:func:`perf.search.budget.fit` cuts from the end), from what the run has measured.

Rule (one, stated here and in the plan's cut reasons): a variant the run already has numbers
for (a resumed run's earlier sessions) is ranked by them, ahead of every variant without:
higher first by its best level, the median over its rounds (or trials) of that level's
throughput, where a level that meets the latency budget (when one is set) ranks ahead of
every level that does not; a variant with none keeps its place in the configuration order
(:func:`perf.search.policy.order`), after the measured ones. A resume that measured the
leader 1.4-2.1x ahead of the others then never cuts it as "least promising" on its
configuration alone (fewer CPU instances first) while measuring the others.
"""

from __future__ import annotations

from collections.abc import Sequence

from perf.analysis.cuts import has_numbers
from perf.analysis.recommendation import candidate
from perf.analysis.stats import THROUGHPUT, Point, run_points
from perf.records.results import RunResult
from perf.search.ladder import seen
from perf.search.policy import Budget

__all__ = ["RULE", "by_measurements", "has_numbers", "measured_score", "measured_top"]

#: The rule in words, for the plan's cut reasons (its short form).
RULE = "measured variants by their best measured throughput, then the others in configuration order"


def measured_score(points: Sequence[Point], budget: Budget | None = None) -> tuple[bool, float] | None:
    """``(a level meets the latency budget, best throughput in infer/s)`` of one variant's
    ``points`` (medians over rounds); ``None`` when none can be ranked."""
    cands = [p for p in points if candidate(p)]
    if not cands:
        return None
    under = [p for p in cands if budget is None or not budget.over(p)]
    return bool(under), max(p.value(THROUGHPUT) for p in (under or cands))


def by_measurements(names: Sequence[str], run: RunResult, budget: Budget | None = None) -> list[str]:
    """``names`` (in configuration order, most promising first) re-ordered by the module's rule:
    the measured ones first, best first; the others after them in their given order."""
    pts = run_points(run)
    scores = {n: measured_score(pts.get(n, []), budget) for n in names}
    measured = sorted((n for n in names if scores[n] is not None), key=lambda n: scores[n], reverse=True)  # type: ignore[arg-type,return-value]
    return measured + [n for n in names if scores[n] is None]


def measured_top(run: RunResult, names: Sequence[str]) -> int:
    """The highest concurrency any of ``names`` has numbers at (0: none), a resumed run's earlier
    sessions': the plan's ladder is not lowered below it (:func:`perf.search.shrink.shrink`). The
    rounds measure those levels again (:func:`perf.search.ladder.resume`), and a cut "concurrency
    above 4 not measured" beside numbers at 16 would be false (trial 8, F11)."""
    return max((c for v in run.variants if v.name in names for c in seen(v)), default=0)
