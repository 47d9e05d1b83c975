"""Timing the in-process baseline's points (:func:`measure_keys`): each key of one model loaded once
(:mod:`perf.profile.runners`), its points at their batch sizes timed interleaved in rounds
(:func:`perf.profile.timing.time_interleaved`) with the host's load sampled over them; a key that
cannot run here gives "not run on this host" / "failed" points with the reason.
:mod:`perf.profile.baseline` plans the keys and records the result.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable, Iterator
from typing import Any

from builders.repository.view import RepositoryVariant
from core.errors import ToolkitError
from core.processes import raise_recorded_stop, recorded_stops
from core.wording import count
from perf.measure.host import HOST_BUSY_THRESHOLD_PCT, HostSampler
from perf.profile.runners import NotRunHere, artifact_call, batch_inputs, cannot_run, eager_call, inputs_at
from perf.profile.timing import OutOfTime, RoundsInterrupted, Timing, TimingSettings, time_interleaved, turn_s, warmup_s
from perf.records.baseline import EAGER, NOT_RUN, BaselineKey, BaselinePoint


def _load(key: BaselineKey, rv: RepositoryVariant, file: str) -> tuple[Callable[[dict[str, Any]], Any], dict[str, Any]]:
    """The call of ``key`` (``rv``'s artifact ``file``, or the build's eager model) and the
    build's reference inputs (at another size: :func:`perf.profile.runners.inputs_at`)."""
    call = eager_call(rv, key.device) if key.format == EAGER else artifact_call(rv, key.format, file, key)
    inputs, _ = rv.reference()
    return call, inputs


def _prepare(
    key: BaselineKey, rv: RepositoryVariant, file: str
) -> tuple[Callable[[dict[str, Any]], Any] | None, Any, str, str | None]:
    """``(call, reference inputs, status, reason)``: the loaded call, or why there is none."""
    status, reason = NOT_RUN, cannot_run(key)
    if reason is None:
        try:
            call, reference = _load(key, rv, file)
            return call, reference, "ok", None
        except NotRunHere as e:
            reason = str(e)
        except ToolkitError as e:
            raise_recorded_stop()  # an error a library made of a Ctrl-C is no failure of the key (trial 28, T28-11)
            status, reason = "failed", e.message
        except Exception as e:  # onnxruntime / torch / a user's factory: recorded, the other keys still run
            raise_recorded_stop()
            status, reason = "failed", f"{type(e).__name__}: {str(e)[:300]}"
    return None, None, status, reason


#: One point to time: ``(input size, batch size)`` (:attr:`perf.records.baseline.BaselinePoint.shape`, ``batch_size``).
At = tuple[str | None, int]


def measure_keys(
    group: dict[BaselineKey, tuple[RepositoryVariant, str, list[At]]],
    timing: TimingSettings,
    threshold_pct: float = HOST_BUSY_THRESHOLD_PCT,
    deadline: float | None = None,
    on_round: Callable[[int, int, int], None] | None = None,
) -> list[BaselinePoint]:
    """The points of ``group`` (keys of one model, each with a variant serving it, its artifact
    file and its points: input size and batch size each, :func:`perf.profile.runners.inputs_at`), timed
    interleaved in rounds; a key that cannot run gives "not run on this host" / "failed" points with
    the reason. Each timed point carries the host's load over the rounds. ``on_round(round, rounds,
    points)``: as each round starts (0-based). ``deadline``: :func:`perf.profile.timing.time_interleaved`'s;
    no key is loaded after it.

    Raises:
        OutOfTime: the deadline leaves no time for the loads, the warm-up or the first round.
        RoundsInterrupted: Ctrl-C after the first round; its ``points`` are those timed in the rounds timed whole.
        KeyboardInterrupt: Ctrl-C before it, also one that onnxruntime, torch or a user's factory swallowed or made
            an error of while a key loaded or its points were first called (:func:`core.processes.recorded_stops`):
            never recorded as a failed key (trial 28, T28-11's kind).
    """
    with recorded_stops():
        return _measure_keys(group, timing, threshold_pct, deadline, on_round)


