"""Milliseconds as a flag takes them: one parser for every option in ms (``--latency-budget-ms``
of ``triton-perf sweep``, ``report``, ``export-deployment`` and ``colocate``'s per-model
budgets), so that ``50`` and ``50ms`` are read alike everywhere and another unit is refused
saying what it would be in ms (trial 7: ``--latency-budget-ms 50ms`` got click's "'50ms' is
not a valid float range" while ``--time-budget`` parses units)."""

from __future__ import annotations

import math
import re

#: Units a value in another unit may carry, in ms (the refusal says the value in ms).
_OTHER_UNITS = {"us": 1e-3, "µs": 1e-3, "s": 1e3, "sec": 1e3, "m": 60e3, "min": 60e3, "h": 3600e3}
_NUMBER = r"([-+]?(?:\d+(?:\.\d*)?|\.\d+))"


class NotAboveZero(ValueError):
    """A number of milliseconds that is 0 or below (a well-formed value, not a typo of one)."""


def parse_ms(text: str | float | None, what: str = "latency budget") -> float | None:
    """``"50"``, ``"50ms"``, ``"50 ms"``, ``"12.5"`` (or a number) -> milliseconds; ``None`` stays ``None``.

    Args:
        text: The value as typed (or as saved: a number).
        what: What the value is, for the message.

    Raises:
        ValueError: another unit (``"0.05s"``: the message gives it in ms) or not a number;
            :class:`NotAboveZero` for a number not above 0.
    """
    if text is None:
        return None
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value = float(text)
    else:
        t = str(text).strip().lower()
        m = re.fullmatch(_NUMBER + r"\s*(ms)?", t)
        if m is None:
            other = re.fullmatch(_NUMBER + r"\s*([a-zµ]+)", t)
            if other is not None and other.group(2) in _OTHER_UNITS:
                in_ms = float(other.group(1)) * _OTHER_UNITS[other.group(2)]
                raise ValueError(
                    f"{what} {text!r} is in {other.group(2)}: it is given in milliseconds (write {in_ms:g} or {in_ms:g}ms)"
                )
            raise ValueError(f"{what} {text!r} is not a number of milliseconds (write 50 or 50ms)")
        value = float(m.group(1))
    if not value > 0 or math.isinf(value):
        raise NotAboveZero(f"{what} {text!r} is not above 0 ms (write a number of milliseconds, e.g. 50 or 50ms)")
    return value
