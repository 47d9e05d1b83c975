"""The in-process baseline's time is one estimate, counted in the points it times (trial 9, F15: the
plan said 105 s for 7 variants, the skip 120 s for 8, at 15 s a variant; the demo's 8 took 35 s)."""

from __future__ import annotations

from pathlib import Path

import pytest

from perf.profile import estimate as est
from perf.profile.baseline import SWEEP_TIMING, BaselineOptions
from perf.records.baseline import BaselineKey, BaselineSize, BaselineTarget
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult

#: The demo's 8 variants: 2 formats x 2 thread counts x batching on/off; db and nodb share a key.
DEMO = [(f"mlp_{f}_cpu{t}_{db}_mbs64", f, t) for f in ("onnx", "ts") for t in (1, 2) for db in ("db500", "nodb")]


@pytest.fixture
def demo(monkeypatch: pytest.MonkeyPatch) -> None:
    def plan(opts: BaselineOptions, *read: object, **how: object):
        out = []
        for name, fmt, threads in DEMO:
            formed = sorted({1, 64, *([2, 3, 6, 9] if opts.run and opts.run.variants and "db500" in name else [])})
            key = BaselineKey("mlp", "onnx" if fmt == "onnx" else "torchscript", "fp32", "cpu", threads)
            out.append((BaselineTarget(name, key, 1, formed, sizes=[BaselineSize(None, formed)]), None, key.format, "f"))
        return out, []

    monkeypatch.setattr(est, "plan_targets", plan)


def test_the_demos_baseline_is_estimated_near_what_it_took(demo: None) -> None:
    level = LevelResult(1, 1, 0, throughput_infer_per_s=100.0, latency_p99_ms=1.0)
    run = RunResult("demo", "now", variants=[VariantResult(n, None, "ok", levels=[level]) for n, *_ in DEMO])
    after = est.estimate(BaselineOptions(Path("repo"), run=run, timing=SWEEP_TIMING))
    assert (after.variants, after.points, after.guessed) == (8, 36, False)  # 6 keys: 4 artifacts, 2 eager
    assert 25.0 <= after.seconds <= 50.0  # it took 35 s (15 s a variant said 120 s)
    before = est.estimate(BaselineOptions(Path("repo"), run=RunResult("demo", "now"), timing=SWEEP_TIMING))
    assert before.guessed and 20.0 <= before.seconds <= 50.0  # formed sizes guessed before any level


def test_the_skip_says_what_its_number_counts() -> None:
    from perf.sweep.baseline_words import skip_counts

    assert skip_counts(est.BaselineEstimate(43.0, 8, 40, False)) == "8 variants, 40 points at the batch sizes the server formed"
    # the clients sent several input sizes (--shapes): the points are at each (issue 26: the words named the batch sizes alone)
    assert skip_counts(est.BaselineEstimate(43.0, 8, 40, False, 2)) == (
        "8 variants, 40 points at the 2 input sizes the clients sent, each at the batch sizes the server formed"
    )
    assert skip_counts(est.BaselineEstimate(43.0, 8, 40, True, 3)).endswith(
        "at the 3 input sizes the clients sent, each guessing the batch sizes the server forms"
    )


def test_the_estimate_counts_the_input_sizes_its_points_are_at(demo: None, monkeypatch: pytest.MonkeyPatch) -> None:
    run = RunResult("demo", "now", variants=[VariantResult(n, None, "ok", levels=[LevelResult(1, 1, 0)]) for n, *_ in DEMO])
    assert est.estimate(BaselineOptions(Path("repo"), run=run, timing=SWEEP_TIMING)).sizes == 1  # not swept

    def plan(opts: BaselineOptions, *read: object, **how: object):
        key = BaselineKey("m", "onnx", "fp32", "cpu", 1)
        sizes = [BaselineSize("seq=16", [1, 2]), BaselineSize("seq=64", [1])]
        return [(BaselineTarget("m_onnx", key, 1, [1, 2], sizes=sizes), None, "onnx", "f")], []

    monkeypatch.setattr(est, "plan_targets", plan)
    counted = est.estimate(BaselineOptions(Path("repo"), run=run, timing=SWEEP_TIMING, eager=False))
    assert (counted.points, counted.sizes) == (3, 2)


def test_a_slow_models_estimate_reads_the_served_compute_time(demo: None) -> None:
    """Trial 14, T14-4 addendum: a MobileNet's baseline was said at 22 s (the constants' fast calls) and its
    first round alone was 38 s at its start: the levels' compute per inference makes each point's calls."""
    from perf.profile.timing import timing_s

    def run(compute_us: float | None) -> RunResult:
        level = LevelResult(1, 1, 0, throughput_infer_per_s=20.0, latency_p99_ms=60.0, server_compute_infer_us=compute_us)
        return RunResult("r", "now", variants=[VariantResult(n, None, "ok", levels=[level]) for n, *_ in DEMO])

    fast = est.estimate(BaselineOptions(Path("repo"), run=run(None), timing=SWEEP_TIMING))
    slow = est.estimate(BaselineOptions(Path("repo"), run=run(50_000.0), timing=SWEEP_TIMING))  # 50 ms an inference
    assert fast.points == slow.points and slow.seconds > 2 * fast.seconds
    assert slow.seconds >= timing_s([0.05 * 64], SWEEP_TIMING)  # its batch-64 points alone
    assert est.inference_s(run(50_000.0), DEMO[0][0]) == pytest.approx(0.05)