def _measure_keys(
    group: dict[BaselineKey, tuple[RepositoryVariant, str, list[At]]],
    timing: TimingSettings,
    threshold_pct: float,
    deadline: float | None,
    on_round: Callable[[int, int, int], None] | None,
) -> list[BaselinePoint]:
    """:func:`measure_keys` inside its record of stops."""
    out: dict[tuple[BaselineKey, At], BaselinePoint] = {}
    todo: list[tuple[BaselineKey, At, Callable[[], Any]]] = []
    firsts: list[float] = []  # each loaded point's first call (s)
    loads: list[float] = []  # each key's load (s)
    total = sum(len(ats) for *_, ats in group.values())
    for i, (key, (rv, file, ats)) in enumerate(group.items()):
        if deadline is not None and time.monotonic() >= deadline:
            raise OutOfTime(None, deadline - time.monotonic())
        if deadline is not None and firsts:  # what the keys loaded say of the rest, before another load (trial 22)
            need = _rest_s(loads, len(group), firsts, total, timing)
            if time.monotonic() + need > deadline:
                raise OutOfTime(need, deadline - time.monotonic(), f"{i} of {count(len(group), 'key')} loaded")
        t0 = time.monotonic()
        call, reference, status, reason = _prepare(key, rv, file)
        loads.append(time.monotonic() - t0)
        for at in ats:
            shape, b = at
            if call is None:
                out[(key, at)] = BaselinePoint(key, b, shape, status=status, reason=reason)  # type: ignore[arg-type]
                continue
            try:  # a point whose inputs or call fail is recorded, the others are still timed
                fn = functools.partial(call, batch_inputs(inputs_at(rv, reference, shape), b))
                t0 = time.monotonic()
                fn()
                firsts.append(time.monotonic() - t0)
            except Exception as e:
                raise_recorded_stop()
                reason = e.message if isinstance(e, ToolkitError) else f"{type(e).__name__}: {str(e)[:300]}"
                out[(key, at)] = BaselinePoint(key, b, shape, status="failed", reason=reason)
                continue
            todo.append((key, at, fn))
    raise_recorded_stop()  # one a library swallowed while the keys loaded: nothing timed after it
    stopped = None
    if todo:
        with HostSampler([os.getpid()]) as hosts:
            try:
                timings = time_interleaved(
                    [fn for *_, fn in todo],
                    [k.threads for k, *_ in todo],
                    timing,
                    deadline=deadline,
                    on_round=None if on_round is None else lambda r, n: on_round(r, n, len(todo)),
                )
            except RoundsInterrupted as e:  # Ctrl-C: the rounds timed whole become the points
                timings, stopped = e.timings, e
        load = hosts.load(timings[0].span, threshold_pct)
        for (key, at, _), t in zip(todo, timings):
            p = _point(key, at, t)
            load.fill(p)
            out[(key, at)] = p
    points = [out[(k, at)] for k, (_, _, ats) in group.items() for at in ats]
    if stopped is not None:
        stopped.points = points
        raise stopped
    return points


def _rest_s(loads: list[float], keys: int, firsts: list[float], points: int, timing: TimingSettings) -> float:
    """The rest of a model's loads, its warm-up and its first round (s), predicted from the keys loaded of its ``keys``
    (``loads``: each one's load; ``firsts``: their points' first calls, of ``points`` in all): the other keys load as
    long as those after the first did (the first load of a process carries its library's import: none priced from it
    alone), and each point's warm-up and turn (:func:`perf.profile.timing.warmup_s`, :func:`~perf.profile.timing.turn_s`)
    is as long as these points' on average. Trial 22, F-baseline-waste: 4 keys
    loaded and warmed up in 26 s, left 15 s of a budget its first round (21 s) did not fit; the eager model's calls,
    which no served variant measures, were the slow ones."""
    per = sum(warmup_s(c, timing) + turn_s(c, timing) for c in firsts) / len(firsts)
    rest = sum(loads[1:]) / (len(loads) - 1) * (keys - len(loads)) if len(loads) > 1 else 0.0
    return rest + per * points


def measure_key(
    key: BaselineKey, rv: RepositoryVariant, file: str, batches: list[int], timing: TimingSettings
) -> Iterator[BaselinePoint]:
    """The points of one ``key`` at ``batches``, at the reference inputs' size (:func:`measure_keys` of that key alone)."""
    yield from measure_keys({key: (rv, file, [(None, b) for b in batches])}, timing)


def _point(key: BaselineKey, at: At, t: Timing) -> BaselinePoint:
    shape, b = at
    return BaselinePoint(
        key,
        b,
        shape,
        latency_p50_ms=t.p50_s * 1e3,
        latency_p99_ms=t.p99_s * 1e3,
        latency_median_ms=t.median_s * 1e3,
        latency_iqr_ms=t.iqr_s * 1e3,
        throughput_infer_per_s=b / t.p50_s,
        spread_pct=100.0 * t.iqr_s / t.median_s,
        warmup_runs=t.warmup_runs,
        warmup_s=t.warmup_s,
        blocks=t.blocks,
        runs_per_block=t.runs_per_block,
        runs=t.runs,
        measured_s=t.measured_s,
        rounds_ms=[round(x * 1e3, 6) for x in t.round_p50_s],
    )
