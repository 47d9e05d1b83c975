"""Child processes that never outlive the toolkit (Linux).

- :func:`die_with_parent`: a child is SIGKILLed when its launcher dies (``PR_SET_PDEATHSIG``).
  Every process the toolkit starts and waits for uses it (tritonserver, perf_analyzer, the
  separate processes that load a model file).
- :class:`ProcessGroup`: what a server started goes with it. ``PR_SET_PDEATHSIG`` is not
  inherited across ``fork``, so it ties the server to the launcher but not the processes the
  server starts. tritonserver's python backend starts one ``triton_python_backend_stub`` per
  model instance (``fork`` + ``bash -c "exec stub ..."``: python_backend ``src/stub_launcher.cc``),
  in the server's process group. A stub is meant to exit when its server dies (a thread checks
  ``kill(parent_pid, 0)`` every 300 ms: python_backend ``src/pb_stub.cc``), but one whose server
  died while the stub waited for it (after sending a response, holding the GIL) logs
  "Non-graceful termination detected" and then deadlocks in its own exit (``~Stub`` waits for the
  GIL): it sleeps for ever and ignores SIGINT and SIGTERM (seen with the bundled Triton 2.51).
  A server started in its own session heads a process group that holds its stubs and whatever
  else it starts; :meth:`ProcessGroup.close` SIGKILLs what is left of the group once the server
  has exited, and a guardian process (:func:`start_guardian`) does the same when the launcher
  dies without running any code (SIGKILL).
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

log = logging.getLogger(__name__)

#: ``prctl(2)`` option that sets the signal a process gets when its parent dies.
_PR_SET_PDEATHSIG = 1

#: Run by a process group's guardian: wait until the launcher closes our stdin (it exited or was
#: killed), then SIGKILL the group (the server, if still there, and everything it started).
_GROUP_GUARDIAN = (
    "import os, signal, sys\n"
    "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
    "sys.stdin.buffer.read()\n"
    "try:\n"
    "    os.killpg(int(sys.argv[1]), signal.SIGKILL)\n"
    "except OSError:\n"
    "    pass\n"
)


def die_with_parent(parent_pid: int) -> Callable[[], None]:
    """A ``preexec_fn``: SIGKILL this child when the launcher dies (Linux ``PR_SET_PDEATHSIG``).

    The signal follows the death of the launcher *thread* that started the child (prctl(2)),
    so start a child from a thread that lives as long as the child (the one that waits for it).
    A launcher that died between fork and prctl is caught by comparing the parent's pid.
    ``prctl`` is looked up here, in the launcher, so the child between fork and exec only calls it.

    SIGINT and SIGTERM are set back to their default action in the child: a launcher started
    in the background of a non-interactive shell (``cmd &``, CI runners, ``nohup``) has
    SIGINT ignored, and an ignored signal stays ignored across exec, so a graceful stop by
    SIGINT (:meth:`clients.server.TritonServer.stop`) would only end in a kill after the exit
    timeout. tritonserver and perf_analyzer install their own handlers over the defaults.

    Args:
        parent_pid: The launcher's pid (``os.getpid()``).
    """
    prctl: Callable[..., int] | None = None
    with contextlib.suppress(OSError, AttributeError):
        prctl = ctypes.CDLL(None, use_errno=True).prctl

    def preexec() -> None:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if prctl is not None:
            prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))
        if os.getppid() != parent_pid:
            os._exit(1)

    return preexec


def interrupt_then_kill(proc: subprocess.Popen, timeout_s: float, name: str, expected: str | None = None) -> None:
    """Stop ``proc`` gracefully if it still runs: SIGINT, wait up to ``timeout_s`` (s), then SIGKILL.

    A Ctrl-C (or SIGTERM, SIGHUP) during the wait kills ``proc`` at once (:func:`held_stops`): the
    stop is held until ``proc`` is gone, then raised, unless the command is already ending (the
    second Ctrl-C of a stop, re-check of trial 17: two Ctrl-C 0.4 s apart in ``clients check`` lost
    its rows). The first stop of a command that was stopping its server as it ended was swallowed here
    and the command went on as if nothing happened (break-it F24's second case).

    Args:
        proc: The child.
        timeout_s: How long it may take to exit after SIGINT.
        name: What it is, for the log (``"tritonserver"``).
        expected: Why it is known not to stop by itself (said with the kill, an info, not a warning); ``None``:
            a kill is a surprise, warned of.
    """
    if proc.poll() is not None:
        return
    log.info("stopping %s (pid %d)", name, proc.pid)

    def now() -> None:
        log.warning("a stop came while %s (pid %d) stopped: killing it now, without waiting for its own stop", name, proc.pid)
        with contextlib.suppress(OSError):
            proc.kill()

    with held_stops(on_stop=now):
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            if expected:
                log.info("%s did not stop within %.0f s, as expected: %s; killing it", name, timeout_s, expected)
            else:
                log.warning("%s did not stop within %.0f s; killing it", name, timeout_s)
            proc.kill()
            proc.wait()
        except KeyboardInterrupt:  # not held (raised by other means than a signal's handler): it goes on, proc ended
            now()
            proc.wait()
            raise


#: The clean-ups running now (:func:`held_stops`), innermost last: each one's ``on_stop``; and the stops held.
_HELD: dict[str, list[Any]] = {"on_stop": [], "came": []}


def _hold(signum: int, frame: FrameType | None) -> None:
    """The handler of every stop signal while :func:`held_stops` runs: note it; the first calls each ``on_stop``."""
    _HELD["came"].append(signum)
    if len(_HELD["came"]) == 1:
        for on_stop in reversed(_HELD["on_stop"]):
            on_stop()


@contextlib.contextmanager
def held_stops(on_stop: Callable[[], None] | None = None, ending: bool = False) -> Iterator[None]:
    """Run a clean-up whole (stopping a server, the last save of a record): a Ctrl-C, SIGTERM or SIGHUP
    that comes inside is held until the clean-up ends, then raised as it would have been (its handler's
    ``KeyboardInterrupt``, the signal named for the command's words and exit code: :mod:`core.console`).

    Before (break-it F24's second case), a stop there either cut the clean-up short (a manifest or
    results file not written, a server's process group left) or was swallowed and the command went on.
    Where the clean-up runs because the command is already ending (an exception in flight: a first
    stop, or an error, which say how it ended), a held stop is dropped, as a second Ctrl-C is.

    Args:
        on_stop: Called at once when the first stop comes (or at the start when one is held already),
            e.g. to kill a child the clean-up waits for. Nested clean-ups: the outermost raises.
        ending: The command is ending already, by a stop it caught and raises after the clean-up: one held is dropped.
    """
    main = threading.current_thread() is threading.main_thread()
    outer = main and not _HELD["on_stop"] and signal.getsignal(signal.SIGINT) is not _hold
    old: dict[int, Any] = {}
    if outer:
        underway = ending or sys.exc_info()[1] is not None
        _HELD["came"] = []
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            if callable(handler := signal.getsignal(sig)):  # SIG_IGN (nohup) stays ignored
                old[sig] = handler
                signal.signal(sig, _hold)
    if main:
        _HELD["on_stop"].append(on_stop or (lambda: None))
        if _HELD["came"] and on_stop is not None:
            on_stop()
    try:
        yield
    finally:
        if main:
            _HELD["on_stop"].pop()
        if outer:
            for number, handler in old.items():
                signal.signal(number, handler)
            came, _HELD["came"] = _HELD["came"], []
            if came and not underway and sys.exc_info()[1] is None and came[0] in old:
                old[came[0]](came[0], None)  # raises the stop (default_int_handler, core.console's _on_stop)


@contextlib.contextmanager
def ignored_stops() -> Iterator[list[str]]:
    """Ignore every Ctrl-C, SIGTERM or SIGHUP that comes inside, for what a command does once its work is done
    (a build's summary once its variants and manifest are written: trial 28, T28-12, a Ctrl-C then ended a complete
    build with exit 130). Yields the list of those that came, named as :mod:`core.console` names them (``"Ctrl-C"``,
    ``"SIGTERM"``), for the command to say; the handlers are put back after. Main thread only."""
    came: list[str] = []
    old: dict[int, Any] = {}

    def note(signum: int, frame: FrameType | None) -> None:
        came.append("Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name)

    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            if callable(handler := signal.getsignal(sig)):  # SIG_IGN (nohup) stays ignored
                old[sig] = handler
                signal.signal(sig, note)
    try:
        yield came
    finally:
        for number, handler in old.items():
            signal.signal(number, handler)


#: The stops noted by the :func:`recorded_stops` running now (signal numbers, first first); ``None``: none runs.
_RECORDED: dict[str, list[int] | None] = {"came": None}


@contextlib.contextmanager
def recorded_stops() -> Iterator[None]:
    """Keep the toolkit's own record of every Ctrl-C, SIGTERM or SIGHUP that comes inside, for work that calls
    libraries which may swallow the ``KeyboardInterrupt`` a stop raises, or wrap it in an ordinary error.

    torch.export did (trial 28, T28-11): a Ctrl-C during the dynamo ONNX export came out of it as a
    ``TorchExportError`` (<- ``AttributeError``), the build took it for that exporter's failure, fell back to the next
    one, wrote every variant and exited 0. Inside, each stop signal's handler stays what it was (it still raises
    ``KeyboardInterrupt``, :mod:`core.console` names the signal), noting the signal first; the work calls
    :func:`raise_recorded_stop` after each step, so a stop a library swallowed stops it there. The handlers are put
    back after (one changed inside, e.g. to ignored, stays so). Main thread only; nested, the outermost records.
    """
    if threading.current_thread() is not threading.main_thread() or _RECORDED["came"] is not None:
        yield
        return
    came: list[int] = []
    old: dict[int, Any] = {}

    def note(signum: int, frame: FrameType | None) -> None:
        came.append(signum)
        old[signum](signum, frame)

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        if callable(handler := signal.getsignal(sig)):  # SIG_IGN (nohup) stays ignored
            old[sig] = handler
            signal.signal(sig, note)
    _RECORDED["came"] = came
    try:
        yield
    finally:
        _RECORDED["came"] = None
        for number, handler in old.items():
            if signal.getsignal(number) is note:
                signal.signal(number, handler)


def stop_recorded() -> bool:
    """Whether a stop came inside the :func:`recorded_stops` running now and was not raised by :func:`raise_recorded_stop`."""
    return bool(_RECORDED["came"])


def raise_recorded_stop() -> None:
    """Raise the stop that came inside :func:`recorded_stops` as its handler raised it (``KeyboardInterrupt``, named
    as :mod:`core.console` names SIGTERM and SIGHUP), once: a library that swallowed it or wrapped it in an ordinary
    error (caught as a step's failure) does not end the work's stop. Nothing when none came."""
    came = _RECORDED["came"]
    if not came:
        return
    sig = came[0]
    came.clear()
    raise KeyboardInterrupt() if sig == signal.SIGINT else KeyboardInterrupt(signal.Signals(sig).name)


def start_guardian(script: str, *args: str) -> subprocess.Popen:
    """Start ``python -c script *args`` as a guardian: a process that outlives its launcher on
    purpose (its own session, no ``PR_SET_PDEATHSIG``) to clean up after it.

    The script reads its stdin to the end: the launcher keeps the pipe's write end (the only
    one: it is not inherited by other children), so the read returns when the launcher exits
    for any reason, SIGKILL included, or closes it. Used for a server's process group
    (:class:`ProcessGroup`) and a container (:mod:`clients.runtimes.container`).
    """
    return subprocess.Popen(
        [sys.executable, "-I", "-S", "-c", script, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def end_guardian(guardian: subprocess.Popen, *, run: bool, timeout_s: float = 30) -> None:
    """End a guardian: let it do its clean-up (``run``: close its stdin, wait up to ``timeout_s``)
    or stop it without (SIGKILL); killed too when it does not exit in time."""
    with contextlib.suppress(OSError):
        if not run:
            guardian.kill()
        if guardian.stdin:
            guardian.stdin.close()
    try:
        guardian.wait(timeout_s)
    except subprocess.TimeoutExpired:
        guardian.kill()
        guardian.wait()


def group_members(pgid: int) -> dict[int, str]:
    """The live processes (zombies left out) of process group ``pgid``: pid -> name (``comm``)."""
    found: dict[int, str] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue  # exited meanwhile
        name = stat[stat.find("(") + 1 : stat.rfind(")")]
        state, _ppid, pgrp = stat[stat.rfind(")") + 2 :].split()[:3]
        if int(pgrp) == pgid and state not in ("Z", "X"):
            found[int(entry.name)] = name
    return found


class ProcessGroup:
    """The process group of a child started in its own session (``start_new_session=True``):
    the child and everything it starts that stays in its group (module docstring).

    A guardian (:func:`start_guardian`) SIGKILLs the group if the launcher dies first.

    Args:
        pgid: The group's id: the child's pid.

    Raises:
        ValueError: ``pgid`` is the launcher's own group or not a real one (<= 1).
    """

    def __init__(self, pgid: int) -> None:
        if pgid <= 1 or pgid == os.getpgrp():
            raise ValueError(f"process group {pgid} is not a child's own group")
        self.pgid = pgid
        self._guardian: subprocess.Popen | None = start_guardian(_GROUP_GUARDIAN, str(pgid))

    def kill(self, timeout_s: float = 10) -> dict[int, str]:
        """SIGKILL every live process of the group and wait up to ``timeout_s`` until none is left.

        Returns:
            What was killed: pid -> name.
        """
        left = group_members(self.pgid)
        if not left:
            return {}
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pgid, signal.SIGKILL)
        deadline = time.monotonic() + timeout_s
        while group_members(self.pgid) and time.monotonic() < deadline:
            time.sleep(0.05)
        return left

    def close(self, what: str) -> dict[int, str]:
        """After ``what`` (the group's leader, e.g. ``"tritonserver (pid 123)"``) has exited: kill
        what it left running (logged as a warning, by pid and name) and end the guardian.
        Safe to call more than once.

        Returns:
            What was killed: pid -> name.
        """
        left = self.kill()
        if left:
            names = ", ".join(f"{pid} ({name})" for pid, name in sorted(left.items()))
            log.warning("%s left %d process(es) running after it exited: %s; killed them", what, len(left), names)
        guardian, self._guardian = self._guardian, None
        if guardian is not None:
            end_guardian(guardian, run=False)
        return left
