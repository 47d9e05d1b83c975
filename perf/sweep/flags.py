"""The values of ``triton-perf sweep``'s flags that are more than a click type:
``--concurrency`` (levels, ranges, ``auto``), ``--request-rates`` and ``--shapes`` (``--shape``
is :func:`clients.shapes.parse_shapes`)
(:class:`perf.sweep.options.SweepOptions` names them as its fields' parsers)."""

from __future__ import annotations

import math
from typing import Any

import click

from core.cli import CommaList
from core.names import x_separated_list
from perf.records.results import MIXED
from perf.search.policy import AUTO


def concurrency_item(text: str) -> list[int] | list[str]:
    """One part of ``--concurrency``: ``auto`` (the adaptive ladder, :mod:`perf.search.policy`), a
    level ``4``, or perf_analyzer's linear range ``start:end[:step]`` (``1:8:2`` -> 1, 3, 5, 7).

    Raises:
        ValueError: not ``auto``, an integer >= 1 or a valid range.
    """
    if text.strip().lower() == AUTO:
        return [AUTO]
    if ":" in text:
        try:
            parts = [int(x) for x in text.split(":")]
        except ValueError:
            raise ValueError("a range is start:end[:step] with integers") from None
        if len(parts) not in (2, 3) or parts[0] < 1 or parts[1] < parts[0] or (len(parts) == 3 and parts[2] < 1):
            raise ValueError("a range is start:end[:step] with 1 <= start <= end and step >= 1")
        return list(range(parts[0], parts[1] + 1, parts[2] if len(parts) == 3 else 1))
    try:
        level = int(text)
    except ValueError:
        raise ValueError(f"{text!r} is not auto, a level (an integer >= 1) or a range start:end[:step]") from None
    if level < 1:
        raise ValueError("concurrency levels are >= 1")
    return [level]


def concurrency_list(text: str) -> tuple[int, ...]:
    """``"1,2,4"`` (a list) or ``"start:end[:step]"`` (perf_analyzer's linear range), or both mixed.

    Raises:
        click.BadParameter: a part is neither.
    """
    return CommaList(concurrency_item).convert(text, None, None)  # a text of no level is refused there


def concurrency_setting(levels: tuple[int | str, ...]) -> tuple[int, ...] | str:
    """The ``--concurrency`` values as :attr:`SweepOptions.concurrency`: ``"auto"`` alone, or the levels.

    Raises:
        click.BadParameter: ``auto`` mixed with levels.
    """
    if AUTO in levels:
        if len(levels) > 1:
            raise click.BadParameter(
                f"--concurrency auto grows its own levels; got it with {list(levels)}: pass one or the other"
            )
        return AUTO
    return tuple(int(c) for c in levels)


#: The form of one ``--shapes`` flag, said by every refusal of one.
SHAPES_FORM = "AXIS=SIZE[,SIZE...] or AXIS=LOW..HIGH, e.g. seq=16,64,128 or time=1000..16000 (a mix of sizes across the range)"


def parse_shapes_flag(text: str) -> tuple[str, tuple[int | str, ...]]:
    """``--shapes seq=16,64,128`` -> ``("seq", (16, 64, 128))``; a range ``LO..HI`` is one mixed
    workload (requests of sizes drawn across it, :mod:`perf.measure.mixed`), kept as its text:
    ``--shapes time=1000..16000`` -> ``("time", ("1000..16000",))``.

    Raises:
        click.BadParameter: not ``AXIS=SIZE|LO..HI[,...]`` with sizes >= 1 and ``LO < HI``; the
            message names the item that is wrong and why (break test B5: a reversed range, a range
            of one size, a size below 1 and two axes in one flag all got the form alone).
    """
    axis, sep, sizes = text.partition("=")
    axis = axis.strip()
    meant = x_separated_list(sizes)
    if sep and axis and meant:
        raise click.BadParameter(f"--shapes {text!r}: the sizes are comma-separated: did you mean {axis}={meant}?")
    items = [x.strip() for x in sizes.split(",") if x.strip()]
    if not sep or not axis or not items:
        raise click.BadParameter(f"--shapes {text!r} is not {SHAPES_FORM}")
    others = [x for x in items if "=" in x]
    if others:
        second = others[0].partition("=")[0].strip()
        raise click.BadParameter(
            f"--shapes {text!r} names two axes ({axis} and {second}): one flag gives the sizes of one axis; "
            f"give one flag per axis, e.g. --shapes {axis}={items[0]} --shapes {others[0]}"
        )
    values: list[int | str] = []
    for item in items:
        try:
            values.append(_size_item(item))
        except ValueError as e:
            raise click.BadParameter(f"--shapes {text!r}: {item!r} {e}") from None
    return axis, tuple(dict.fromkeys(values))


