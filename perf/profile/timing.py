"""Timing in-process calls with ``torch.utils.benchmark``, interleaved in rounds (the baseline's
and the precision study's stopwatch).

:func:`time_interleaved` measures several calls (the targets) *together*: each is warmed up,
then ``rounds`` rounds follow, and each round times every target once, in a shuffled order
(a seeded :class:`random.Random`, recorded). Whatever else the host does during a round then
falls on every target of that round alike, so a comparison of two targets round by round
(:func:`perf.analysis.stats.paired.paired`) is fair even on a busy host, where timing one target
after the other would confound the host's moment with the target. In its turn a target:

1. sets its torch intra-op threads and makes one untimed call (a changed thread count
   re-spawns torch's pool on the next call, which must not be timed);
2. times blocks of calls with ``Timer.timeit(number)`` for ``min_run_time / rounds`` s (at
   least one block; ``number`` is sized during the warm-up so that a block lasts at least
   :data:`BLOCK_S`): the median and IQR of the per-call time over all blocks give the spread
   (PyTorch docs, "torch.utils.benchmark");
3. times single calls one by one with ``Timer.timeit(1)`` for ``min_run_time / rounds`` s (at
   least :data:`MIN_SINGLE_RUNS` over all rounds): the p50 and p99 of one call, which block
   averages hide; on a shared host a preempted single call moves one sample only.

Per round it keeps the median single call and the median block (:attr:`Timing.round_p50_s`,
:attr:`Timing.round_median_s`): the values a paired comparison uses.
``torch.utils.benchmark.Timer(num_threads=N)`` sets torch's intra-op threads while it times;
onnxruntime sessions carry their own thread count (set when the session is made).
"""

from __future__ import annotations

import dataclasses
import math
import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from perf.markdown import apart

#: Fewest single calls timed for the percentiles over all rounds (a p99 of fewer calls is the max).
MIN_SINGLE_RUNS = 20
#: Fewest single calls timed per round (a round's median needs a few).
MIN_ROUND_RUNS = 3
#: Shortest block (s): calls per block are chosen so that timer overhead is negligible.
BLOCK_S = 0.002
#: Rounds of :func:`time_interleaved` (default): with 8, a paired sign test
#: (:mod:`perf.analysis.stats.paired`) calls a difference when every round agrees (p = 0.008), not at 7 of 8 (p = 0.07).
ROUNDS = 8
#: The seed of the rounds' shuffled order (recorded with the settings).
ORDER_SEED = 0


#: Whose time budget the in-process baseline's cut notes name (:attr:`perf.profile.plan.BaselineOptions.budget`):
#: the sweep's, when its hook measures it, or ``triton-perf baseline``'s own (re-check 14, NEW-5: the command's
#: cut read "the sweep's time budget ran out" with no sweep running). :func:`cut_for_time` tells their notes.
SWEEP_BUDGET = "the sweep's time budget"
COMMAND_BUDGET = "this command's --time-budget"


def cut_for_time(note: str) -> bool:
    """Whether a baseline's note says a time budget (:data:`SWEEP_BUDGET`, :data:`COMMAND_BUDGET`) cut it."""
    return any(budget in note for budget in (SWEEP_BUDGET, COMMAND_BUDGET))


class RoundsInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`time_interleaved` after its first round: still a ``KeyboardInterrupt`` to a caller
    that does not look for it; ``timings`` (one per call, in order) hold the ``rounds`` rounds timed whole (the
    one cut is dropped, so every call has the same rounds); ``points`` is for a caller that turns them into points.
    """

    def __init__(self, rounds: int):
        super().__init__(f"interrupted after {rounds} rounds")
        self.rounds = rounds
        self.timings: list[Timing] = []
        self.points: list[Any] = []


class OutOfTime(Exception):
    """:func:`time_interleaved`'s deadline came before its first round could end: nothing was timed.

    Args:
        round_s: The first round's predicted time (s), from the warm-up's calls (:func:`turn_s`);
            ``None``: the deadline passed before the warm-up (or the loads before it) ended.
        left_s: What was left before the deadline when it would have started (s; ``<= 0``: passed).
        loading: Said where it was found while loading (:func:`perf.profile.points.measure_keys`): ``round_s`` is then
            the loads left, the warm-up and the first round, from the keys loaded (``"2 of 4 keys loaded"``).
    """

    def __init__(self, round_s: float | None, left_s: float, loading: str = ""):
        self.round_s, self.left_s, self.loading = round_s, left_s, loading
        super().__init__(self.words())

    def words(self, budget: str = "the time budget") -> str:
        """What ran out, naming whose ``budget`` it was (:data:`SWEEP_BUDGET`, :data:`COMMAND_BUDGET`)."""
        if self.round_s is None:
            return f"{budget} ran out before its first round"
        left = max(self.left_s, 0.0)
        d = apart(self.round_s, left)  # over what is left, said so (trial 19, T19-8)
        if self.loading:
            return (
                f"its loads, warm-up and first round, an estimated {self.round_s:.{d}f} s from its first calls "
                f"({self.loading}), would end after {budget} ({left:.{d}f} s left): the rest was not loaded"
            )
        return f"its first round, an estimated {self.round_s:.{d}f} s, would end after {budget} ({left:.{d}f} s left)"


@dataclasses.dataclass(frozen=True)
class TimingSettings:
    """How long to time one call.

    Attributes:
        min_run_time_s: Time given to the blocks and again to the single calls of each target,
            over all rounds (s; default 0.2).
        warmup_s: Warm-up time before timing (s; default 0.05), at least ``warmup_runs`` calls.
        warmup_runs: The fewest warm-up calls (default 3).
        max_runs: Most single calls timed for the percentiles (default 2000).
        rounds: Rounds the targets are interleaved in (default :data:`ROUNDS`).
        max_target_s: The most one target's timing may take, warm-up and rounds (s), predicted from its
            own calls (:func:`fit_rounds`): a slow call (an eager fp16 conv net on a CPU, seconds a call)
            is warmed up with one call once ``warmup_s`` has passed and timed in fewer rounds (at least
            one), where the floors of calls per round would otherwise cost minutes (trial 14, T14-9:
            373 s for 3 precision rows); ``None``: every round (the baseline's default).
    """

    min_run_time_s: float = 0.2
    warmup_s: float = 0.05
    warmup_runs: int = 3
    max_runs: int = 2000
    rounds: int = ROUNDS
    max_target_s: float | None = None


@dataclasses.dataclass(frozen=True)
class Timing:
    """What :func:`time_interleaved` measured of one target; times in seconds per call.

    Attributes:
        median_s, iqr_s: Median and IQR of the per-call time over every block of every round.
        p50_s, p99_s: Percentiles of every single call of every round.
        blocks, runs_per_block: Blocks timed (all rounds) and calls per block.
        runs: Single calls timed (all rounds).
        warmup_runs, warmup_s: The warm-up's calls and time.
        measured_s: Wall time spent on this target, warm-up included.
        round_p50_s: Median single call per round, in round order.
        round_median_s: Median block per round, in round order.
        span: ``(start, end)`` of the rounds on the monotonic clock (shared by the targets
            timed together).
    """

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
    round_p50_s: tuple[float, ...] = ()
    round_median_s: tuple[float, ...] = ()
    span: tuple[float, float] = (0.0, 0.0)


@dataclasses.dataclass
class _State:
    fn: Callable[[], Any]
    threads: int | None
    timer: Any = None
    number: int = 1
    warmup_runs: int = 0
    warmup_s: float = 0.0
    call_s: float = 0.0
    spent_s: float = 0.0
    blocks: list[float] = dataclasses.field(default_factory=list)
    singles: list[float] = dataclasses.field(default_factory=list)
    round_p50: list[float] = dataclasses.field(default_factory=list)
    round_median: list[float] = dataclasses.field(default_factory=list)


def _copy(s: _State) -> _State:
    """``s`` as it is now, apart from later turns (its lists copied)."""
    return dataclasses.replace(
        s, blocks=[*s.blocks], singles=[*s.singles], round_p50=[*s.round_p50], round_median=[*s.round_median]
    )


def _set_threads(threads: int | None) -> None:
    import torch

    if threads and torch.get_num_threads() != threads:
        torch.set_num_threads(threads)


def _warm(s: _State, settings: TimingSettings) -> None:
    """Warm up, make the timer and size a block (calls per :data:`BLOCK_S`)."""
    import torch
    from torch.utils.benchmark import Timer

    _set_threads(s.threads)
    start = time.perf_counter()
    times: list[float] = []
    while len(times) < _fewest_warmup(times, settings) or time.perf_counter() - start < settings.warmup_s:
        t0 = time.perf_counter()
        s.fn()
        times.append(time.perf_counter() - t0)
    s.warmup_runs, s.warmup_s, s.call_s = len(times), time.perf_counter() - start, statistics.median(times)
    s.spent_s += s.warmup_s
    s.timer = Timer(stmt="fn()", globals={"fn": s.fn}, num_threads=torch.get_num_threads())
    s.number = max(1, math.ceil(BLOCK_S / max(statistics.median(times), 1e-9)))


def _timeit(s: _State, number: int) -> float:
    """Seconds per call of ``number`` calls: ``Timer.timeit``, which first makes ``max(number // 100, 2)``
    untimed calls of its own; a call of a block by itself (one of at least :data:`BLOCK_S`, warmed up already)
    is timed directly, its threads set by the turn (trial 14, T14-9: each single call of an eager fp16
    MobileNet, seconds long, cost three)."""
    if number > 1 or s.call_s < BLOCK_S:
        return float(s.timer.timeit(number).times[0])
    t0 = time.perf_counter()
    s.fn()
    return time.perf_counter() - t0


def _fewest_warmup(times: Sequence[float], settings: TimingSettings) -> int:
    """The fewest warm-up calls: ``warmup_runs``, or one when ``max_target_s`` bounds the timing and the
    first call alone outlasted ``warmup_s`` (each further call would cost seconds)."""
    slow = settings.max_target_s is not None and bool(times) and times[0] >= settings.warmup_s
    return 1 if slow else settings.warmup_runs


def _turn(s: _State, budget_s: float, min_singles: int, max_singles: int) -> None:
    """One round's turn of one target (see the module docstring)."""
    start = time.perf_counter()
    _set_threads(s.threads)
    s.fn()  # untimed: a changed thread count re-spawns the pool here
    blocks: list[float] = []
    t0 = time.perf_counter()
    while not blocks or time.perf_counter() - t0 < budget_s:
        blocks.append(_timeit(s, s.number))
    singles: list[float] = []
    t0 = time.perf_counter()
    while len(singles) < max_singles and (len(singles) < min_singles or time.perf_counter() - t0 < budget_s):
        singles.append(_timeit(s, 1))
    s.blocks += blocks
    s.singles += singles
    s.round_median.append(statistics.median(blocks))
    s.round_p50.append(statistics.median(singles))
    s.spent_s += time.perf_counter() - start


def turn_s(call_s: float, settings: TimingSettings) -> float:
    """One round's turn of a target whose call takes ``call_s`` (s), predicted: its untimed call, at least one
    block (:data:`BLOCK_S` of calls) and a round's share of ``min_run_time_s`` of them, and at least the fewest
    single calls and that share of them (:func:`_turn`). The one rule the deadline, :func:`fit_rounds` and
    :mod:`perf.profile.estimate` use."""
    rounds = max(1, settings.rounds)
    budget = settings.min_run_time_s / rounds
    number = max(1, math.ceil(BLOCK_S / max(call_s, 1e-9)))
    min_singles = max(MIN_ROUND_RUNS, math.ceil(MIN_SINGLE_RUNS / rounds))
    return call_s + max(budget, number * call_s) + max(budget, min_singles * call_s)


def warmup_s(call_s: float, settings: TimingSettings) -> float:
    """The warm-up of a target whose call takes ``call_s`` (s), predicted (:func:`_warm`, :func:`_fewest_warmup`)."""
    return max(settings.warmup_s, _fewest_warmup([call_s], settings) * call_s)


def fit_rounds(call_s: Sequence[float], settings: TimingSettings) -> int:
    """The rounds targets whose calls take ``call_s`` (s each) are timed in: ``settings.rounds``, or fewer (at
    least one) where ``max_target_s`` per target would not hold them (:func:`turn_s`), the warm-up counted."""
    rounds = max(1, settings.rounds)
    if settings.max_target_s is None or not call_s:
        return rounds
    room = settings.max_target_s * len(call_s) - sum(warmup_s(c, settings) for c in call_s)
    per_round = sum(turn_s(c, settings) for c in call_s)
    return max(1, min(rounds, int(room // per_round) if per_round > 0 else rounds))


def timing_s(call_s: Sequence[float], settings: TimingSettings) -> float:
    """The whole timing of targets whose calls take ``call_s`` (s each), predicted: their warm-ups and
    :func:`fit_rounds` rounds of their turns (:func:`turn_s`)."""
    rounds = fit_rounds(call_s, settings)
    return sum(warmup_s(c, settings) + rounds * turn_s(c, settings) for c in call_s)


def time_interleaved(
    calls: Sequence[Callable[[], Any]],
    threads: Sequence[int | None],
    settings: TimingSettings = TimingSettings(),
    seed: int = ORDER_SEED,
    deadline: float | None = None,
    on_round: Callable[[int, int], None] | None = None,
) -> list[Timing]:
    """Warm up every call, then time them interleaved in ``settings.rounds`` rounds (see the
    module docstring); fewer when ``deadline`` passes or ``settings.max_target_s`` holds slow calls
    (:func:`fit_rounds`, from the warm-up's calls). ``on_round(round, rounds)`` is called as
    each round starts (0-based, after the warm-up): no call has a number before the last ends.

    Args:
        calls: The targets (no arguments; results discarded).
        threads: torch intra-op threads of each target (``None``: torch's current setting),
            set before each of its turns and left set (the caller restores its own).
        settings: How long.
        seed: Seed of the shuffled order of each round.
        deadline: ``time.monotonic()`` by which the timing ends (a sweep's time budget): no warm-up
            starts after it, and no round starts that would end after it (the first predicted from
            the warm-up's calls, each later one as long as the one before: trial 13, T13-16, a round
            started with 10 s left ran 21 s past the budget); ``None``: every round.
        on_round: Called with ``(round, rounds)`` as each round starts (progress; ``None``: none).

    Returns:
        One :class:`Timing` per call, in the order given.

    Raises:
        ValueError: ``calls`` and ``threads`` differ in length.
        OutOfTime: ``deadline`` leaves no time for the warm-up or the first round: nothing was timed.
        RoundsInterrupted: Ctrl-C after the first round, with the timings of the rounds timed whole
            (before it ended: a plain ``KeyboardInterrupt``, nothing timed).
    """
    if len(calls) != len(threads):
        raise ValueError(f"{len(calls)} calls but {len(threads)} thread counts")
    states = [_State(fn, th) for fn, th in zip(calls, threads)]
    nominal = max(1, settings.rounds)  # a round's share of min_run_time_s and of the calls (turn_s)
    budget = settings.min_run_time_s / nominal
    min_singles = max(MIN_ROUND_RUNS, math.ceil(MIN_SINGLE_RUNS / nominal))
    max_singles = max(min_singles, settings.max_runs // nominal)
    for s in states:
        if deadline is not None and time.monotonic() >= deadline:
            raise OutOfTime(None, deadline - time.monotonic())
        _warm(s, settings)
    rng = random.Random(seed)
    order = list(range(len(states)))
    begin = last = time.monotonic()
    rounds = fit_rounds([s.call_s for s in states], settings)  # fewer when max_target_s holds slow calls
    need = sum(turn_s(s.call_s, settings) for s in states)
    stopped, marks = None, [_copy(s) for s in states]
    try:
        for r in range(rounds):
            if deadline is not None and time.monotonic() + need > deadline:
                if r == 0:
                    raise OutOfTime(need, deadline - time.monotonic())
                break
            marks = [_copy(s) for s in states]  # as the round starts: what a Ctrl-C in it goes back to
            if on_round is not None:
                on_round(r, rounds)
            rng.shuffle(order)
            for i in order:
                _turn(states[i], budget, min_singles, max_singles)
            need, last = time.monotonic() - last, time.monotonic()  # the next round as long as this one
    except KeyboardInterrupt:  # the rounds timed whole are kept, the one cut is dropped (nothing before one ended)
        states = marks
        if not states[0].round_p50:
            raise
        stopped = RoundsInterrupted(len(states[0].round_p50))
    span = (begin, time.monotonic())
    out = _timings(states, span)
    if stopped is not None:
        stopped.timings = out
        raise stopped
    return out


def _timings(states: Sequence[_State], span: tuple[float, float]) -> list[Timing]:
    """The :class:`Timing` of each state over the rounds it was timed in (``span``: their wall clock)."""
    out = []
    for s in states:
        q1, q3 = np.percentile(s.blocks, [25, 75])  # Measurement.times: per call already
        p50, p99 = np.percentile(s.singles, [50, 99])
        out.append(
            Timing(
                median_s=float(statistics.median(s.blocks)),
                iqr_s=float(q3 - q1),
                p50_s=float(p50),
                p99_s=float(p99),
                blocks=len(s.blocks),
                runs_per_block=s.number,
                runs=len(s.singles),
                warmup_runs=s.warmup_runs,
                warmup_s=s.warmup_s,
                measured_s=s.spent_s,
                round_p50_s=tuple(s.round_p50),
                round_median_s=tuple(s.round_median),
                span=span,
            )
        )
    return out


def time_call(fn: Callable[[], Any], threads: int | None, settings: TimingSettings = TimingSettings()) -> Timing:
    """Time one call on its own (:func:`time_interleaved` of one target)."""
    return time_interleaved([fn], [threads], settings)[0]
