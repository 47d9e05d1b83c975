"""The sweep flags one design reads and the other does not (:data:`DESIGN_ONLY`), the refusal of one
given to the design that ignores it (:func:`other_design_refusal`), and advice that names a flag:
one the user can act on where it is said (:func:`act_on`; :func:`window_hint`'s, after perf_analyzer's
"Please use a larger time window").

Trial 14, T14-6: ``--measurement-interval 2000`` (the default's value, so no warning compared it with
anything) was taken by a rounds sweep without a word, which measured 300 ms windows; a flag is now
told given or not by click's ``ParameterSource`` (:attr:`perf.sweep.options.SweepOptions.given`), and
refused. T14-3: "try --round-window 600" on a resumed run, which keeps its saved window."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from clients.runtimes.options import ServerOptions
from core.errors import FlagError
from core.flag_words import flag_name
from perf.records.levels import window_failure
from perf.records.rounds import RoundRules
from perf.records.settings import MeasureSettings
from perf.sweep.options import REPORT_SETTINGS, RUN_FLAGS, SweepOptions


class DesignOnly(NamedTuple):
    """A flag that one design reads (:data:`DESIGN_ONLY`).

    Attributes:
        design: The design that reads it.
        sets: What it sets there (follows "FLAG VALUE sets").
        other: What the other design does instead (a clause).
        instead: The other design's field for the same thing (its flag is offered with the value
            given), ``None`` where it has none.
        value: The one value of the flag that only ``design`` reads (the flag's other values both
            designs read, its default among them), ``None`` where the flag itself is ``design``'s.
    """

    design: str
    sets: str
    other: str
    instead: str | None = None
    value: str | None = None


#: Flags one design reads and the other ignores: option field (``measure.x`` for a measurement
#: setting) -> :class:`DesignOnly`. Not here, as both read them: ``--protocol``, ``--perf-analyzer-arg``,
#: ``--measurement-mode time_windows`` and ``--stability-percentage`` (a rounds visit passes
#: perf_analyzer ``-s`` off and flags the visit unstable by it: :func:`perf.measure.level.measure_visit`).
DESIGN_ONLY: dict[str, DesignOnly] = {
    "trials": DesignOnly(
        "sequential",
        "the sequential design's repeats of each level",
        "a rounds sweep measures each level once a round: its repeats are its rounds (a longer --time-budget gives more)",
    ),
    "measure.measurement_interval_ms": DesignOnly(
        "sequential",
        "the sequential design's perf_analyzer windows (ms)",
        f"a rounds sweep's window is --round-window (default {RoundRules().window_ms} ms)",
        "round_window_ms",
    ),
    "measure.measurement_mode": DesignOnly(
        "sequential",
        "the sequential design's windows by request count (--measurement-request-count each)",
        f"a rounds visit's windows are time windows of --round-window (default {RoundRules().window_ms} ms)",
        value="count_windows",
    ),
    "measure.measurement_request_count": DesignOnly(
        "sequential",
        "the requests of each count_windows window (--design sequential --measurement-mode count_windows)",
        f"a rounds visit's windows are time windows of --round-window (default {RoundRules().window_ms} ms)",
    ),
    "measure.max_trials": DesignOnly(
        "sequential",
        "the windows a sequential level may take to find 3 that agree",
        "a rounds visit is one perf_analyzer run of 3 windows, never retried",
    ),
    "measure.unstable_retries": DesignOnly(
        "sequential",
        "the sequential design's retries of an unstable level",
        "a rounds visit is never retried: the next rounds measure its level again",
    ),
    "round_window_ms": DesignOnly(
        "rounds",
        "the windows of a rounds visit (ms)",
        f"a sequential sweep's window is --measurement-interval (default {MeasureSettings().measurement_interval_ms} ms)",
        "measure.measurement_interval_ms",
    ),
    "max_loaded": DesignOnly(
        "rounds", "how many variants a rounds sweep loads at once", "a sequential sweep loads one at a time"
    ),
    "seed": DesignOnly("rounds", "the rounds' shuffled order", "a sequential sweep has no shuffled order"),
}


def other_design_refusal(opts: SweepOptions, design: str) -> FlagError | None:
    """The refusal of flags that ``design`` does not read (:data:`DESIGN_ONLY`), given: per flag what it
    sets and what ``design`` does instead, and its hint what to give (a usage error of the first such
    flag, :class:`core.errors.FlagError`); ``None`` when none was given.

    A flag counts as given when its name is in ``opts.given`` (click's ``ParameterSource``: a value
    typed equal to the default counts too); with ``opts.given`` ``None`` (the Python API), when its
    value differs from the default. A flag with a :attr:`DesignOnly.value` counts only at that value.
    """
    defaults = SweepOptions(server=opts.server)
    flags, said, fixes = [], [], []
    for field, d in DESIGN_ONLY.items():
        if d.design == design:
            continue
        value = _get(opts, field)
        given = field.rpartition(".")[2] in opts.given if opts.given is not None else value != _get(defaults, field)
        if not given or d.value not in (None, value):
            continue
        flag = flag_of(field)
        flags.append(flag)
        said.append(f"{flag} {value} sets {d.sets}; {d.other}")
        fixes.append((f"give {flag_of(d.instead)} {value}" if d.instead else f"drop {flag}") + f", or --design {d.design}")
    return FlagError("; ".join(said), flag=flags[0], hint="; ".join(fixes)) if said else None


def act_on(field: str, advice: str, resumed: bool, flag: str | None = None) -> str:
    """``advice`` (e.g. ``"try --round-window 600"``), which names the flag of ``field`` (a
    :class:`SweepOptions` field, ``measure.x`` for a measurement setting), as one the user can act
    on: on a resumed run, which keeps its saved settings but :data:`RUN_FLAGS` and
    :data:`REPORT_SETTINGS` (:func:`perf.sweep.resuming.resumed_options`), it is a new run's. ``flag``: the
    flag's name where ``field`` is another command's (a co-location run's ``window_ms``, which its
    resume keeps too)."""
    name = field.rpartition(".")[2]
    if not resumed or name in (*RUN_FLAGS, *REPORT_SETTINGS):
        return advice
    return f"start a new run (--run-id NEW) and {advice}: a resumed run keeps its saved {flag or flag_of(field)}"


def window_hint(error: str, design: str, window_ms: int, slowest_ms: float | None = None, resumed: bool = False) -> str:
    """``error`` followed by the toolkit flag that sets perf_analyzer's window, and a value to try, when
    perf_analyzer said a window saw no request complete ("Please use a larger time window": a flag of its
    own the toolkit sets; trial 13, T13-7: TorchScript visits at p99 130-630 ms in 300 ms windows); else
    ``error`` as it is. The flag is ``design``'s (:data:`DESIGN_ONLY`); the value and its words
    :func:`window_advice`'s."""
    if not window_failure(error):
        return error
    field = "round_window_ms" if design == "rounds" else "measure.measurement_interval_ms"
    flag = flag_of(field)
    return f"{error} (no request completed within a {window_ms} ms window, which {flag} sets: " + (
        window_advice(flag, field, window_ms, slowest_ms, resumed) + ")"
    )


def window_advice(flag: str, field: str, window_ms: int, slowest_ms: float | None, resumed: bool) -> str:
    """What to try where a window of ``window_ms`` saw no request complete: ``flag`` (of ``field``) at twice
    the window, or twice ``slowest_ms`` (the highest latency measured of what missed, ms) where that is more,
    in whole 100 ms; on a ``resumed`` run, a new run's (:func:`act_on`). The sweep's rule, and a co-location
    run's (trial 16, T16-12)."""
    try_ms = max(2 * window_ms, math.ceil(2 * (slowest_ms or 0.0) / 100.0) * 100)
    slow = f", twice its slowest p99 measured ({slowest_ms:.0f} ms)" if slowest_ms and try_ms > 2 * window_ms else ""
    return act_on(field, f"try {flag} {try_ms}{slow}", resumed, flag)


def flag_of(field: str) -> str:
    """The flag of a :class:`SweepOptions` field (``measure.x``, ``server.x``: of the measurement or
    server setting)."""
    owner, _, name = field.rpartition(".")
    return flag_name({"measure": MeasureSettings, "server": ServerOptions}.get(owner, SweepOptions), name)


def _get(opts: Any, field: str) -> Any:
    for part in field.split("."):
        opts = getattr(opts, part)
    return opts
