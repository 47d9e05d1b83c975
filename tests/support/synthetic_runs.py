"""Large synthetic sweeps built from a real run's levels (issue 18): ``tests/data/demo_run`` is
``make demo``'s 8-variant run on the 2-core test host (bundled server, concurrency 1-8).

:func:`synthetic_run` makes a grid of any size from it: each synthetic variant takes the
levels of the real variant with its format, instance count (1 or 2) and batching on/off,
extended to higher concurrency (throughput flattening, p99 growing with the load), scaled
by a per-factor effect and perturbed by a seeded random factor. Used by ``test_report_scale.py``
and ``benchmarks/bench_report.py``.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
from collections.abc import Callable, Sequence
from pathlib import Path

from builders.config.variants import Variant
from perf.records.baseline import BaselineKey, BaselinePoint, BaselineResult, BaselineSettings, BaselineTarget
from perf.records.coldstart import ColdStart, FirstRequests
from perf.records.levels import LevelResult
from perf.records.profile import OperatorTime, PrecisionRow, ProfileRecord, TraceRecord
from perf.records.results import RunResult, VariantResult, load
from perf.records.search import SearchDecision, SearchRecord, SearchRules

DEMO_RUN = Path(__file__).resolve().parents[1] / "data" / "demo_run"
#: The 200-variant grid: 2 formats x 4 instance counts x 5 batching settings x 5 max_batch_sizes.
GRID_200 = {
    "formats": ("onnx", "torchscript"),
    "counts": (1, 2, 3, 4),
    "delays": (None, 0, 100, 500, 2000),
    "mbs": (8, 16, 32, 64, 128),
}
#: The 48-variant grid of the issue: the demo grid with six batching settings and two max_batch_sizes.
GRID_48 = {"formats": ("onnx", "torchscript"), "counts": (1, 2), "delays": (None, 100, 200, 500, 1000, 2000), "mbs": (16, 64)}
CONCURRENCY_8 = (1, 2, 4, 8, 16, 32, 64, 128)


def _real_levels() -> dict[tuple[str, int, bool], list[LevelResult]]:
    real = load(DEMO_RUN)
    out = {}
    for v in real.variants:
        t = Variant.from_json(v.params or {})
        out[(t.format, t.count, t.dynamic_batching)] = sorted(v.levels, key=lambda lv: lv.concurrency)
    return out


def _extend(levels: list[LevelResult], concurrency: Sequence[int]) -> list[LevelResult]:
    """The real levels at the asked concurrency: measured ones as they are, higher ones from the
    last measured (throughput +8 % per doubling, p99 in proportion to the load)."""
    by = {lv.concurrency: lv for lv in levels}
    last = levels[-1]
    out = []
    for c in concurrency:
        if c in by:
            out.append(by[c])
            continue
        steps = math.log2(c / last.concurrency)
        grow, load = 1 + 0.08 * steps, c / last.concurrency
        out.append(
            dataclasses.replace(
                last,
                concurrency=c,
                throughput_infer_per_s=last.throughput_infer_per_s * grow if last.throughput_infer_per_s else None,
                latency_p50_ms=(last.latency_p50_ms or 1.0) * load,
                latency_p90_ms=(last.latency_p90_ms or 1.0) * load,
                latency_p95_ms=(last.latency_p95_ms or 1.0) * load,
                latency_p99_ms=(last.latency_p99_ms or 1.0) * load,
                server_queue_us=(last.server_queue_us or 0.0) * load,
            )
        )
    return out


def auto_ladder(rng: random.Random) -> list[int]:
    """One variant's levels as ``--concurrency auto`` with a budget leaves them: 1, 2, 4 ... up to a
    top that differs per variant, then one or two bisection steps below the top (the budget's edge),
    so that a run's variants share few levels and the run has a dozen or more distinct ones."""
    top = rng.choice((8, 16, 32, 64, 128))
    low = top // 2
    mid = (low + top) // 2
    steps = {mid, rng.choice(((low + mid) // 2, (mid + top) // 2))} if rng.random() < 0.7 else {mid}
    return sorted({c for c in CONCURRENCY_8 if c <= top} | steps)


def synthetic_run(
    grid: dict = GRID_200,
    concurrency: Sequence[int] | Callable[[random.Random], Sequence[int]] = CONCURRENCY_8,
    seed: int = 18,
) -> RunResult:
    """A run of ``len(product(grid))`` variants built from the real demo levels (module docstring).

    Args:
        grid: ``formats``, ``counts``, ``delays`` (None = batching off, else µs) and ``mbs``.
        concurrency: Levels per variant, or a function giving each variant its own (:func:`auto_ladder`).
        seed: Seed of the perturbation (same seed, same run).
    """
    real = load(DEMO_RUN)
    levels = _real_levels()
    rng = random.Random(seed)
    variants = []
    for fmt, count, delay, mbs in itertools.product(grid["formats"], grid["counts"], grid["delays"], grid["mbs"]):
        t = Variant(
            "mlp", fmt, count=count, max_batch_size=mbs, dynamic_batching=delay is not None, max_queue_delay_us=delay or 0
        )
        asked = concurrency(rng) if callable(concurrency) else concurrency
        base = _extend(levels[(fmt, min(count, 2), delay is not None)], asked)
        # effects: more instances help less and less; a longer delay adds throughput at high load
        # and latency at low load; a larger max_batch_size helps a little while batching
        effect = (1 + 0.15 * (count - min(count, 2))) * (1 + (0.04 * math.log10(1 + (delay or 0)) if delay is not None else 0))
        effect *= 1 + (0.02 * math.log2(mbs / 8) if delay is not None else 0)
        out = []
        for lv in base:
            noise = math.exp(rng.gauss(0, 0.06))
            wait = 1 + (delay or 0) / 1000.0 / max(lv.concurrency, 1) * 0.3
            out.append(
                dataclasses.replace(
                    lv,
                    throughput_infer_per_s=lv.throughput_infer_per_s * effect * noise if lv.throughput_infer_per_s else None,
                    latency_p99_ms=(lv.latency_p99_ms or 1.0) * wait / noise,
                    notes=list(lv.notes),
                )
            )
        variants.append(VariantResult(t.name, t.to_json(), "ok", None, out))
    return RunResult(
        f"synthetic-{len(variants)}",
        real.created,
        real.environment,
        {
            **real.settings,
            "concurrency": "auto" if callable(concurrency) else list(concurrency),
            "variants": [v.name for v in variants],
        },
        variants,
        finished=real.finished,
    )


def with_baseline(run: RunResult) -> RunResult:
    """``run`` with a hand-made in-process baseline for every variant (one key per format,
    batch 1-64 at a latency of 2 ms + 0.5 ms per sample): the serving-efficiency section's input."""
    keys = {}
    targets = []
    for v in run.variants:
        t = Variant.from_json(v.params or {})
        key = keys.setdefault(t.format, BaselineKey(t.model, t.format, t.precision, "cpu", 1))
        targets.append(BaselineTarget(v.name, key, t.count, [1, 2, 4, 8, 16, 32, 64], "python"))
    points = [
        BaselinePoint(
            key,
            b,
            latency_median_ms=2.0 + 0.5 * b,
            latency_p50_ms=2.0 + 0.5 * b,
            throughput_infer_per_s=b / (2.0 + 0.5 * b) * 1e3,
        )
        for key in keys.values()
        for b in (1, 2, 4, 8, 16, 32, 64)
    ]
    settings = BaselineSettings("timer", 0.1, 0.05, 3, 100, "reference inputs", 2, "rule", {"torch": "2"})
    return dataclasses.replace(run, baseline=BaselineResult("now", settings, targets, points))


def with_profile(run: RunResult) -> RunResult:
    """``run`` with what ``triton-perf baseline --trace --precision fp32,fp16,bf16`` adds (``make demo``):
    a trace of each of three formats with its top 10 operators, and a precision row per precision."""
    ops = [OperatorTime(f"op{i}", 1000.0 / (i + 1), 4, 30.0 / (i + 1)) for i in range(10)]
    traces = [
        TraceRecord(f, "torch.profiler", "cpu", 64, 1, f"traces/{f}_b64.json", top_operators=ops)
        for f in ("eager", "torchscript", "onnx")
    ]
    precision = [
        PrecisionRow("eager PyTorch", "cpu", p, "cast", p, batch_size=64, latency_median_ms=2.0, throughput_samples_per_s=32000.0)
        for p in ("fp32", "fp16", "bf16")
    ]
    return dataclasses.replace(run, profile=ProfileRecord(traces=traces, precision=precision))


def with_search(run: RunResult) -> RunResult:
    """``run`` with the record of an adaptive, pruning search: each variant's ladder ended past the
    budget (the decision's reason in words, as the sweep writes it)."""
    decisions = [
        SearchDecision(v.name, "budget", max(lv.concurrency for lv in v.levels), "p99 passed the 25 ms budget")
        for v in run.variants
    ]
    record = SearchRecord("prune", True, SearchRules(), [v.name for v in run.variants], decisions)
    return dataclasses.replace(run, search=record)


def with_cold_start(run: RunResult) -> RunResult:
    """``run`` with a cold start for every variant (12 requests at batch 1, the first ones slow)."""
    for i, v in enumerate(run.variants):
        v.cold_start = ColdStart(v.name, load_s=2.0 + i % 7, first=[FirstRequests(1, latencies_ms=[80.0, 20.0] + [3.0] * 10)])
    return run


def with_shapes(run: RunResult, sizes: Sequence[int] = (16, 128), axis: str = "T", cost: float = 0.5) -> RunResult:
    """``run`` as ``sweep --shapes T=16,128`` measures it: every level at each swept size of ``axis``
    (``shape`` ``"T=16"``, ...), a larger input slower by ``(size / smallest size) ** cost`` (throughput
    divided, latency multiplied by it; ``cost`` 0: every size measures alike, as a model bound by
    something else than its input did in trial 15). Not split by workload
    (:func:`perf.records.workloads.split_by_workload` does that, as the report does)."""
    smallest = min(sizes)
    variants = []
    for v in run.variants:
        levels = []
        for size in sizes:
            slow = (size / smallest) ** cost
            levels += [
                dataclasses.replace(
                    lv,
                    shape=f"{axis}={size}",
                    throughput_infer_per_s=lv.throughput_infer_per_s / slow if lv.throughput_infer_per_s else None,
                    latency_p50_ms=lv.latency_p50_ms * slow if lv.latency_p50_ms else None,
                    latency_p90_ms=lv.latency_p90_ms * slow if lv.latency_p90_ms else None,
                    latency_p95_ms=lv.latency_p95_ms * slow if lv.latency_p95_ms else None,
                    latency_p99_ms=lv.latency_p99_ms * slow if lv.latency_p99_ms else None,
                    notes=list(lv.notes),
                )
                for lv in v.levels
            ]
        variants.append(dataclasses.replace(v, levels=levels))
    return dataclasses.replace(run, variants=variants)
