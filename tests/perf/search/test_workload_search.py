"""The search with several client batch sizes (``--batch-sizes 1,8``): each batch size is a client
workload with its own ranking (trial 10, F8, F10). A drop compares like with like, and a variant is
dropped only when beaten at every workload it is measured at: one that leads at b=1 stays measured."""

from __future__ import annotations

import math
import random

from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundRules, RoundsRecord
from perf.records.search import SearchRecord, SearchRules
from perf.search.plan import LevelKey, plan_levels
from perf.search.policy import AUTO, ladder
from perf.search.rounds import Rounds, Setup

#: Variant -> {batch size: peak infer/s}: ``fast_b8`` leads at b=8 (far), ``fast_b1`` at b=1.
TRUE = {"fast_b8": {1: 500.0, 8: 3000.0}, "fast_b1": {1: 1000.0, 8: 1400.0}, "slow": {1: 300.0, 8: 600.0}}


def _run(seed: int = 3) -> tuple[RunResult, Rounds, list[str]]:
    rng, clock = random.Random(seed), [0.0]

    def measure(name: str, key: LevelKey) -> LevelResult:
        c, b, trial, _, shape = key
        clock[0] += 1.8
        thr = TRUE[name][b] * (1 - math.exp(-c / 2.0)) * math.exp(rng.gauss(0.0, 0.01))
        p99 = c * b / thr * 1000.0 * 1.6
        return LevelResult(c, b, trial, throughput_infer_per_s=thr, latency_p99_ms=p99, shape=shape)

    levels, adaptive = ladder(AUTO, SearchRules())
    plans = {n: plan_levels(n, 8, levels, [1, 8]) for n in TRUE}
    run = RunResult("sim", "now", variants=[VariantResult(n) for n in TRUE])
    run.search = SearchRecord("prune", adaptive)
    run.rounds = RoundsRecord(seed=seed, rules=RoundRules())
    sched = Rounds(run, Setup(plans, levels, adaptive, SearchRules(), RoundRules(), "prune"), 1.8, lambda: clock[0])
    tie = sched.run_group(list(TRUE), 0, measure)
    return run, sched, tie


def test_a_variant_that_leads_at_one_batch_size_is_never_dropped_on_another() -> None:
    run, _, tie = _run()
    pruned = {d.variant: d for d in run.search.decisions if d.rule == "pruned"}
    assert "fast_b1" not in pruned and "fast_b8" not in pruned  # each leads its own workload
    assert {"fast_b1", "fast_b8"} <= set(tie)
    assert "slow" in pruned  # beaten at b=1 and at b=8: dropped, each comparison like with like
    reason = pruned["slow"].reason
    assert "at b=1: " in reason and "at b=8: " in reason and "every client workload" in reason
    for part in reason.split("; at "):
        label = part.split(":")[0].removeprefix("at ")
        other = "b=8" if label == "b=1" else "b=1"
        assert f"`fast_{label.replace('=', '')} [{label}]`" in part and f"`slow [{label}]`" in part, part
        assert f"[{other}]" not in part, part  # both sides of each comparison at that workload


def test_the_rounds_end_words_name_each_workload() -> None:
    run, _, _ = _run()
    ended = run.rounds.ended
    assert ended.startswith("at b=1: ranking") and "; at b=8: ranking" in ended, ended
