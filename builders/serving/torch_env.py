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

One rule, :func:`torch_cpu_env`, gives the policy everywhere: in this process (:func:`apply_torch_cpu_env`)
and for every server the toolkit starts or writes a manifest for (:func:`server_env`: the bundled,
local and container runtimes, the bundle's Deployment). An empty or blank ``OMP_WAIT_POLICY=`` names
no policy (libgomp itself rejects it, "Invalid value", and spins): it is taken as unset, so PASSIVE.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from types import ModuleType

#: Environment the toolkit gives torch's OpenMP runtime before torch is first imported (module docstring).
TORCH_CPU_ENV: dict[str, str] = {"OMP_WAIT_POLICY": "PASSIVE"}

_state: dict[str, str] = {}


def torch_cpu_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """:data:`TORCH_CPU_ENV` as ``environ`` (default ``os.environ``) has it: a value it names is kept (stripped),
    an absent, empty or blank one is taken as unset and gets the toolkit's (the module's one rule)."""
    env = os.environ if environ is None else environ
    return {k: (env.get(k) or "").strip() or v for k, v in TORCH_CPU_ENV.items()}


def server_env() -> dict[str, str]:
    """:data:`TORCH_CPU_ENV` for a server the toolkit starts or writes a manifest for (the bundled, local and
    container runtimes, a pod), where torch is this model.py or LibTorch in NVIDIA's image: :func:`torch_cpu_env`
    of this process's environment."""
    return torch_cpu_env()


def apply_torch_cpu_env() -> None:
    """Put :data:`TORCH_CPU_ENV` in the environment (:func:`torch_cpu_env`: a value the user set is kept, an empty
    one is unset) when torch is not imported yet in this process, and remember the policy torch then starts
    with; once torch is imported this does nothing (libgomp read its environment then)."""
    if "torch" in sys.modules:
        return
    os.environ.update(torch_cpu_env())
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
        return f"OMP_WAIT_POLICY={torch_cpu_env()['OMP_WAIT_POLICY']}"
    policy = _state.get("at_import")
    if policy is None:
        return "unknown (torch was imported before the toolkit set OMP_WAIT_POLICY)"
    return f"OMP_WAIT_POLICY={policy}" if policy else "not set (libgomp spins)"
