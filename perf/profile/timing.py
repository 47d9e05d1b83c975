"""Timing one in-process call with ``torch.utils.benchmark`` (the baseline's stopwatch).

:func:`time_call` warms a call up, then measures it twice:

1. ``Timer.blocked_autorange(min_run_time)``: blocks of calls sized so that timer overhead is
   negligible; the median and IQR of the per-call time over the blocks give the spread (PyTorch docs, "torch.utils.benchmark").
2. single calls timed one by one with ``Timer.timeit(1)`` for ``min_run_time`` (at least
   :data:`MIN_SINGLE_RUNS`, at most ``max_runs``): the p50 and p99 of one call, which block
   averages hide. The baseline's throughput is ``batch / p50``: on a shared host a block that
   other processes preempted moves the block median, a preempted single call one sample only.

``torch.utils.benchmark.Timer(num_threads=N)`` sets torch's intra-op threads while it times;
onnxruntime sessions carry their own thread count (set when the session is made).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

import numpy as np

#: Fewest single calls timed for the percentiles (a p99 of fewer calls is the max).
MIN_SINGLE_RUNS = 20


@dataclasses.dataclass(frozen=True)
class TimingSettings:
    """How long to time one call.

    Attributes:
        min_run_time_s: ``blocked_autorange(min_run_time=...)`` and the time given to the
            single-call runs (s; default 0.2).
        warmup_s: Warm-up time before timing (s; default 0.05), at least ``warmup_runs`` calls.
        warmup_runs: The fewest warm-up calls (default 3).
        max_runs: Most single calls timed for the percentiles (default 2000).
    """

    min_run_time_s: float = 0.2
    warmup_s: float = 0.05
    warmup_runs: int = 3
    max_runs: int = 2000


@dataclasses.dataclass(frozen=True)
class Timing:
    """What :func:`time_call` measured; times in seconds per call."""

    median_s: float
    iqr_s: float
    p50_s: float
    p99_s: float
    blocks: int
    runs_per_block: int
    runs: int
    warmup_runs: int
    warmup_s: float
    measured_s: float


def time_call(fn: Callable[[], Any], threads: int | None, settings: TimingSettings = TimingSettings()) -> Timing:
    """Warm ``fn`` up, then time it (see the module docstring).

    Args:
        fn: The call to time (no arguments; its result is discarded).
        threads: torch intra-op threads while timing, set here and left set (``None``: torch's
            current setting; the caller restores its own).
        settings: How long.

    Returns:
        The per-call times.
    """
    import torch
    from torch.utils.benchmark import Timer

    if threads:  # set once, before warm-up: Timer sets it around every block and restores the previous
        torch.set_num_threads(threads)  # value, and a changed count re-spawns the pool on the next call
    start = time.perf_counter()
    warm = 0
    while warm < settings.warmup_runs or time.perf_counter() - start < settings.warmup_s:
        fn()
        warm += 1
    warmup_s = time.perf_counter() - start
    timer = Timer(stmt="fn()", globals={"fn": fn}, num_threads=torch.get_num_threads())
    m = timer.blocked_autorange(min_run_time=settings.min_run_time_s)
    singles: list[float] = []
    t0 = time.perf_counter()
    while len(singles) < settings.max_runs and (
        len(singles) < MIN_SINGLE_RUNS or time.perf_counter() - t0 < settings.min_run_time_s
    ):
        singles.append(timer.timeit(1).times[0])
    p50, p99 = np.percentile(singles, [50, 99])
    return Timing(
        median_s=float(m.median),
        iqr_s=float(m.iqr),
        p50_s=float(p50),
        p99_s=float(p99),
        blocks=len(m.times),
        runs_per_block=int(m.number_per_run),
        runs=len(singles),
        warmup_runs=warm,
        warmup_s=warmup_s,
        measured_s=time.perf_counter() - start,
    )
