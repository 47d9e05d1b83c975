"""A variant the search dropped stays beaten only in the ranking it was dropped in
(perf.analysis.recommendation.recommend): a drop under the sweep's latency budget is no verdict on peaks."""

from __future__ import annotations

from perf.analysis.recommendation.recommend import recommend
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundsRecord
from perf.records.search import SearchDecision, SearchRecord


def _vr(name: str, cells: dict[tuple[int, int], float]) -> VariantResult:
    """``cells``: (concurrency, round) -> infer/s; p99 = 5 ms per unit of concurrency."""
    lv = [LevelResult(c, 1, r, throughput_infer_per_s=t, latency_p99_ms=5.0 * c) for (c, r), t in cells.items()]
    return VariantResult(name, status="ok", levels=lv)


def _run(budget_ms: float | None) -> RunResult:
    # a: c=1 and c=4 within a 25 ms budget, c=16 (80 ms) over it, 8 rounds each
    a = _vr(
        "a",
        {
            **{(1, r): 1000.0 + r for r in range(8)},
            **{(4, r): 1500.0 + r for r in range(8)},
            **{(16, r): 2000.0 for r in range(8)},
        },
    )
    # b: slow at c=1 (dropped there under the budget after 8 rounds), its c=16 as fast as a's (3 rounds, 5 % apart)
    b = _vr("b", {**{(1, r): 500.0 + r for r in range(8)}, **{(16, r): x for r, x in enumerate([1900.0, 2060.0, 1905.0])}})
    run = RunResult("r", "now", {}, {"latency_budget_ms": budget_ms}, [a, b])
    run.rounds = RoundsRecord(seed=1)
    run.search = SearchRecord("prune", True)
    run.search.record(SearchDecision(variant="b", rule="pruned", concurrency=1, reason="", best_variant="a", best_concurrency=4))
    return run


def test_a_drop_under_the_budget_holds_under_the_budget_and_not_for_the_best_peak() -> None:
    rec = recommend(_run(25.0), 25.0)
    assert rec.best_under_budget.variant == "a" and rec.best_under_budget.tie_set in ([], ["a"])
    assert "b" in rec.best_peak.tie_set  # its c=16 is not distinguishable from a's peak: no budget drop decides it
    # a what-if budget other than the sweep's: the drop is no verdict there either
    assert "b" in recommend(_run(25.0), 90.0).best_under_budget.tie_set


def test_a_drop_by_peak_holds_for_the_best_peak() -> None:
    run = _run(None)
    run.search.decisions[0] = SearchDecision(
        variant="b", rule="pruned", concurrency=1, reason="", best_variant="a", best_concurrency=4
    )
    assert recommend(run, None).best_peak.tie_set in ([], ["a"])  # the search's own drop, made by peak
