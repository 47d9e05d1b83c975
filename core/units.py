"""Milliseconds as a flag takes them: one parser for every option in ms (``--latency-budget-ms``
of ``triton-perf sweep``, ``report``, ``export-deployment`` and ``colocate``'s per-model
budgets), so that ``50`` and ``50ms`` are read alike everywhere and another unit is refused
saying what it would be in ms (trial 7: ``--latency-budget-ms 50ms`` got click's "'50ms' is
not a valid float range" while ``--time-budget`` parses units). And what a throughput in infer/s counts
(:data:`INFER_PER_S_MEANS`, :func:`throughput_text`): one rule for every line and table that shows one."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import click

#: Every time unit a value may be typed in, in µs (a value in another unit than its flag's is
#: refused, saying what it is in the flag's unit).
_US = {"us": 1.0, "µs": 1.0, "μs": 1.0, "ms": 1e3, "s": 1e6, "sec": 1e6, "m": 60e6, "min": 60e6, "h": 3600e6}
_NUMBER = r"([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?)"


class NotAboveZero(ValueError):
    """A number of milliseconds that is 0 or below (a well-formed value, not a typo of one)."""


class OtherUnit(ValueError):
    """A value typed in another time unit than its flag's (the message gives it in the flag's unit)."""


def plain(x: float) -> str:
    """A number as a user would type it: no exponent, no trailing zeros (``3000000``, ``0.5``)."""
    return f"{x:.6f}".rstrip("0").rstrip(".") if x != int(x) else str(int(x))


def parse_in(text: str, unit: str, what: str) -> float:
    """``"500"`` or ``"500<unit>"`` (spaces allowed) -> the number, in ``unit`` (``"ms"``, ``"us"``).

    Raises:
        ValueError: not a number; :class:`OtherUnit` (a ValueError) for a value in another time
            unit (the message gives it in ``unit``).
    """
    t = str(text).strip().lower()
    m = re.fullmatch(_NUMBER + r"\s*([a-zµμ]*)", t)
    if m is None or (m.group(2) and m.group(2) not in _US):
        raise ValueError(f"{what} {text!r} is not a number of {_NAMES[unit]} (write 50 or 50{unit})")
    value = float(m.group(1))
    if m.group(2) and _US[m.group(2)] != _US[unit]:
        mine = plain(value * _US[m.group(2)] / _US[unit])
        raise OtherUnit(f"{what} {text!r} is in {m.group(2)}: it is given in {_NAMES[unit]} (write {mine} or {mine}{unit})")
    return value


_NAMES = {"ms": "milliseconds", "us": "microseconds", "s": "seconds"}


class Duration(click.ParamType):
    """The click type of every flag of a duration in one unit (``--round-window``, ``--measurement-interval``,
    ``--metrics-interval-ms``: ms; ``--start-timeout``: s): ``300`` and ``300ms`` alike, another time unit
    refused saying what it is in the flag's (:func:`parse_in`, the rule of ``--latency-budget-ms`` too;
    trial 30, F15: ``--round-window 300ms`` was "not a valid integer range" beside an accepted
    ``--latency-budget-ms 50ms``). ``--time-budget``, a budget typed in minutes or hours, has its own
    (:func:`perf.search.budget.parse_duration`).

    Args:
        unit: ``"ms"`` or ``"s"``.
        integer: The value is a whole number of the unit.
        low: The smallest value, the field's ``ge`` (:meth:`bounded` takes it from the field).
        high: The largest, its ``le``.
    """

    def __init__(self, unit: str, integer: bool = False, low: float | None = None, high: float | None = None):
        self.unit, self.integer, self.low, self.high = unit, integer, low, high
        self.name = unit.upper()

    def bounded(self, constraints: Mapping[str, Any]) -> Duration:
        """This type with the field's ``ge``/``le`` (``gt``/``lt`` taken as bounds too) where it gives none."""
        low = self.low if self.low is not None else constraints.get("ge", constraints.get("gt"))
        high = self.high if self.high is not None else constraints.get("le", constraints.get("lt"))
        return Duration(self.unit, self.integer, low, high)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The number in the flag's unit (an int for a whole-number flag); a default (a number) as it is."""
        if value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)):
            return value
        what = param.opts[0] if param is not None and param.opts else f"a duration in {self.unit}"
        try:
            number = parse_in(str(value), self.unit, what)
        except ValueError as e:
            self.fail(str(e), param, ctx)
        if self.integer and number != int(number):
            self.fail(
                f"{what} {value!r} is not a whole number of {_NAMES[self.unit]} (write e.g. {round(number)}{self.unit})",
                param,
                ctx,
            )
        for bound, ok in ((self.low, lambda b: number >= b), (self.high, lambda b: number <= b)):
            if bound is not None and not ok(bound):
                within = f"{plain(self.low) if self.low is not None else ''}..{plain(self.high) if self.high is not None else ''}"
                self.fail(f"{what} {value!r} is outside {within} {_NAMES[self.unit]}", param, ctx)
        return int(number) if self.integer else number


