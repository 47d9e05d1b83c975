"""The in-process baseline decides whether a model's first round fits as it loads its keys, not after every load
(trial 22, F-baseline-waste: "loading 4 keys and warming up its 28 points" took 26 s of the 41 s the rounds left, then
"not measured: its first round, an estimated 21 s, would end after the sweep's time budget (15 s left)"; the eager
model's calls, slow at batch 64, are measured by no served variant and were known from the first key's calls)."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from perf.profile import points
from perf.profile.baseline import SWEEP_TIMING
from perf.profile.timing import SWEEP_BUDGET, OutOfTime
from perf.records.baseline import BaselineKey


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[BaselineKey]:
    """Each key loads at once and its call takes 0.1 s; the keys loaded, in order."""
    loaded: list[BaselineKey] = []

    def prepare(key: BaselineKey, rv: Any, file: str) -> tuple[Any, Any, str, None]:
        loaded.append(key)
        return (lambda inputs: time.sleep(0.1)), {}, "ok", None

    monkeypatch.setattr(points, "_prepare", prepare)
    monkeypatch.setattr(points, "inputs_at", lambda rv, reference, shape: {})
    monkeypatch.setattr(points, "batch_inputs", lambda inputs, b: inputs)
    return loaded


def _group(n: int) -> dict[BaselineKey, tuple[Any, str, list[points.At]]]:
    return {BaselineKey("kws", "onnx", "fp32", "cpu", t): (None, "f", [(None, 1), (None, 64)]) for t in range(1, n + 1)}


def test_a_first_round_the_first_keys_calls_show_will_not_fit_stops_the_loads(loads: list[BaselineKey]) -> None:
    # 8 points of 0.1 s calls: each one's warm-up (0.3 s) and turn (0.5 s) alone are 6.4 s, over the 3 s left
    with pytest.raises(OutOfTime) as e:
        points.measure_keys(_group(4), SWEEP_TIMING, deadline=time.monotonic() + 3.0)
    assert len(loads) == 1  # the other 3 keys were not loaded
    assert e.value.round_s is not None and e.value.round_s > 6.0
    words = e.value.words(SWEEP_BUDGET)
    assert re.fullmatch(
        r"its loads, warm-up and first round, an estimated \d+ s from its first calls \(1 of 4 keys loaded\), would end "
        rf"after {SWEEP_BUDGET} \(\d s left\): the rest was not loaded",
        words,
    ), words


def test_a_first_round_that_fits_loads_every_key(loads: list[BaselineKey], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(points, "time_interleaved", lambda calls, *a, **k: pytest.skip("timed: every key was loaded"))
    with pytest.raises(pytest.skip.Exception):
        points.measure_keys(_group(2), SWEEP_TIMING, deadline=time.monotonic() + 60.0)
    assert len(loads) == 2


def test_the_rest_of_the_loads_is_priced_from_the_loads_after_the_first() -> None:
    """The first load of a process carries its library's import (torch, onnxruntime): 5 s of it would price 3 more keys
    at 15 s and skip a baseline that fits; the loads after it price the rest."""
    from perf.profile.timing import turn_s, warmup_s

    point = warmup_s(0.0, SWEEP_TIMING) + turn_s(0.0, SWEEP_TIMING)
    assert points._rest_s([5.0], 4, [0.0, 0.0], 8, SWEEP_TIMING) == pytest.approx(8 * point)
    assert points._rest_s([5.0, 1.0], 4, [0.0] * 4, 8, SWEEP_TIMING) == pytest.approx(2 * 1.0 + 8 * point)
