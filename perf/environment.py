"""What a results folder records about where it was measured."""

from __future__ import annotations

import importlib.metadata as md
import os
import platform
import socket
import subprocess
from typing import Any


def cpu_model() -> str | None:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def gpus() -> list[dict[str, Any]]:
    """``[{name, driver, memory_bytes}]`` from nvidia-smi; empty without an NVIDIA GPU."""
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader,nounits"],
            capture_output=True, text=True, timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    if out.returncode != 0:
        return []
    result = []
    for line in out.stdout.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 3:
            result.append({"name": parts[0], "driver": parts[1], "memory_bytes": int(float(parts[2])) * 2**20})
    return result


def collect() -> dict[str, Any]:
    """Host, OS, CPU, memory, GPUs and package versions."""
    versions = {}
    for pkg in ("torch", "onnx", "onnxruntime", "tritonclient", "nvidia-pytriton", "tensorrt"):
        try:
            versions[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            versions[pkg] = None
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        mem = None
    return {
        "host": socket.gethostname(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "memory_bytes": mem,
        "gpus": gpus(),
        "versions": versions,
    }
