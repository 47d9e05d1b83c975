"""The in-process timing stops starting rounds at a sweep's time budget (perf.profile.timing)."""

from __future__ import annotations

import time

from perf.profile.timing import TimingSettings, time_interleaved


def _sleepy(seconds: float):
    def call() -> None:
        time.sleep(seconds)

    return call


def test_no_round_starts_after_the_deadline_and_at_least_one_is_timed() -> None:
    settings = TimingSettings(min_run_time_s=0.02, warmup_s=0.0, warmup_runs=1, max_runs=4, rounds=5)
    full = time_interleaved([_sleepy(0.001)], [None], settings)
    assert len(full[0].round_p50_s) == 5
    past = time_interleaved([_sleepy(0.001)], [None], settings, deadline=time.monotonic() - 1.0)
    assert len(past[0].round_p50_s) == 1  # a deadline already past: one round, never none
    start = time.monotonic()
    some = time_interleaved([_sleepy(0.001), _sleepy(0.001)], [None, None], settings, deadline=start + 0.05)
    assert 1 <= len(some[0].round_p50_s) < 5 and len(some[0].round_p50_s) == len(some[1].round_p50_s)
