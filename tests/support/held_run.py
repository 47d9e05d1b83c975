"""A run folder held (perf.records.run_lock.hold_run) by another, real process, as a sweep holds it."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_HOLDER = """
import sys, time
from pathlib import Path
from perf.records.run_lock import hold_run
hold = hold_run(Path(sys.argv[1]), "the other command")
print("held", flush=True)
time.sleep(600)
"""


@contextlib.contextmanager
def held_by_another_process(folder: Path) -> Iterator[subprocess.Popen[str]]:
    """Hold ``folder`` in a child process for the ``with`` block (killed after it)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(folder)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        yield proc
    finally:
        proc.kill()
        proc.wait()
