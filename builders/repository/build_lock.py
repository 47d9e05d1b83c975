"""One build per build folder at a time (trial 17, T17-9): two builds of one model shared
``builds/<model>/.staging``; the one that failed removed the other's staging folder in its clean-up,
and the other died in a FileNotFoundError traceback. A build holds an exclusive :func:`fcntl.flock`
on ``builds/<model>/.build.lock`` (its pid written in it) from before it reads the earlier manifest
until it returns; a second build, or ``make clean``, meets it and stops with one error naming the pid.

The lock is the kernel's: it is released when the process ends, however it ends (a killed build
leaves the file, not the lock). The file is never removed (removing a locked file lets two builds
lock two files of one name). Standard library only (``make clean`` imports it without the venv).

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
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        try:
            yield
        finally:
            os.ftruncate(fd, 0)  # the pid is said while held only: the folder reads the same after every build
    finally:
        os.close(fd)  # releases the lock; the file stays (module docstring)


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