def parse_ms(text: str | float | None, what: str = "latency budget") -> float | None:
    """``"50"``, ``"50ms"``, ``"50 ms"``, ``"12.5"`` (or a number) -> milliseconds; ``None`` stays ``None``.

    Args:
        text: The value as typed (or as saved: a number).
        what: What the value is, for the message.

    Raises:
        ValueError: another unit (``"0.05s"``: the message gives it in ms) or not a number;
            :class:`NotAboveZero` for a number not above 0 (or infinite).
    """
    if text is None:
        return None
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value = float(text)
    else:
        value = parse_in(str(text), "ms", what)
    if not value > 0 or math.isinf(value):
        raise NotAboveZero(f"{what} {text!r} is not above 0 ms (write a number of milliseconds, e.g. 50 or 50ms)")
    return value


#: What a throughput in infer/s counts: perf_analyzer's convention, the one definition every table, legend and line
#: says where a level's client batch is above 1 (trial 23, T23-15: a sweep at batch 4 said "11,777.3 infer/s"
#: everywhere and never that it counts rows, not requests; ``clients infer`` said both).
INFER_PER_S_MEANS = "infer/s counts inferences (rows), as perf_analyzer does: requests/s × the client batch size"


#: The smallest p-value written as a number; below it a p-value is said as ``"p < 0.001"`` (:func:`p_text`).
P_FLOOR = 0.001


def p_number(p: float) -> str:
    """A p-value as a number, the one format of every p the toolkit shows (a table cell, ``"p 0.031"``):
    ``"<0.001"`` below :data:`P_FLOOR`, else 2 significant digits (``"0.25"``, ``"0.0078"``, ``"1"``), never in
    scientific notation (s21o: report.md said ``"p = 1.4e-05"``). Two digits tell a p from the rules' thresholds
    (0.05, 0.005), which 3 decimals would not (``0.0049`` and ``0.0051`` both ``"0.005"``)."""
    return f"<{P_FLOOR:g}" if p < P_FLOOR else f"{p:.2g}"


def p_text(p: float) -> str:
    """A p-value in words (:func:`p_number`): ``"p < 0.001"``, ``"p = 0.25"``."""
    return f"p < {P_FLOOR:g}" if p < P_FLOOR else f"p = {p_number(p)}"


def thousands(value: float) -> str:
    """``6312.66`` -> ``"6,312.7"``: a throughput as the toolkit's tables print it."""
    return f"{value:,.1f}"


def requests_per_s(infer_per_s: float, batch_size: int) -> float:
    """The requests per second behind ``infer_per_s`` at client batch size ``batch_size`` (:data:`INFER_PER_S_MEANS`)."""
    return infer_per_s / max(batch_size, 1)


def throughput_text(infer_per_s: float, batch_size: int, number: Callable[[float], str] = thousands) -> str:
    """``"6,312.7 infer/s (789.1 requests/s of batch 8)"``; at batch 1, where they are one number, ``"6,312.7 infer/s"``:
    the one rule for a throughput a user sizes a service by (``clients infer``, the sweep's console and the
    Recommendation); ``number`` formats both numbers."""
    text = f"{number(infer_per_s)} infer/s"
    if batch_size > 1:
        text += f" ({number(requests_per_s(infer_per_s, batch_size))} requests/s of batch {batch_size})"
    return text


def infer_per_s_legend(batch_sizes: Iterable[int]) -> str | None:
    """:data:`INFER_PER_S_MEANS`, for a table's or section's legend whose levels include a client batch above 1
    (``batch_sizes``), else ``None`` (at batch 1 an infer is a request)."""
    return INFER_PER_S_MEANS if any(b > 1 for b in batch_sizes) else None


def throughput_label(batch_sizes: Iterable[int]) -> str:
    """A plot's throughput axis: ``"throughput (infer/s)"``, and at a client batch above 1 (``batch_sizes``) what it
    counts, ``"throughput (infer/s = requests/s × client batch)"`` (:data:`INFER_PER_S_MEANS`)."""
    return "throughput (infer/s = requests/s × client batch)" if any(b > 1 for b in batch_sizes) else "throughput (infer/s)"


#: CPU % in every output (console, report, plots): one rule, two bases, each said beside its number (trial 23,
#: T23-13: the report's "host CPU (%)" column, 0-100 of the whole host, beside the flags' "92 %" of a single core).
#: A process's CPU (other processes', as the host-busy flag reads them) is in % of ONE core (100 % = one core busy,
#: 200 % two); the host's CPU (Triton's ``nv_cpu_utilization``, every process) in % of ALL its cores (100 % = every
#: core busy).
ONE_CORE = "% of one core"
ALL_CORES = "% of all cores"
