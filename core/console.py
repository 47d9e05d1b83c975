"""The console every CLI draws on: log lines, printed lines and tables (rich), made in one place.

:func:`console` makes every rich console a command prints through, and :func:`setup_logging`
the one ``RichHandler`` the library's logging goes to; :func:`print_table` draws every table.
The rules they keep, for output read in terminals and in CI logs alike:

- On a terminal, rich fits the terminal (``COLUMNS`` where it is set).
- Anywhere else (stdout or stderr redirected to a file, ``| tee``, a CI log) a line is never
  wrapped: a log line, its status tag (``[host busy]``) and a printed line stay on one line, so
  ``grep`` finds them (rich alone wraps at 80 columns there). Tables are drawn whole
  (:func:`print_table`).
- A reader that closes the pipe (``| head``) ends the command quietly: rich's own reaction (exit 1)
  becomes a :class:`BrokenPipeError`, which :func:`core.cli.run_cli` ends with exit 0.
- An interrupt (Ctrl-C) is said by the command's own lines only (:func:`quiet_gevent_interrupts`).
"""

from __future__ import annotations

import functools
import logging
import os
import signal
import sys
import threading
import time
from types import FrameType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

#: Width :func:`print_table` draws a table at off a terminal when ``COLUMNS`` is not set
#: (characters): wider tables wrap their cells, nothing is cut. The width of ``-h``.
PLAIN_WIDTH = 120

#: The width of a console that does not write to a terminal (characters): wide enough that no
#: line is ever wrapped there (log lines are drawn at their own width, not padded to this).
UNWRAPPED_WIDTH = 100_000

#: The time stamp of every log line a command prints (rich's ``[HH:MM:SS]``).
LOG_TIME_FORMAT = "[%X]"

_verbosity = {"level": 0}


@functools.cache
def _console_class() -> type[Console]:
    """The rich console class of every console made here (rich is imported only when one is)."""
    from rich.console import Console

    class ToolkitConsole(Console):
        """A rich console whose closed pipe raises :class:`BrokenPipeError` (rich exits 1)."""

        def on_broken_pipe(self) -> None:
            """The reader closed the pipe: print nothing more, and let the command end quietly.

            Raises:
                BrokenPipeError: always (:func:`core.cli.run_cli` exits 0 on it).
            """
            self.quiet = True
            raise BrokenPipeError("the reader closed the output pipe")

    return ToolkitConsole


class _OneLine:
    """A rich log renderer (``LogRender``) whose lines are drawn at their own width, not
    stretched to the console's: with :data:`UNWRAPPED_WIDTH` a log line is then never wrapped
    and never padded."""

    def __init__(self, render: Any):
        self.render = render

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        table = self.render(*args, **kwargs)
        table.expand = False
        return table


def unwrapped(c: Console, handler: Any = None) -> Console:
    """``c`` (and the log handler on it) set never to wrap a line when it does not write to a
    terminal; as it was on a terminal."""
    if not c.is_terminal:
        c.width = UNWRAPPED_WIDTH
        c._log_render = _OneLine(c._log_render)  # type: ignore[assignment]  # rich's LogRender expands each line
        if handler is not None:
            handler._log_render = _OneLine(handler._log_render)
    return c


def console(stderr: bool = True, **kwargs: Any) -> Console:
    """The rich console a command draws on (module rules): log lines stamped
    :data:`LOG_TIME_FORMAT`, with the source file:line only at ``-v`` or more; off a terminal
    no line is wrapped. Every console a CLI prints through is made here.

    Args:
        stderr: Write to stderr (default; progress and log lines), else stdout (tables, results).
        **kwargs: More ``rich.console.Console`` arguments (``file=``, ``width=``: a given
            width is kept, wrapping there).
    """
    c = _console_class()(stderr=stderr, log_path=_verbosity["level"] > 0, log_time_format=LOG_TIME_FORMAT, **kwargs)
    return c if "width" in kwargs else unwrapped(c)


def setup_logging(verbose: int) -> None:
    """Route the library's logging to :func:`console`: warnings at 0, info at 1, debug at 2+."""
    from rich.logging import RichHandler

    _verbosity["level"] = verbose
    level = logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG
    out = console()
    handler = RichHandler(console=out, show_path=verbose > 0, log_time_format=LOG_TIME_FORMAT, markup=False)
    unwrapped(out, handler)
    logging.basicConfig(level=level, format="%(message)s", handlers=[handler], force=True)


