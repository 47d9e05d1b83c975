"""The in-process timing ends by a sweep's time budget (perf.profile.timing): no round starts that
would end after it, the first predicted from the warm-up's calls (trial 13, T13-16: a round started
with 10 s of a 75 s budget left and ended 30 s past it)."""

from __future__ import annotations

import time

import pytest

from perf.markdown import apart
from perf.profile.timing import OutOfTime, TimingSettings, time_interleaved

CALL_S = 0.005
SETTINGS = TimingSettings(min_run_time_s=0.02, warmup_s=0.0, warmup_runs=1, max_runs=4, rounds=5)


def _sleepy(seconds: float):
    def call() -> None:
        time.sleep(seconds)

    return call


def _round_s(targets: int) -> float:
    """One round of ``targets`` sleepy calls as timed without a deadline."""
    timed = time_interleaved([_sleepy(CALL_S)] * targets, [None] * targets, SETTINGS)
    return (timed[0].span[1] - timed[0].span[0]) / SETTINGS.rounds


def test_no_round_starts_that_would_end_after_the_deadline() -> None:
    full = time_interleaved([_sleepy(CALL_S)], [None], SETTINGS)
    assert len(full[0].round_p50_s) == SETTINGS.rounds
    one = _round_s(2)
    deadline = time.monotonic() + 2.5 * one  # two rounds and the warm-up fit, not a third
    some = time_interleaved([_sleepy(CALL_S), _sleepy(CALL_S)], [None, None], SETTINGS, deadline=deadline)
    assert 1 <= len(some[0].round_p50_s) < SETTINGS.rounds and len(some[0].round_p50_s) == len(some[1].round_p50_s)
    assert some[0].span[1] <= deadline + one / 2  # ended by the deadline, not a round past it


def test_a_deadline_that_fits_no_round_times_nothing() -> None:
    """The old rule timed one round whatever was left ("at least one round is timed")."""
    with pytest.raises(OutOfTime) as e:
        time_interleaved([_sleepy(CALL_S)], [None], SETTINGS, deadline=time.monotonic() - 1.0)
    assert e.value.round_s is None and "ran out before its first round" in str(e.value)  # passed before the warm-up
    one = _round_s(2)
    start = time.monotonic()
    with pytest.raises(OutOfTime) as e:  # the warm-up fits, a round does not
        time_interleaved([_sleepy(CALL_S)] * 2, [None] * 2, SETTINGS, deadline=start + one / 3 + 2 * CALL_S)
    assert e.value.round_s is not None and e.value.round_s > e.value.left_s
    assert time.monotonic() - start < one  # it did not start the round
    d = apart(e.value.round_s, max(e.value.left_s, 0.0))  # "an estimated 0 s ... (0 s left)" said apart (T19-8)
    assert f"its first round, an estimated {e.value.round_s:.{d}f} s, would end after the time budget" in str(e.value)
