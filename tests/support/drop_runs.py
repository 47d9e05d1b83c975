"""A rounds run whose search dropped runner-ups another variant beat (trial 26, T26-1's shape), for the tests of what
the pick beats by its own paired rounds and what it is ahead of only through that variant
(:meth:`perf.analysis.ranking.rank.Ranking.beaten_through`).

The pick ``p`` and ``x`` share rounds 0–7 at c=4 with ``z0``..``zN`` (the pick's own comparisons); ``y0``..``yM`` share
rounds 8–13 with ``x`` only, ``x`` ahead in each (the sign test after 6 rounds), and the search dropped each of them on
``x`` at c=4: never in a round with the pick's level. Every level's p99 is 20 ms (5 ms per unit of concurrency).
"""

from __future__ import annotations

from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundsRecord
from perf.records.search import SearchDecision, SearchRecord

#: The budget (ms) :func:`drop_run` sweeps under, every level within it.
BUDGET_MS = 25.0


def _variant(name: str, cells: dict[int, float]) -> VariantResult:
    """``cells``: round -> infer/s at c=4."""
    levels = [LevelResult(4, 1, r, throughput_infer_per_s=t, latency_p99_ms=20.0) for r, t in cells.items()]
    return VariantResult(name, status="ok", levels=levels)


def drop_run(pick_vs_x: str = "beats", own: int = 2, dropped: int = 4, budget_ms: float | None = BUDGET_MS) -> RunResult:
    """The run (module docstring). ``pick_vs_x``: ``"beats"`` (``p`` 5 % ahead of ``x`` in each of their 8 rounds,
    the sign test's verdict) or ``"ties"`` (``p`` ahead in 4 of 8, by 15 %, behind in 4 by 1 %: not distinguishable,
    ``p`` still named first); ``own``: the other variants ``p`` beats itself; ``dropped``: those ``x`` beat and the
    search dropped; ``budget_ms``: the sweep's own budget (the drops hold in the ranking under it; ``None``: by peak)."""
    if pick_vs_x == "beats":
        p = _variant("p", {r: 1050.0 + r for r in range(8)})
    else:
        p = _variant("p", {r: (1150.0 if r % 2 else 990.0) + r for r in range(8)})
    x = _variant("x", {r: 1000.0 + r for r in range(14)})
    zs = [_variant(f"z{i}", {r: 900.0 - 10 * i + r for r in range(8)}) for i in range(own)]
    ys = [_variant(f"y{i}", {r: 950.0 - 10 * i + r for r in range(8, 14)}) for i in range(dropped)]
    run = RunResult("drops", "now", {}, {"latency_budget_ms": budget_ms}, [p, x, *zs, *ys])
    run.rounds = RoundsRecord(seed=1)
    run.search = SearchRecord("prune", True)
    for y in ys:
        run.search.record(
            SearchDecision(variant=y.name, rule="pruned", concurrency=4, reason="", best_variant="x", best_concurrency=4)
        )
    return run
