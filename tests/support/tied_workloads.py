"""A rounds run whose two variants the paired rule cannot separate, at each client batch size (trial 27, T27-17:
with ``--batch-sizes 1,4`` the console row and the plot legend called such a pick "best under budget" with no tie
word, while report.md and export-deployment said it was not the winner)."""

from __future__ import annotations

from collections.abc import Sequence

from factories import params

from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundsRecord

A, B = params(2), params(2, True)  # trial 27's tinyvit_onnx_cpu2_nodb / _db500 pair, by name kind
#: Per round, A's and B's factor: A ahead in rounds 0, 2, 4, B in 1, 3, 5, by 10 % either way (no side called).
SWING = {0: (1.1, 1.0), 1: (1.0, 1.1), 2: (1.1, 1.0), 3: (1.0, 1.1), 4: (1.05, 1.0), 5: (1.0, 1.05)}


def _variant(p: dict, which: int, batch_sizes: Sequence[int]) -> VariantResult:
    levels = [
        LevelResult(c, b, r, throughput_infer_per_s=500.0 * c * b**0.5 * SWING[r][which], latency_p99_ms=4.0 * c)
        for b in batch_sizes
        for c in (1, 2, 4)
        for r in SWING
    ]
    return VariantResult(p["name"], p, "ok", None, levels)


def tied_run(batch_sizes: Sequence[int] = (1, 4), budget_ms: float = 20.0) -> RunResult:
    """A finished rounds run of A and B over ``batch_sizes``, tied at every workload (:data:`SWING`); every level
    within ``budget_ms`` (p99 4 ms per request in flight)."""
    variants = [_variant(A, 0, batch_sizes), _variant(B, 1, batch_sizes)]
    run = RunResult("r", "now", {}, {"latency_budget_ms": budget_ms, "batch_sizes": list(batch_sizes)}, variants)
    run.rounds = RoundsRecord(seed=1)
    run.finished = "later"
    return run


#: Trial 27, T27-3: the pick's rounds at c=4 (1,406.5 infer/s its median) and a member's (852.8), behind in each of
#: their 3 rounds by uneven ratios (1.04–2.36x), too few to call.
PICK_ROUNDS, BEHIND_ROUNDS = {0: 1406.5, 1: 1200.0, 2: 1650.0}, {0: 852.8, 1: 1150.0, 2: 700.0}


def behind_run() -> RunResult:
    """A finished rounds run of a pick (2 instances) and a member behind the pick in every round it shared, not called by
    the rule (1 instance, batching on), each at c=1, 2, 4 (throughput in proportion to c, p99 3 ms per request)."""

    def variant(p: dict, per: dict[int, float]) -> VariantResult:
        lvs = [LevelResult(c, 1, r, throughput_infer_per_s=t * c / 4, latency_p99_ms=3.0 * c) for c in (1, 2, 4) for r, t in per.items()]  # fmt: skip
        return VariantResult(p["name"], p, "ok", None, lvs)

    variants = [variant(params(2), PICK_ROUNDS), variant(params(1, True), BEHIND_ROUNDS)]
    run = RunResult("r", "now", {}, {"latency_budget_ms": 25.0}, variants)
    run.rounds = RoundsRecord(seed=1)
    run.finished = "x"
    return run
