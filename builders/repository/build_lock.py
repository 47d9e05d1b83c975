"""One build per build folder at a time (trial 17, T17-9): two builds of one model shared
``builds/<model>/.staging``; the one that failed removed the other's staging folder in its clean-up,
and the other died in a FileNotFoundError traceback. A build holds an exclusive :func:`fcntl.flock`
on ``builds/<model>/.build.lock`` (its pid written in it) from before it reads the earlier manifest
until it returns; a second build, or ``make clean``, meets it and stops with one error naming the pid.

The lock is the kernel's: it is released when the process ends, however it ends (a killed build
leaves the file, not the lock). The file is removed only with a folder the build made and left bare (nothing
but the lock file: a new model's build that failed or was stopped), while held, and a build that locked the file
checks it is still the one at its path (removing a locked file would otherwise let two builds lock two files of one
name). Standard library only (``make clean`` imports it without the venv).

Builds of different models hold different build folders but share the repository's ``index.json``:
its read-modify-write holds :func:`repository_lock`, a blocking lock on the repository folder itself
(no file is added to a repository Triton serves).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from core.errors import BuildBusyError

#: The lock file in a build folder.
LOCK = ".build.lock"


def holder(out: Path) -> str | None:
    """The pid (as text) of the build at work in build folder ``out``, else ``None`` (no lock file, or
    nobody holds it); ``"unknown"`` when it is held but names no pid (written a moment later)."""
    path = out / LOCK
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return os.read(fd, 32).decode(errors="replace").strip() or "unknown"
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


@contextlib.contextmanager
def build_folder_lock(out: Path, name: str) -> Iterator[None]:
    """Hold build folder ``out`` (created if missing) for this process's build of model ``name``.

    Raises:
        BuildBusyError: another process holds it; the message names its pid; nothing in ``out``
            was changed.
    """
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    fd = os.open(out / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = os.read(fd, 32).decode(errors="replace").strip() or "unknown"
            raise BuildBusyError(
                f"another build of {name} is at work in {out} (pid {pid}); one build per build folder at a time "
                "(they would share its staging folder), so this one changed nothing",
                hint=f"wait for it to end, then run this build again; or build under another name with --name {name}_2",
            ) from None
        if not _still_there(fd, out / LOCK):  # a build that made the folder removed it as this one opened it
            raise BuildBusyError(
                f"another build of {name} ended in {out} as this one started, and removed the folder it had made",
                hint="run this build again",
            )
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        try:
            yield
        finally:
            os.ftruncate(fd, 0)  # the pid is said while held only: the folder reads the same after every build
            if created:
                _remove_if_bare(out)
    finally:
        os.close(fd)  # releases the lock; the file stays (module docstring) unless this build made the folder


def _still_there(fd: int, path: Path) -> bool:
    """Whether the file ``fd`` holds is still the one at ``path`` (the folder was not removed under it)."""
    try:
        return os.stat(path).st_ino == os.fstat(fd).st_ino
    except OSError:
        return False


def _remove_if_bare(out: Path) -> None:
    """Remove build folder ``out``, which this build made, when it holds nothing but the lock file (trial 30, F12: a
    Ctrl-C'd build of a new model left ``builds/dae2/`` with only ``.build.lock`` while saying nothing of the build was
    written). Done while the lock is held; a build that opened the file before it is removed finds it gone once it
    holds it (:func:`_still_there`) and stops, so two builds never hold two files of one name."""
    try:
        if [p.name for p in out.iterdir()] == [LOCK]:
            (out / LOCK).unlink()
            out.rmdir()
    except OSError:  # a file came in, or the folder cannot be listed: it stays, as any build folder does
        return


@contextlib.contextmanager
def repository_lock(repo: Path) -> Iterator[None]:
    """Hold model repository ``repo`` (an existing folder) for one update of its index, waiting
    while another process holds it (an update takes milliseconds). The lock is the kernel's
    :func:`fcntl.flock` on the folder, released when this process ends however it ends."""
    fd = os.open(repo, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
