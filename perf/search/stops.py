"""The words of a ladder's budget stop, shared by both designs' searches
(:mod:`perf.search.policy`, :mod:`perf.search.ladder`)."""

from __future__ import annotations

from perf.analysis.stats import THROUGHPUT, Point
from perf.markdown import fmt

#: Why a level over the latency budget ends a ladder (said by both designs' budget stops).
OVER_BUDGET = "a higher concurrency queues more requests, so no level above it can meet the budget"


def still_rose(gain_pct: float | None, low: int) -> str:
    """The clause a budget stop adds when its last step still raised throughput: the best peak
    may lie above the stop and was not measured (``""`` otherwise)."""
    if gain_pct is None or gain_pct <= 0:
        return ""
    return f"; its throughput still rose {fmt(gain_pct)} % from concurrency {low}, so its peak above it was not measured"


def gain_pct(low: Point, high: Point) -> float:
    """Throughput gain from ``low`` to ``high`` (% of ``low``)."""
    return (high.value(THROUGHPUT) - low.value(THROUGHPUT)) / low.value(THROUGHPUT) * 100.0
