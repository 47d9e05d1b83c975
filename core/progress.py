"""Progress of a long step of counted work, drawn by a CLI: one rule for every command.

A step that runs many units of work (verification's points × draws, one model folder after another)
reports ``(what, done, total)``; this module turns that into a line a user can read while it runs:
the count, the time so far and, once a unit is done, an estimate of the rest from the mean time per
unit (``"torchscript fp16: verifying on cpu 12/25 [█████░░░░░] 0:48, ≈ 0:52 left"``). On a terminal
the CLI shows the line on its live status (redrawn on every unit); off a terminal (a log, a pipe)
it is logged at most once every :data:`LOG_EVERY_S` seconds, and always at the last unit, so a
log shows the step moving without a line per unit (trial 16, T16-17: 1 min 44 s of one silent
verification step). Library code never prints: it calls the callback, the CLI draws.
"""

from __future__ import annotations

import time
from collections.abc import Callable

#: Off a terminal, the longest silence between two progress lines of one step (s).
LOG_EVERY_S = 10.0
#: The width of the text bar, in characters.
BAR_WIDTH = 10


def clock_text(seconds: float) -> str:
    """``"0:48"``, ``"12:05"``, ``"1:02:03"``: a duration as a clock reads it."""
    s = max(0, round(seconds))
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def progress_text(what: str, done: int, total: int, elapsed_s: float) -> str:
    """The progress line of a counted step: ``what``, the count, a text bar, the time so far and,
    once at least one unit is done and some remain, the estimate of the rest (the mean time per
    unit so far times the units left; the units may differ in cost, so it is said with ``≈``)."""
    filled = round(BAR_WIDTH * done / total) if total else 0
    bar = "█" * filled + "░" * (BAR_WIDTH - filled)
    text = f"{what} {done}/{total} [{bar}] {clock_text(elapsed_s)}"
    if 0 < done < total:
        text += f", ≈ {clock_text(elapsed_s / done * (total - done))} left"
    return text


class CountedProgress:
    """Shows a counted step's progress: ``show`` on every call (a terminal's live status line),
    ``log`` at most every ``log_every_s`` seconds of a step and at its last unit (a log or a pipe;
    the step's own start line says it began).

    Args:
        show: Called with the progress line on every unit (``None``: nothing is redrawn).
        log: Called with the progress line when it is due (``None``: nothing is logged).
        log_every_s: The longest silence between two logged lines of one step (s).
        clock: Seconds, monotonic (a test passes its own).
    """

    def __init__(
        self,
        show: Callable[[str], None] | None,
        log: Callable[[str], None] | None,
        log_every_s: float = LOG_EVERY_S,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.show, self.log, self.log_every_s, self.clock = show, log, log_every_s, clock
        self.step: str | None = None
        self.started = self.logged = 0.0

    def __call__(self, what: str, done: int, total: int) -> None:
        """One unit of ``what`` is done (``done`` of ``total``); ``done`` 0 starts the step."""
        now = self.clock()
        if what != self.step or done == 0:
            self.step, self.started, self.logged = what, now, now
        text = progress_text(what, done, total, now - self.started)
        if self.show is not None:
            self.show(text)
        due = done > 0 and (done >= total or now - self.logged >= self.log_every_s)
        if self.log is not None and due:
            self.logged = now
            self.log(text)
