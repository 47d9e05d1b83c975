"""Progress of a long step, drawn by a CLI: one rule for every command.

A step that runs many units of work (verification's points × draws, one model folder after another)
reports ``(what, done, total)``; a long step of one unit (an export, a TensorRT build) reports
``(what, 0, 1)`` when it starts and ``(what, 1, 1)`` when it ends. This module turns that into a
line a user can read while it runs: the count, the time so far and, once a unit is done, an estimate
of the rest (``"torchscript fp16: verifying on cpu 12/25 [█████░░░░░] 0:48, ≈ 0:52 left"``).

The estimate is fitted again after every unit from the measured time per unit (:func:`estimate_left`):
a step whose units differ in size (verification's points run batch 1 first and the largest batch at
the largest axis sizes last) gives each unit's size, and a unit is estimated from the measured units
of its size, or scaled from the nearest sizes measured; trial 16, T16-17: the mean time of the small
units first, times the units left, said a fraction of what the large ones then took on a busy host.

On a terminal the CLI shows the line on its live status, redrawn on every unit and, while a unit
runs, every :data:`REFRESH_S` seconds (:func:`refreshing`), so the time so far moves; off a terminal
(a log, a pipe) it is logged at most once every :data:`LOG_EVERY_S` seconds, also while one unit
runs, and always at the last unit of a counted step, so a log shows a long step moving (trial 16,
T16-17: 1 min 44 s of one silent verification step; the ~45 s of an ONNX dynamo export said nothing).
Library code never prints: it calls the callback, the CLI draws.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

#: Off a terminal, the longest silence between two progress lines of one step (s).
LOG_EVERY_S = 10.0
#: How often the line of a step is drawn again while one of its units runs (s).
REFRESH_S = 1.0
#: The width of the text bar, in characters.
BAR_WIDTH = 10
#: The measured units of one size a unit of that size is estimated from: the latest ones (a busy host's
#: speed drifts; the first run of an artifact also warms it up).
RECENT_UNITS = 3


class Counted(Protocol):
    """The progress callback of a long step (:class:`CountedProgress` is the CLI's).

    ``what`` names the step (a new name, or ``done`` 0, starts one), ``done`` of ``total`` units are
    done, and ``sizes`` (optional, one per unit, in order, any unit: input elements...) say how the
    units differ in cost; without them every unit is taken as one size.
    """

    def __call__(self, what: str, done: int, total: int, sizes: Sequence[float] | None = None) -> None:
        """``done`` of the ``total`` units of ``what`` are done (``sizes``: each unit's size)."""


def clock_text(seconds: float) -> str:
    """``"0:48"``, ``"12:05"``, ``"1:02:03"``: a duration as a clock reads it."""
    s = max(0, round(seconds))
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


#: What the line says in place of the estimate while the units left are larger than every unit timed and only one
#: size was timed: nothing to scale from (trial 25, T25-23: ``≈ 6:13 left`` at 5/25 of a build done 13 s later).
NOT_YET = "time left told once a larger unit is timed"


def progress_text(what: str, done: int, total: int, elapsed_s: float, left_s: float | None = None, *, told: bool = True) -> str:
    """The progress line of a step: ``what``, the count and a text bar (a step of more than one unit),
    the time so far and, once at least one unit is done and some remain, the estimate of the rest:
    ``left_s`` when given (:func:`estimate_left`), else the mean time per unit so far times the units
    left; either may be off when the units differ in cost, so it is said with ``≈``. ``told=False``: no
    estimate yet (:data:`NOT_YET`)."""
    if total <= 1:  # one long unit (an export): what and the time so far
        return f"{what} {clock_text(elapsed_s)}"
    filled = round(BAR_WIDTH * done / total) if total else 0
    bar = "█" * filled + "░" * (BAR_WIDTH - filled)
    text = f"{what} {done}/{total} [{bar}] {clock_text(elapsed_s)}"
    if 0 < done < total and not told:
        text += f", {NOT_YET}"
    elif 0 < done < total:
        left = elapsed_s / done * (total - done) if left_s is None else left_s
        text += f", ≈ {clock_text(left)} left"
    return text


def estimate_left(durations: Sequence[float], sizes: Sequence[float], total: int) -> float | None:
    """The time the units after the ``len(durations)`` measured ones take, fitted from the measured time
    per unit (s).

    A unit whose size was measured is estimated by the mean of the latest :data:`RECENT_UNITS` units of
    that size, the step's first unit left out once another of its size is timed (it warms the artifact up:
    a first run compiles and allocates); a unit of a size not measured yet is interpolated between the
    nearest sizes measured below and above it, extrapolated from the largest by the power of size the two
    largest sizes measured show (``t ∝ size^k``, ``k`` within 0, a fixed cost, and 1, in proportion to size;
    fitted again as each larger size is timed: trial 25, T25-23's ``≈ 6:13 left`` for 13 s scaled a unit's
    whole time, mostly a fixed cost, in proportion to a size 8x larger at each point; trial 16, T16-17's mean of
    the small units said a fraction of the large ones' time), or, smaller than all measured, taken at the smallest
    measured unit's time (fixed costs do not shrink with it). ``None`` while a unit left is larger than every
    unit measured and only one size was measured: nothing to scale from.

    Args:
        durations: The measured time of each unit done, in order (s).
        sizes: Each unit's size, in order (``total`` of them); fewer: the others are of size 1.
        total: The step's units.

    Returns:
        The estimated time of the units left (s); 0 when none is measured or none is left; ``None``: not yet.
    """
    if not durations:
        return 0.0
    size = [float(sizes[i]) if i < len(sizes) and sizes[i] > 0 else 1.0 for i in range(total)]
    by_size: dict[float, list[float]] = {}
    for i, (s, d) in enumerate(zip(size, durations)):
        if i > 0 or size[1 : len(durations)].count(s) == 0:  # the first unit only while it is its size's only one
            by_size.setdefault(s, []).append(d)
    known = {s: sum(ds[-RECENT_UNITS:]) / len(ds[-RECENT_UNITS:]) for s, ds in by_size.items()}
    ordered = sorted(known)
    if len(ordered) == 1 and any(s > ordered[0] for s in size[len(durations) :]):
        return None

    def unit_s(s: float) -> float:
        if s in known:
            return known[s]
        below = [k for k in ordered if k < s]
        above = [k for k in ordered if k > s]
        if below and above:
            lo, hi = below[-1], above[0]
            return known[lo] + (known[hi] - known[lo]) * (s - lo) / (hi - lo)
        if below:  # past the largest: by the power of size the two largest show, between 0 (a fixed cost) and 1
            hi, lo = below[-1], below[-2]
            power = math.log(max(known[hi], 1e-9) / max(known[lo], 1e-9)) / math.log(hi / lo)
            return known[hi] * (s / hi) ** min(1.0, max(0.0, power))
        return known[above[0]]

    return sum(unit_s(s) for s in size[len(durations) :])


class CountedProgress:
    """Shows a step's progress: ``show`` on every call and every :meth:`refresh` (a terminal's live
    status line), ``log`` at most every ``log_every_s`` seconds of a step and at the last unit of a
    counted one (a log or a pipe; the step's own start line says it began). Safe to call from the
    thread that runs the step and the one that refreshes it (:func:`refreshing`).

    Args:
        show: Called with the progress line on every unit and refresh (``None``: nothing is redrawn).
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
        self.started = self.logged = self.last = 0.0
        self.done = self.total = 0
        self.durations: list[float] = []
        self.sizes: list[float] = []
        self._lock = threading.Lock()

    def __call__(self, what: str, done: int, total: int, sizes: Sequence[float] | None = None) -> None:
        """``done`` of the ``total`` units of ``what`` are done; ``done`` 0 (or another ``what``) starts
        the step; ``sizes``: each unit's size (see :class:`Counted`)."""
        with self._lock:
            now = self.clock()
            if what != self.step or done == 0:
                self.step, self.started, self.logged, self.last = what, now, now, now
                self.done, self.durations = 0, []
            if sizes is not None:
                self.sizes = list(sizes)
            elif done == 0:
                self.sizes = []
            if done > self.done:  # the units since the last call took the time since then, shared alike
                self.durations += [(now - self.last) / (done - self.done)] * (done - self.done)
                self.last = now
            self.done, self.total = done, total
            last_unit = done >= total and total > 1  # a one-unit step's end is said by its caller's next line
            self._draw(now, due=done > 0 and (last_unit or now - self.logged >= self.log_every_s))

    def refresh(self) -> None:
        """Draw the running step's line again with the time so far (a unit may run long: an export, a large
        verification point); logged when :attr:`log_every_s` has passed since the last logged line."""
        with self._lock:
            if self.step is None or self.done >= self.total:
                return
            now = self.clock()
            self._draw(now, due=now - self.logged >= self.log_every_s)

    def end(self) -> None:
        """The running step is over (the caller moved on to another line): it is not refreshed again."""
        with self._lock:
            self.step = None

    def left_s(self, now: float) -> float | None:
        """The estimate of the rest of the step at ``now`` (s; :func:`estimate_left`, less the time the unit
        running now has already taken); ``None`` before the first unit is done or while it cannot be told."""
        if not self.durations or self.done >= self.total:
            return None
        rest = estimate_left(self.durations, self.sizes, self.total)
        current = estimate_left(self.durations, self.sizes, self.done + 1)  # the unit running now
        if rest is None:
            return None
        return max(0.0, rest - min(current or 0.0, now - self.last))

    def _draw(self, now: float, due: bool) -> None:
        assert self.step is not None
        left = self.left_s(now)
        told = left is not None or not self.durations or self.done >= self.total
        text = progress_text(self.step, self.done, self.total, now - self.started, left, told=told)
        if self.show is not None:
            self.show(text)
        if self.log is not None and due:
            self.logged = now
            self.log(text)


def on_console(console: Any, status: Any) -> CountedProgress:
    """The progress of a command's long steps on a rich ``console``: redrawn on its live ``status`` line
    (``console.status(...)``), and off a terminal (a log, a pipe) also logged now and then."""
    from rich.markup import escape

    log = None if console.is_terminal else lambda text: console.log(escape(text))
    return CountedProgress(lambda text: status.update(escape(text)), log)


@contextlib.contextmanager
def refreshing(progress: CountedProgress, every_s: float = REFRESH_S) -> Iterator[CountedProgress]:
    """``progress`` refreshed every ``every_s`` seconds by a thread of its own while the block runs
    (:meth:`CountedProgress.refresh`): a long unit's line keeps its time moving, and off a terminal a
    line is logged every :data:`LOG_EVERY_S` seconds of it. The thread stops when the block ends."""
    stop = threading.Event()

    def run() -> None:
        while not stop.wait(every_s):
            progress.refresh()

    thread = threading.Thread(target=run, name="progress-refresh", daemon=True)
    thread.start()
    try:
        yield progress
    finally:
        stop.set()
        thread.join()
