"""Is there an NVIDIA GPU here? Answered without importing torch (``nvidia-smi`` / NVML)."""

from __future__ import annotations

import functools
import shutil
import subprocess


@functools.lru_cache(maxsize=1)
def gpu_names() -> tuple[str, ...]:
    """Names of the visible NVIDIA GPUs (empty when none or no driver)."""
    if not shutil.which("nvidia-smi"):
        return ()
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    if out.returncode != 0:
        return ()
    return tuple(line.strip() for line in out.stdout.splitlines() if line.strip())


def gpu_available() -> bool:
    return bool(gpu_names())