def print_table(table: Any, out: Console | None = None) -> None:
    """Print a rich table whole, at the width the reader has.

    On a terminal rich fits the terminal (``COLUMNS`` where it is set); a table too wide for it
    wraps every column, those otherwise kept on one line too, since rich would crop them and drop
    the last columns (a narrow terminal lost the baseline table's numbers). Anywhere else (a CI
    log, ``| tee``, a file) the width is ``COLUMNS`` where it is set, else :data:`PLAIN_WIDTH`
    (rich alone would assume 80 and cut cells). Cells of text wrap to fit it, and a word
    longer than its column folds onto the next line: no cell is ever cut to "OUTPU…". There,
    a column whose every cell is one word (names, files, numbers) is kept whole on one line,
    and a table whose narrowest form is wider than that width (those columns need more) is
    drawn at that narrowest width instead: every column kept on one line at its full width and
    every other column wide enough for its longest word (never squeezed to nothing, as at
    ``COLUMNS=60`` the summary's note column was), so every name and number is there to grep.

    Args:
        table: A ``rich.table.Table`` (or any rich renderable).
        out: Where to print (default: :func:`console` on stdout).
    """
    from rich.measure import Measurement
    from rich.table import Table

    out = out or console(stderr=False)
    columns = table.columns if isinstance(table, Table) else []
    for column in columns:
        if column.overflow == "ellipsis":  # rich's default: cut; fold keeps every character
            column.overflow = "fold"
        if not out.is_terminal and all(_one_word(c) for c in column.cells):
            column.no_wrap = True  # names, files and numbers: whole on one line, to grep
    options = out.options.update_width(10_000)
    need = Measurement.get(out, options, table)
    if out.is_terminal:  # rich fits the terminal (COLUMNS where set)
        if need.minimum > out.width:  # rich would crop the columns kept on one line, and drop the last ones
            for column in columns:
                column.no_wrap = False
        out.print(table)
        return
    narrowest = need.minimum
    for column in columns:  # rich draws a column kept on one line at its full width, taken from the others
        if column.no_wrap:
            m = table._measure_column(out, options, column)
            narrowest += m.maximum - m.minimum
    width = plain_width(narrowest, max(narrowest, need.maximum))
    if isinstance(table, Table):
        _fit_words(table, out, options, width)
    plain = _console_class()(file=out.file, width=width, no_color=out.no_color)
    plain.print(table)


def _fit_words(table: Any, out: Console, options: Any, width: int) -> None:
    """Narrow the widest wrapping columns of ``table`` first, as rich does, but never below their
    longest word: each column gets ``min(its full width, max(a common cap, its longest word))``,
    the cap the largest that fits ``width``. Rich alone narrowed columns below their words, so a
    path or a flag was folded mid-word (``--load-artifac``/``ts`` at ``COLUMNS=60``) while other
    columns kept room to spare. A table that fits at full width, or whose narrowest form does not
    fit, is left to rich."""
    columns = table.columns
    ranges = [table._measure_column(out, options, c) for c in columns]  # padding included
    wrap = [i for i, c in enumerate(columns) if not c.no_wrap and c.width is None]
    room = width - table._extra_width - sum(r.maximum for i, r in enumerate(ranges) if i not in wrap)

    def used(cap: int) -> int:
        return sum(min(ranges[i].maximum, max(cap, ranges[i].minimum)) for i in wrap)

    if not wrap or used(0) > room or used(max(ranges[i].maximum for i in wrap)) <= room:
        return
    cap = max(c for c in range(max(ranges[i].maximum for i in wrap) + 1) if used(c) <= room)
    for i in wrap:
        columns[i].width = min(ranges[i].maximum, max(cap, ranges[i].minimum)) - table._get_padding_width(i)


def _one_word(cell: Any) -> bool:
    """Whether a table cell is one word (a name, a file, a number): no whitespace in its text."""
    from rich.text import Text

    text = cell.plain if isinstance(cell, Text) else cell if isinstance(cell, str) else None
    return text is not None and not any(ch.isspace() for ch in text.strip())


def plain_width(narrowest: int, widest: int) -> int:
    """The width :func:`print_table` draws a table at off a terminal (characters): ``COLUMNS``
    where it is set, else :data:`PLAIN_WIDTH`; never wider than the table needs, never narrower
    than its narrowest form (its unbreakable columns side by side).

    Args:
        narrowest: The table's narrowest width (characters).
        widest: Its width with no cell wrapped (characters).
    """
    columns = os.environ.get("COLUMNS", "")
    target = int(columns) if columns.isdigit() and int(columns) > 0 else PLAIN_WIDTH
    return max(min(target, widest), narrowest)


_IN_CLI = {"process": False}  # set by quiet_gevent_interrupts, i.e. by core.cli.run_cli


