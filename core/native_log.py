"""Output that native libraries write straight to the process's stdout/stderr, kept in a log file.

Python's ``contextlib.redirect_stderr`` only replaces ``sys.stderr``; a C++ library writes to file
descriptors 1 and 2 itself (PyTorch's profiler, libkineto, prints ``USDT: ... profiler_start`` and
``profiler_stop`` lines on every trace; issue 26: four of them in ``make demo``'s output).
:func:`native_output_to` points both descriptors at a log file for the length of a block, so the
console shows what the toolkit says and the log keeps what the library said.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def native_output_to(log_file: Path) -> Iterator[Path]:
    """Append everything written to file descriptors 1 and 2 inside the block to ``log_file``.

    Python's own streams are flushed before and after, so nothing written before the block ends
    up in the log and nothing of the block's is left in a buffer. Where the process has no real
    descriptors 1 and 2 (an embedding host), the block runs unchanged.

    Args:
        log_file: The log (created with its folder; appended to).

    Yields:
        ``log_file``.
    """
    log_file.parent.mkdir(parents=True, exist_ok=True)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    try:
        saved = [os.dup(1), os.dup(2)]
    except OSError:
        yield log_file
        return
    try:
        with open(log_file, "ab") as f:
            os.dup2(f.fileno(), 1)
            os.dup2(f.fileno(), 2)
            try:
                yield log_file
            finally:
                for stream in (sys.stdout, sys.stderr):
                    with contextlib.suppress(Exception):
                        stream.flush()
                os.dup2(saved[0], 1)
                os.dup2(saved[1], 2)
    finally:
        for fd in saved:
            os.close(fd)
