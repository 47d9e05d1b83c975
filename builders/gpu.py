"""Is there an NVIDIA GPU here? Answered without importing torch (``nvidia-smi``)."""

from __future__ import annotations

import functools
import shutil
import subprocess
from typing import Any


@functools.lru_cache(maxsize=1)
def _query() -> tuple[tuple[str, str, int], ...]:
    """``(name, driver, memory_bytes)`` per visible GPU; empty when none or no driver."""
    if not shutil.which("nvidia-smi"):
        return ()
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader,nounits"],
            capture_output=True, text=True, timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ()
    if out.returncode != 0:
        return ()
    rows = []
    for line in out.stdout.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 3:
            try:
                rows.append((parts[0], parts[1], int(float(parts[2])) * 2**20))  # MiB -> bytes
            except ValueError:
                rows.append((parts[0], parts[1], 0))
    return tuple(rows)


def gpu_info() -> list[dict[str, Any]]:
    """``[{name, driver, memory_bytes}]`` of the visible NVIDIA GPUs (empty without one)."""
    return [{"name": n, "driver": d, "memory_bytes": m} for n, d, m in _query()]


def gpu_names() -> tuple[str, ...]:
    """Names of the visible NVIDIA GPUs (empty when none or no driver)."""
    return tuple(n for n, _, _ in _query())


def gpu_available() -> bool:
    return bool(_query())
