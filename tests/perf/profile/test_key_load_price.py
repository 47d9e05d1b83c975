"""The in-process baseline's key loads are priced from the loads the run measured, the unmeasured constant only
before any of a format is measured, and said so (trial 17, T17-11: 4 ONNX keys took 12 s to load and warm up
against the 0.5 s a key never measured; the 22 s the plan kept was short, and the baseline was skipped)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from perf.profile import estimate as est
from perf.profile.baseline import SWEEP_TIMING, BaselineOptions
from perf.records.baseline import BaselineKey, BaselineSize, BaselineTarget
from perf.records.coldstart import ColdStart
from perf.records.results import RunResult, VariantResult
from perf.search.ending.decided import no_room
from perf.sweep.baseline_step import BaselineStep

#: Two ONNX and two TorchScript variants, one thread count each: 4 artifact keys (and 2 eager ones with eager).
PLANNED = [
    ("m_onnx_cpu1", "onnx", 1),
    ("m_onnx_cpu2", "onnx", 2),
    ("m_ts_cpu1", "torchscript", 1),
    ("m_ts_cpu2", "torchscript", 2),
]


@pytest.fixture
def planned(monkeypatch: pytest.MonkeyPatch) -> None:
    def plan(opts: BaselineOptions, *read: object, **how: object):
        out = []
        for name, fmt, threads in PLANNED:
            key = BaselineKey("m", fmt, "fp32", "cpu", threads)
            out.append((BaselineTarget(name, key, 1, [1], sizes=[BaselineSize(None, [1])]), None, fmt, "f"))
        return out, []

    monkeypatch.setattr(est, "plan_targets", plan)


def _run(onnx_loads: list[float | None]) -> RunResult:
    variants = [VariantResult(n) for n, *_ in PLANNED]
    for v, load in zip(variants, onnx_loads):
        v.cold_start = ColdStart(v.name, load_s=load)
    return RunResult("t17", "now", variants=variants)


def test_a_key_is_priced_at_the_measured_loads_of_its_format_and_the_constant_only_before_any(planned: None) -> None:
    before = est.estimate(BaselineOptions(Path("repo"), run=_run([]), timing=SWEEP_TIMING, eager=False))
    assert (before.keys, before.assumed, before.load_s) == (4, 4, 4 * est.KEY_LOAD_S)
    assert before.load_words() == "2 s of it for 4 key loads: 4 at an assumed 0.5 s each, none of their format measured yet"
    after = est.estimate(BaselineOptions(Path("repo"), run=_run([5.0, 7.0]), timing=SWEEP_TIMING, eager=False))
    assert (after.keys, after.assumed) == (4, 2)
    assert after.load_s == pytest.approx(2 * 6.0 + 2 * est.KEY_LOAD_S)  # the ONNX loads' mean, 6 s, for each ONNX key
    assert after.seconds == pytest.approx(before.seconds + 2 * 6.0 - 2 * est.KEY_LOAD_S, abs=0.1)
    assert after.load_words() == (
        "13 s of it for 4 key loads: 2 at the server's measured loads of their format; "
        "2 at an assumed 0.5 s each, none of their format measured yet"
    )
    with_eager = est.estimate(BaselineOptions(Path("repo"), run=_run([5.0, 7.0]), timing=SWEEP_TIMING, eager=True))
    assert (with_eager.keys, with_eager.assumed) == (6, 4)  # the eager model: no served variant of its format


class _Step:
    """What :meth:`BaselineStep._reprice_kept` reads of a sweep: 22 s kept, the re-estimate 40 s."""

    def __init__(self) -> None:
        self.baseline_reserved_s, self.baseline_planned_s, self._plan = 22.0, 22.0, SimpleNamespace(visits=[4])
        self.events: list[dict[str, Any]] = []
        self.progress = self.events.append

    def baseline_estimate(self, names: list[str]) -> est.BaselineEstimate:
        return est.BaselineEstimate(40.0, len(names), 16, False, 1, 4, 0, 20.0)

    def _unload_s(self) -> float:
        return 3.5

    def keys_per_level(self) -> int:
        return 1


def _engine(now: float) -> SimpleNamespace:
    # the rounds' end 1000 (the budget's end less the 22 s kept); a round of the 4 variants: 4 visits x 4 levels of 1 s
    return SimpleNamespace(
        deadline=1000.0, kept_s=22.0, clock=lambda: now, record=SimpleNamespace(next_index=lambda: 0), ladders={}, visit_s=1.0
    )


def test_the_kept_time_is_priced_again_after_the_loads_and_the_rounds_end_by_it() -> None:
    step, engine = _Step(), _engine(800.0)  # 182 s for the rounds after the new 40 s: the 6 rounds (96 s + 14 s) fit
    BaselineStep._reprice_kept(step, engine, ["a", "b", "c", "d"])  # type: ignore[arg-type]
    assert engine.deadline == 982.0 and engine.kept_s == step.baseline_reserved_s == step.baseline_planned_s == 40.0
    (said,) = [e["text"] for e in step.events]
    assert said == (
        "rounds: the 22 s kept for the in-process baseline priced again after the loads: 40 s (20 s of it for 4 key loads: "
        "4 at the server's measured loads of their format); the rounds end 18 s earlier"
    )


def test_a_kept_time_the_rounds_a_verdict_needs_no_longer_fit_beside_is_given_up_as_the_plans_rule_says() -> None:
    step, engine = _Step(), _engine(900.0)  # 82 s after the new 40 s: the 6 rounds and unloads (110 s) do not fit
    BaselineStep._reprice_kept(step, engine, ["a", "b", "c", "d"])  # type: ignore[arg-type]
    assert engine.deadline == 1022.0 and engine.kept_s == step.baseline_reserved_s == 0.0 and step.baseline_planned_s == 40.0
    (said,) = [e["text"] for e in step.events]
    assert said.endswith(
        "no longer kept from the budget: beside the 6 rounds a verdict needs it does not fit; it starts if the rounds "
        "leave 30 s or more"
    )


def test_a_settled_rankings_no_room_words_say_the_time_kept_for_the_baseline() -> None:
    words = no_room("ranking settled: the rule did not separate a, b", 13.0, 15.0, 22.0)
    assert words == (
        "; the time budget had no room for another round either: 13 s left before the 22 s kept for the in-process "
        "baseline, the next round and the unloads ≈ 15 s"
    )
