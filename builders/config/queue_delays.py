"""The dynamic-batching axis of the variant grid as ``--dynamic-batching`` gives it (``off,100,500``), read by
:func:`parse_queue_delays`; a part it refuses is a usage error of the flag (exit 2, :mod:`core.cli`)."""

from __future__ import annotations

import math

from core.errors import ConfigError
from core.units import OtherUnit, parse_in, plain

#: What to write for dynamic batching on (the tables' "on, 500 µs"), for the words that mean on.
_ON_VALUES, _ON_WORDS = "500 (on, 500 µs: the default delay) or 0 (on, no delay)", ("on", "true", "yes", "enabled")


def parse_queue_delays(text: str) -> tuple[int | None, ...]:
    """The dynamic-batching axis from ``"off,100,500"``: ``off`` (or ``none``) is batching
    off (``None``), a number (µs, with or without ``us``: :func:`core.units.parse_in`, the one
    unit rule) is on with that ``max_queue_delay_microseconds``.

    Raises:
        ConfigError: a part is neither ``off`` nor a whole number of µs >= 0; the message says
            what to write (``on`` -> 500 or 0, ``0.5ms`` -> 500, ``1.5`` -> 2).
    """
    delays: list[int | None] = []
    for part in (p.strip().lower() for p in text.split(",")):
        if part in ("off", "none", ""):
            delays.append(None)
            continue
        if part in _ON_WORDS:
            raise ConfigError(
                f"dynamic batching setting {part!r} needs its queue delay in µs: write {_ON_VALUES}",
                hint="e.g. --dynamic-batching off,500",
                flag="--dynamic-batching",
            )
        try:
            us = parse_in(part, "us", "queue delay")  # 500, 500us; 0.5ms is refused saying 500
        except ValueError as e:
            raise ConfigError(
                str(e)
                if isinstance(e, OtherUnit)
                else f"dynamic batching setting {part!r} is neither 'off' nor a queue delay in µs: write off, or {_ON_VALUES}",
                hint="e.g. --dynamic-batching off,500",
                flag="--dynamic-batching",
            ) from e
        if us < 0 or us != int(us):
            meant = f"write {math.floor(us)} or {math.ceil(us)}; {plain(us)} ms would be {plain(us * 1000)}"
            raise ConfigError(
                f"dynamic batching setting {part!r} is not a whole number of µs >= 0 "
                f"({meant if us >= 0 else 'write 0 or a delay in µs'})",
                hint="e.g. --dynamic-batching off,500",
                flag="--dynamic-batching",
            )
        delays.append(int(us))
    return tuple(dict.fromkeys(delays))
