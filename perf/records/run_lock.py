"""One writing command per run folder at a time.

Every command that writes a run's record reads it first and saves it whole: a sweep (new or
``--resume``), ``triton-perf baseline RUN`` (a baseline, traces or a precision study filed under the
run), ``coldstart --into RUN`` and ``colocate`` (new or ``--resume``). Two of them on one folder at
once each saved what it had read plus its own: the last save dropped the other's measurements,
and a second sweep under one ``--run-id`` emptied the folder of the first, still starting. Each
holds the folder from before its first read until its last save; a second one stops at once with
one error and changes nothing. Reading commands take no lock: a record is replaced by a rename
(:func:`core.records.write_record`), never read half written. Those that write beside it
(``report``, ``compare``) refuse a folder another command is writing (:func:`refuse_live`): a
report of a run still measured would be replaced by the sweep's own when it ends, and would
advise a ``--resume`` the lock refuses.

The lock is the kernel's :func:`fcntl.flock` on the folder itself (no file is added to a run
folder), released when the holder releases it or its process ends, however it ends. In the Python
API a :class:`perf.sweep.run.Sweep` holds its folder from its construction until ``run_all`` returns,
a :class:`perf.colocate.run.Colocate` until ``run`` returns; one dropped unrun lets go of it when
it is collected.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import os
import weakref
from collections.abc import Iterator
from pathlib import Path

from builders.repository.measured_runs import being_written
from core.errors import PerfError


class RunHold:
    """This process's hold on one run folder (:func:`hold_run`); :meth:`release` ends it (also when
    the object is collected)."""

    def __init__(self, run_dir: Path, fd: int):
        self.run_dir = run_dir
        self._close = weakref.finalize(self, os.close, fd)

    def release(self) -> None:
        """Let other commands write the folder (a second call does nothing)."""
        self._close()


def hold_run(run_dir: Path, what: str) -> RunHold:
    """Hold run folder ``run_dir`` (an existing folder) for this process's command ``what`` (``"this
    sweep"``, ``"this baseline"``...).

    Raises:
        PerfError: another command holds it: it names the folder and what was not done; nothing in
            the folder was read or changed.
    """
    fd = os.open(run_dir, os.O_RDONLY | os.O_DIRECTORY)
    if not _locked(fd):
        gc.collect()  # a hold of this process whose owner nobody can reach any more (a sweep never run) is let go
    if not _locked(fd):
        os.close(fd)
        raise PerfError(
            f"run folder {run_dir} is in use: another command is writing to it (a sweep or its --resume, "
            f"`triton-perf baseline`, `coldstart --into` or `colocate`); {what} did nothing, so neither loses "
            "the other's measurements",
            hint="wait for that command to end (or stop it with Ctrl-C: it saves what it measured), then run this again",
        ) from None
    return RunHold(run_dir, fd)


def _locked(fd: int) -> bool:
    """Whether this process took the lock on folder ``fd`` (``False``: another open of it holds it)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


@contextlib.contextmanager
def holding_run(run_dir: Path, what: str) -> Iterator[RunHold | None]:
    """:func:`hold_run` for the ``with`` block; nothing is held (``None``) where ``run_dir`` is not a
    folder: the command's own read of it then says what is missing."""
    if not Path(run_dir).is_dir():
        yield None
        return
    hold = hold_run(Path(run_dir), what)
    try:
        yield hold
    finally:
        hold.release()


def refuse_live(run_dir: Path, what: str) -> None:
    """Refuse ``what`` (``"its report"``...) of run folder ``run_dir`` while another command writes
    it (holds it: :func:`hold_run`); nothing is held after the check. Nothing is refused where
    ``run_dir`` is not a folder (the command's own read of it says what is missing).

    Raises:
        PerfError: another process holds the folder: a run still being measured.
    """
    if being_written(Path(run_dir)):  # the one check, also of `builders remove` and `make clean` (trial 29, T29-7)
        raise PerfError(
            f"run folder {run_dir} is being written: a sweep (or its --resume, `triton-perf baseline`, `coldstart --into` "
            f"or `colocate`) is still measuring into it; {what} was not written: the run is not finished, and that "
            "command changes its records (and writes its own report) when it ends",
            hint="run this again when that command ends (Ctrl-C stops it and keeps what it measured); its console "
            "shows the run meanwhile",
        )
