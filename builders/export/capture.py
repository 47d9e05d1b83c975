"""What native code prints while an export strategy runs, kept in its attempt's record instead
of on the console.

Python-level output is not the problem: :mod:`builders.export.onnx` captures the exporters'
prints and warnings. Native code writes to file descriptors 1 and 2 directly, past
``sys.stdout``/``sys.stderr``: the TorchScript-based ONNX exporter logs the whole "Torch IR
graph at exception: graph(...)" through torch's C++ ONNX log (``torch._C._jit_onnx_log``, to
fd 1) when a graph fails to convert; onnxruntime and TensorRT log to fd 2.
:func:`native_output` points both descriptors at a temporary file for the time of one strategy,
while Python's own ``sys.stdout``/``sys.stderr`` (the console's spinner and log lines) keep
writing where they wrote; the text goes into :attr:`builders.export.artifacts.Attempt.output`
and the DEBUG log, and the console shows the attempt's one line
(:func:`builders.verify.explain.rejection_line`).
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from typing import TextIO

log = logging.getLogger(__name__)

#: Most characters of native output kept per attempt (the head: where a dump starts).
OUTPUT_LIMIT = 20_000
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
#: fd -> (identity of what it pointed at, a Python stream on a copy of it): made once per
#: target and reused, never closed under a thread that may still write to it (a spinner).
_KEPT: dict[int, tuple[tuple[int, int], TextIO]] = {}


class Captured:
    """The text :func:`native_output` captured (``text`` is set when the block ends)."""

    def __init__(self) -> None:
        self.text = ""


def _fd_backed(stream: object, fd: int) -> bool:
    try:
        return stream.fileno() == fd  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return False


def _kept(fd: int, stream: TextIO) -> TextIO:
    """A Python stream writing where ``fd`` writes now (a copy of the descriptor), for the
    ``sys`` stream that wrote to ``fd`` while ``fd`` itself is captured."""
    st = os.fstat(fd)
    ident = (st.st_dev, st.st_ino)
    cached = _KEPT.get(fd)
    if cached and cached[0] == ident:
        return cached[1]
    if cached:
        with contextlib.suppress(Exception):
            cached[1].close()
    encoding = getattr(stream, "encoding", None) or "utf-8"
    kept = os.fdopen(os.dup(fd), "w", buffering=1, encoding=encoding, errors="backslashreplace")
    _KEPT[fd] = (ident, kept)
    return kept


@contextlib.contextmanager
def native_output() -> Iterator[Captured]:
    """Capture what native code writes to file descriptors 1 and 2 inside the block.

    ``sys.stdout``/``sys.stderr``, where they write to those descriptors, are pointed at
    copies of them for the time of the block, so Python's output is not captured; where
    they do not (a ``StringIO``, click's test runner) they are left as they are.

    Yields:
        A :class:`Captured` whose ``text`` (ANSI colours removed, at most
        :data:`OUTPUT_LIMIT` characters, with how many more were left out) is set on exit;
        also logged at DEBUG. Where the descriptors cannot be moved, nothing is captured.
    """
    got = Captured()
    try:
        saved = {fd: os.dup(fd) for fd in (1, 2)}
    except OSError:
        yield got
        return
    with tempfile.TemporaryFile(mode="w+b") as tmp, contextlib.ExitStack() as stack:
        for fd, name in ((1, "stdout"), (2, "stderr")):
            stream = getattr(sys, name)
            with contextlib.suppress(Exception):
                stream.flush()
            if _fd_backed(stream, fd):
                kept = _kept(fd, stream)
                redirect = contextlib.redirect_stdout if fd == 1 else contextlib.redirect_stderr
                stack.enter_context(redirect(kept))
                stack.callback(kept.flush)
            os.dup2(tmp.fileno(), fd)
        try:
            yield got
        finally:
            stack.close()  # the sys streams back first, then the descriptors
            for fd, copy in saved.items():
                os.dup2(copy, fd)
                os.close(copy)
            tmp.seek(0)
            got.text = _trimmed(tmp.read().decode("utf-8", errors="replace"))
            if got.text:
                log.debug("native output of the exporter:\n%s", got.text)


def _trimmed(text: str) -> str:
    text = _ANSI.sub("", text).strip()
    if len(text) > OUTPUT_LIMIT:
        text = text[:OUTPUT_LIMIT] + f"\n... ({len(text) - OUTPUT_LIMIT} more characters left out)"
    return text