def _size_item(text: str) -> int | str:
    """One ``--shapes`` item: a size ``>= 1``, or a mixed range ``LO..HI`` (``1 <= LO < HI``) as ``"LO..HI"``.

    Raises:
        ValueError: neither; its message says why, to follow the item (``"is a range of one size: give 100"``).
    """
    if MIXED in text:
        parts = text.split(MIXED)
        if len(parts) != 2 or not all(_whole(x) for x in parts):
            raise ValueError(f"is not a range LOW..HIGH of two whole numbers; expected {SHAPES_FORM}")
        lo, hi = (int(x) for x in parts)
        if lo < 1:
            raise ValueError(f"starts at {lo}: sizes are >= 1")
        if lo > hi:
            raise ValueError(f"is reversed: did you mean {hi}{MIXED}{lo}?")
        if lo == hi:
            raise ValueError(f"is a range of one size: give the size, {lo}, or a wider range")
        return f"{lo}{MIXED}{hi}"
    if not _whole(text):
        raise ValueError(f"is not a size (a whole number >= 1) or a range; expected {SHAPES_FORM}")
    if (size := int(text)) < 1:
        raise ValueError("is below 1: sizes are >= 1")
    return size


def _whole(text: str) -> bool:
    """Whether ``text`` is a whole number, signed or not (its sign is checked apart)."""
    return text.strip().lstrip("-").isdigit()


def sweep_axes_flags(values: tuple[str, ...]) -> dict[str, tuple[int | str, ...]]:
    """``--shapes`` flags -> ``{axis: sizes}`` (:func:`parse_shapes_flag`); one flag per axis.

    Raises:
        click.BadParameter: a flag that does not parse, or an axis named by two flags (the
            first was silently replaced by the second).
    """
    out: dict[str, tuple[int | str, ...]] = {}
    for text in values:
        axis, sizes = parse_shapes_flag(text)
        if axis in out:
            every = ",".join(str(x) for x in dict.fromkeys((*out[axis], *sizes)))
            raise click.BadParameter(
                f"--shapes {axis} given twice ({','.join(map(str, out[axis]))} and {','.join(map(str, sizes))}): one "
                f"flag gives every size of an axis, e.g. --shapes {axis}={every}"
            )
        out[axis] = sizes
    return out


def positive_rate(text: str) -> float:
    """One ``--request-rates`` item (requests/s).

    Raises:
        ValueError: not a number > 0.
    """
    rate = float(text)
    if not rate > 0:
        raise ValueError("request rates are > 0 requests/s")
    return rate


#: Flags one design uses and the other ignores: option field (``measure.x`` for a measurement
#: setting) -> (the flag, the design that uses it, what the other design does instead).
DESIGN_ONLY: dict[str, tuple[str, str, str]] = {
    "trials": ("--trials", "sequential", "every round measures each level once: a level's repeats are its rounds"),
    "measure.measurement_interval_ms": ("--measurement-interval", "sequential", "its visits' windows are --round-window long"),
    "measure.max_trials": ("--max-trials", "sequential", "each visit is one perf_analyzer run of 3 windows, never retried"),
    "measure.unstable_retries": ("--unstable-retries", "sequential", "each visit is one perf_analyzer run, never retried"),
    "round_window_ms": ("--round-window", "rounds", "each level is measured until perf_analyzer's windows agree"),
    "max_loaded": ("--max-loaded", "rounds", "one variant is loaded at a time"),
    "seed": ("--seed", "rounds", "it has no shuffled rounds"),
}


def design_ignores(opts: Any, design: str) -> list[str]:
    """One line per flag set to a value other than its default that ``design`` ignores
    (:data:`DESIGN_ONLY`): the flag and its value, the design, what it does instead, and what to do.

    Args:
        opts: The sweep's :class:`perf.sweep.options.SweepOptions`.
        design: ``"rounds"`` or ``"sequential"``: the design the sweep runs.
    """
    defaults = type(opts)(server=opts.server)
    lines = []
    for field, (flag, used_by, instead) in DESIGN_ONLY.items():
        if used_by == design:
            continue
        value, default = (_get(opts, field), _get(defaults, field))
        if value != default:
            lines.append(
                f"{flag} {value} is ignored by the {design} design ({instead}): drop it, or pass --design {used_by} to use it"
            )
    return lines


def _get(opts: Any, field: str) -> Any:
    for part in field.split("."):
        opts = getattr(opts, part)
    return opts


#: What perf_analyzer says when a measurement window saw no request complete.
NO_REQUEST_IN_WINDOW = "please use a larger time window"


def window_hint(error: str, design: str, window_ms: int, slowest_ms: float | None = None) -> str:
    """``error`` followed by the toolkit flag that sets perf_analyzer's window, and a value to try, when
    perf_analyzer said a window saw no request complete ("Please use a larger time window": a flag of its
    own the toolkit sets; trial 13, T13-7: TorchScript visits at p99 130-630 ms in 300 ms windows); else
    ``error`` as it is. The flag is ``design``'s (:data:`DESIGN_ONLY`); the value twice the window, or twice
    ``slowest_ms`` (the variant's highest measured latency, ms) where that is more, in whole 100 ms."""
    if NO_REQUEST_IN_WINDOW not in error.lower():
        return error
    field = "round_window_ms" if design == "rounds" else "measure.measurement_interval_ms"
    flag = DESIGN_ONLY[field][0]
    try_ms = max(2 * window_ms, math.ceil(2 * (slowest_ms or 0.0) / 100.0) * 100)
    slow = f", twice its slowest p99 measured ({slowest_ms:.0f} ms)" if slowest_ms and try_ms > 2 * window_ms else ""
    return f"{error} (no request completed within a {window_ms} ms window, which {flag} sets: try {flag} {try_ms}{slow})"
