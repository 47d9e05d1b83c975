"""Whether a process the test started is gone (exited, or a zombie waiting for its reaper)."""

from __future__ import annotations

import time
from pathlib import Path


def gone(pid: int, timeout_s: float = 15) -> bool:
    """Whether process ``pid`` exits (or is a zombie waiting for its reaper) within ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state in ("Z", "X"):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