def quiet_gevent_interrupts() -> None:
    """Let a Ctrl-C that lands inside gevent's event loop reach the command without gevent printing it.

    tritonclient.http waits for every answer in gevent's event loop (geventhttpclient): a SIGINT
    that arrives then (a load request, a readiness probe, a cold start's first requests) is raised
    in gevent's hub greenlet, whose error handler prints the exception's name and a UTC ISO time
    stamp to stderr (``gevent.hub.Hub.print_exception``: ``KeyboardInterrupt`` /
    ``2026-12-02T11:18:57Z``) before it hands the interrupt on to the command (trial 7, F10: two
    lines that read as a crash, in a second time-stamp style). Here ``KeyboardInterrupt`` joins the
    hub's ``NOT_ERROR`` (not printed) and stays one of its ``SYSTEM_ERROR``: still raised where the
    command waits, which says what happened in its own lines. Every CLI calls it
    (:func:`core.cli.run_cli`); nothing is done where gevent is not installed.
    """
    _IN_CLI["process"] = True  # ignore_further_interrupts acts in a CLI process only, not in a test's
    if sys.unraisablehook is not _quiet_half_built_clients:
        _quiet_half_built_clients.__dict__["before"] = sys.unraisablehook
        sys.unraisablehook = _quiet_half_built_clients
    try:
        from gevent.hub import Hub
    except ImportError:
        return
    if not issubclass(KeyboardInterrupt, Hub.NOT_ERROR):
        Hub.NOT_ERROR = (*Hub.NOT_ERROR, KeyboardInterrupt)


def _quiet_half_built_clients(unraisable: Any) -> None:
    """``sys.unraisablehook`` of every CLI: drop the one known destructor error of a client object a
    Ctrl-C left half built, hand every other one to the hook it replaced.

    A Ctrl-C that lands while geventhttpclient builds a response (tritonclient.http's answer to a
    request in flight) leaves an object without ``_sock``, whose ``__del__`` then raises
    ``AttributeError`` when it is collected, at the latest at the interpreter's exit; Python prints
    that as "Exception ignored in ..." with a traceback, after the command's own lines said how it
    stopped (CI, 2026-12-04: ``clients infer`` at concurrency 1). Only an ``AttributeError`` raised
    by a ``__del__`` of a geventhttpclient class is dropped (logged at debug level). A stop raised inside
    a finalizer is delivered again (:func:`_stop_again`), never printed.
    """
    if isinstance(unraisable.exc_value, KeyboardInterrupt):  # a stop a finalizer swallowed: not lost (F24)
        if not _STOP["ended"]:
            _stop_again(unraisable.exc_value)
        return
    obj = getattr(unraisable, "object", None)
    owner = getattr(obj, "__module__", None) or type(obj).__module__
    if (
        isinstance(unraisable.exc_value, AttributeError)
        and getattr(obj, "__name__", "") == "__del__"
        and str(owner).startswith("geventhttpclient")
    ):
        logging.getLogger(__name__).debug("a half-built %s dropped after an interrupt: %s", owner, unraisable.exc_value)
        return
    before = _quiet_half_built_clients.__dict__.get("before") or sys.__unraisablehook__
    before(unraisable)


def _stop_again(stop: KeyboardInterrupt) -> None:
    """Deliver again a stop Python swallowed: one that came while a finalizer or weakref callback ran (an import's
    module lock is dropped by one: break-it F24's traceback) raised ``KeyboardInterrupt`` there, which Python can
    only print ("Exception ignored in ..."), and the command went on as if nothing happened. A thread sends it to
    the main thread again once this hook has returned: a real signal (``signal.pthread_kill``), which also ends a wait
    the main thread is blocked in (``_thread.interrupt_main`` only marks it: a wait on a child's output went on)."""
    sig = signal.Signals[str(stop)] if str(stop) in signal.Signals.__members__ else signal.SIGINT
    main = threading.main_thread().ident

    def later() -> None:
        time.sleep(0.05)  # this hook has returned: raised inside it, the stop would be swallowed again
        if main is not None and callable(signal.getsignal(sig)):  # a stop ignored since (a second one) stays so
            signal.pthread_kill(main, sig)

    logging.getLogger(__name__).debug("a stop (%s) came inside a finalizer: delivered again", sig.name)
    threading.Thread(target=later, name="stop-again", daemon=True).start()


def ignore_further_interrupts() -> None:
    """Ignore any further Ctrl-C: called where a command, interrupted once, says and files what it
    kept and exits 130. A second Ctrl-C there (re-check of trial 17: 0.4 s after the first) cut that
    short and ended the process by SIGINT, losing what the first one kept. Only in a process a CLI
    runs in (:func:`core.cli.run_cli`: a command invoked in a test's own process leaves its handler
    alone) and in the main thread (no signal handlers elsewhere)."""
    if _IN_CLI["process"] and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        ignore_further_stops()  # a second SIGTERM/SIGHUP too (trial 22, F-sigterm)


