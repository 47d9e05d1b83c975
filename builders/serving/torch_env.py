"""How torch runs on a CPU in the toolkit's processes: its OpenMP workers sleep while they wait.

torch's CPU kernels split each op over ``set_num_threads`` OpenMP workers (GNU libgomp), which by
default *spin* between ops (``GOMP_SPINCOUNT`` 300000) and take static shares of every op. With
as many workers as cores (the served model's rule, :func:`builders.serving.runners.instance_threads`)
and anything else wanting the CPU (the server's own threads, a client on the same host, other work),
a spinning worker holds a core the worker with the work needs, and every op waits for its slowest
share. Trial 24 (T24-1): a small TorchScript conv net served at 342 ms compute an inference against
12 ms in-process; re-measured on one 2-core host at load 5-8, interleaved, 2 threads each:
served 6.7-18 infer/s with the default policy, 104-124 with ``OMP_WAIT_POLICY=PASSIVE``,
109-137 with 1 thread; at concurrency 4: 6-8, 155-185 and 78-112 infer/s (ONNX: 89-106).

libgomp reads ``OMP_WAIT_POLICY`` once, when torch is first imported, so :func:`import_torch` sets it
(unless the environment already names one: a user's choice is kept) before that first import. The
served ``model.py``, verification and the in-process baseline all get torch from here, so the baseline
times the artifact with the served policy.
"""

from __future__ import annotations

import os
import sys
from types import ModuleType

#: Environment the toolkit gives torch's OpenMP runtime before torch is first imported (module docstring).
TORCH_CPU_ENV: dict[str, str] = {"OMP_WAIT_POLICY": "PASSIVE"}

_state: dict[str, str] = {}


def server_env() -> dict[str, str]:
    """:data:`TORCH_CPU_ENV` for a server the toolkit starts or writes a manifest for (a container, a pod), where
    torch is LibTorch in NVIDIA's image or this model.py: a value this process's environment names is kept."""
    return {k: os.environ.get(k) or v for k, v in TORCH_CPU_ENV.items()}


def apply_torch_cpu_env() -> None:
    """Put :data:`TORCH_CPU_ENV` in the environment (``os.environ.setdefault``: a value the user set is kept)
    when torch is not imported yet in this process, and remember the policy torch then starts with; once
    torch is imported this does nothing (libgomp read its environment then)."""
    if "torch" in sys.modules:
        return
    for k, v in TORCH_CPU_ENV.items():
        os.environ.setdefault(k, v)
    _state["at_import"] = os.environ.get("OMP_WAIT_POLICY", "")


def import_torch() -> ModuleType:
    """``torch``, first imported with :data:`TORCH_CPU_ENV` in the environment (:func:`apply_torch_cpu_env`)."""
    apply_torch_cpu_env()
    import torch

    return torch


def wait_policy_words() -> str:
    """How torch's OpenMP workers wait in this process, in words for a record: ``"OMP_WAIT_POLICY=PASSIVE"``
    (set, or to be set at torch's first import), ``"not set (libgomp spins)"`` or ``"unknown (torch was
    imported before the toolkit set OMP_WAIT_POLICY)"``."""
    if "torch" not in sys.modules:
        return f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY') or TORCH_CPU_ENV['OMP_WAIT_POLICY']}"
    policy = _state.get("at_import")
    if policy is None:
        return "unknown (torch was imported before the toolkit set OMP_WAIT_POLICY)"
    return f"OMP_WAIT_POLICY={policy}" if policy else "not set (libgomp spins)"
