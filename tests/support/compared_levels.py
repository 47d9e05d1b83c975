"""A rounds run whose budget ranking compares a variant at its knee while the best peak's compares its top level, the
pick one level for both (trial 27, T27-15: `tinyvit_onnx_cpu1_nodb_mbs64` at 748.8 infer/s, p99 16.97 ms at c=4 within
a 25 ms budget, ranked under the budget at c=1)."""

from __future__ import annotations

from collections.abc import Callable

from factories import params

from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundsRecord

PICK, KNEED = params(2), params(1)
#: Each round's factor on every level (4 rounds, none host busy).
NOISE = {0: 1.0, 1: 1.03, 2: 0.97, 3: 1.01}
#: Median infer/s per concurrency: the pick still rising; the other flat from c=1 (its knee), 748.8 at c=4.
PICK_THROUGHPUT, KNEED_THROUGHPUT = {1: 530.0, 2: 900.0, 4: 1400.0}, {1: 710.0, 2: 730.0, 4: 748.8}
KNEED_P99 = {1: 5.0, 2: 9.0, 4: 16.97}


def _variant(p: dict, throughput: dict[int, float], p99: Callable[[int], float]) -> VariantResult:
    lvs = [LevelResult(c, 1, r, throughput_infer_per_s=t * NOISE[r], latency_p99_ms=p99(c)) for c, t in throughput.items() for r in NOISE]  # fmt: skip
    return VariantResult(p["name"], p, "ok", None, lvs)


def kneed_run() -> RunResult:
    """A finished rounds run, a 25 ms p99 budget every level meets: :data:`PICK` (p99 3 ms per request) and
    :data:`KNEED` (:data:`KNEED_P99`)."""
    variants = [_variant(PICK, PICK_THROUGHPUT, lambda c: 3.0 * c), _variant(KNEED, KNEED_THROUGHPUT, KNEED_P99.__getitem__)]
    run = RunResult("r", "now", {}, {"latency_budget_ms": 25.0}, variants)
    run.rounds = RoundsRecord(seed=1)
    run.finished = "x"
    return run