# SIGTERM and SIGHUP stop every command the way Ctrl-C does (trial 22, F-sigterm).
#
# A sweep killed with ``kill -TERM`` (what a CI timeout, ``docker stop`` or a closed tmux pane sends) ended
# with exit 143 and not one line: Python's default action for SIGTERM ends the process where it is, so none of
# the "interrupted: it holds ...; continue with ..." words a Ctrl-C prints were said (the run's results were
# saved by a ``finally``, without a word). Here, in a CLI process (:func:`catch_stops`, called by
# :func:`core.cli.run_cli`), SIGTERM and SIGHUP raise ``KeyboardInterrupt`` in the main thread: every
# command's Ctrl-C handler (sweep, colocate, coldstart, baseline, clients check/infer, builders build and
# validate) then keeps and says what it did, naming the signal (:func:`stop_name`), and the command exits
# 128 + the signal's number (143 for SIGTERM, 129 for SIGHUP; :func:`stop_exit_code`), as a shell reports a
# process that signal ended; Ctrl-C stays 130. A signal its parent set to be ignored (``nohup``: SIGHUP) stays
# ignored.

#: The signals handled as Ctrl-C is, besides SIGINT itself.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)

_STOP: dict[str, int | None] = {"signal": None, "ended": 0}  # the first stop signal that came (None: none, or Ctrl-C)


def _on_stop(signum: int, frame: FrameType | None) -> None:
    """The handler of :data:`STOP_SIGNALS`: remember the first one, then stop as a Ctrl-C does; ignored once
    the command's body has returned (:func:`body_ended`)."""
    if _STOP["ended"]:
        return
    if _STOP["signal"] is None:
        _STOP["signal"] = signum
    raise KeyboardInterrupt(signal.Signals(signum).name)


def catch_stops() -> None:
    """Make SIGTERM and SIGHUP raise ``KeyboardInterrupt`` in the main thread (where Python runs signal
    handlers), unless one is ignored already (``nohup``). Called once by every CLI (:func:`core.cli.run_cli`);
    nothing is done outside the main thread."""
    if threading.current_thread() is not threading.main_thread():
        return
    _STOP["ended"] = 0
    for sig in STOP_SIGNALS:
        if signal.getsignal(sig) == signal.SIG_DFL:
            signal.signal(sig, _on_stop)


def body_ended() -> None:
    """Ignore a Ctrl-C, SIGTERM or SIGHUP that comes once the command's body has returned (:func:`core.cli.run_cli`):
    its work is done and its lines say how it ended. One that landed then (break-it F24: a build that had
    written its last line) raised ``KeyboardInterrupt`` where nothing handles it, during the interpreter's
    exit: Python printed "Exception ignored in ... KeyboardInterrupt: SIGTERM" with a traceback. In a CLI's
    process they are ignored from here: Python puts back the default action of a signal it handles as it exits,
    and a Ctrl-C that came then (while torch's modules were torn down) ended a complete build with exit 130 and
    not a line (trial 28, T28-12)."""
    _STOP["ended"] = 1
    if _IN_CLI["process"] and threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, *STOP_SIGNALS):
            if callable(signal.getsignal(sig)):
                signal.signal(sig, signal.SIG_IGN)


def ignore_further_stops() -> None:
    """Ignore any further SIGTERM/SIGHUP (as :func:`ignore_further_interrupts` does Ctrl-C): a
    second one (``docker stop`` and a CI runner may send it again) cut short the words of what was kept.
    Only where :func:`catch_stops` set the handler, in the main thread."""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in STOP_SIGNALS:
        if signal.getsignal(sig) is _on_stop:
            signal.signal(sig, signal.SIG_IGN)


def stop_name() -> str:
    """What stopped the command, for its words: ``"Ctrl-C"``, or the signal's name (``"SIGTERM"``)."""
    sig = _STOP["signal"]
    return "Ctrl-C" if sig is None else signal.Signals(sig).name


def interrupted_words(name: str | None = None) -> str:
    """How every command names its stop, on the console and in its records (break-it F4: a sweep's
    SIGTERM said "interrupted:", its report "interrupted (Ctrl-C)"): ``"interrupted (SIGTERM)"``, from
    ``name`` (one of :data:`STOP_NAMES`) or, by default, what stopped this command (:func:`stop_name`)."""
    return f"interrupted ({name or stop_name()})"


#: Every name :func:`stop_name` gives.
STOP_NAMES = ("Ctrl-C", *(s.name for s in STOP_SIGNALS))


def stop_exit_code(code: int) -> int:
    """The exit code of a command that ends with ``code``: an interrupted one (130) ends with 128 + the
    number of the signal that stopped it (143: SIGTERM; 129: SIGHUP); any other code is kept."""
    sig = _STOP["signal"]
    return 128 + sig if code == 130 and sig is not None else code


def reset_stop() -> None:
    """Forget a stop signal (for tests that run several commands in one process)."""
    _STOP["signal"], _STOP["ended"] = None, 0
