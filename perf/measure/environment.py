"""What a results folder records about where it was measured."""

from __future__ import annotations

import os
import platform
import socket
from typing import Any

from core.gpu import gpu_info
from core.versions import package_versions


def cpu_model() -> str | None:
    """The CPU's model name from ``/proc/cpuinfo``; ``None`` where it cannot be read."""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def cores() -> int | None:
    """This host's CPU cores (``os.cpu_count()``; ``None`` unknown): the run's environment's ``cpu_count``, and the
    cores a live search judges a latency budget with (:class:`perf.search.policy.Budget`)."""
    return os.cpu_count()


def collect() -> dict[str, Any]:
    """Host, OS, CPU, memory, GPUs and package versions."""
    versions = package_versions(("torch", "onnx", "onnxruntime", "tritonclient", "nvidia-pytriton", "tensorrt"))
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        mem = None
    return {
        "host": socket.gethostname(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "cpu": cpu_model(),
        "cpu_count": cores(),
        "memory_bytes": mem,
        "gpus": gpu_info(),
        "versions": versions,
    }
