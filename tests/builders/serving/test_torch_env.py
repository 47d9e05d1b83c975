"""torch's OpenMP workers wait passively in the toolkit's processes (trial 24, T24-1).

With libgomp's default policy (spin between ops) and as many workers as cores, a TorchScript conv net
served by the python backend took 342 ms an inference against 12 ms in-process; on one busy 2-core host,
interleaved: 6.7-18 infer/s served with the default policy, 104-124 with ``OMP_WAIT_POLICY=PASSIVE``.
libgomp reads its environment once, when torch is first imported, so each test runs a fresh interpreter
and reads libgomp's own report of the policy it started with (``OMP_DISPLAY_ENV=VERBOSE``:
``GOMP_SPINCOUNT`` is '0' for PASSIVE, '300000' for the default, '30000000000' for ACTIVE).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
TEMPLATE = ROOT / "builders" / "templates" / "triton_python_model.py"

#: A stand-in for the python backend's ``triton_python_backend_utils`` (what ``initialize`` uses).
FAKE_PB_UTILS = """import numpy as np
class TritonModelException(Exception):
    pass
def triton_string_to_numpy(s):
    return {"TYPE_FP32": np.float32}[s]
"""


def _spin_count(code: str, tmp_path: Path, policy: str | None = None) -> str:
    """``GOMP_SPINCOUNT`` as libgomp reports it when ``code`` runs in a fresh interpreter (``OMP_WAIT_POLICY``
    set to ``policy``, or absent); skips where torch's OpenMP is not GNU libgomp."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_"))}
    env.update(OMP_DISPLAY_ENV="VERBOSE", PYTHONPATH=os.pathsep.join([str(tmp_path / "fake"), str(ROOT)]))
    if policy:
        env["OMP_WAIT_POLICY"] = policy
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    found = re.search(r"GOMP_SPINCOUNT = '(\d+)'", done.stderr)
    if found is None:
        pytest.skip("torch's OpenMP runtime here is not GNU libgomp (no GOMP_SPINCOUNT in its OMP_DISPLAY_ENV report)")
    return found.group(1)


@pytest.fixture
def ts_model(tmp_path: Path) -> Path:
    """A small TorchScript conv net (3x8x8 in, 4 channels out), written as ``1/model.pt``."""
    import warnings

    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # torch.jit is deprecated upstream; Triton still serves it
        net = torch.jit.script(torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.ReLU()).eval())
    (tmp_path / "1").mkdir()
    net.save(str(tmp_path / "1" / "model.pt"))
    (tmp_path / "fake").mkdir()
    (tmp_path / "fake" / "triton_python_backend_utils.py").write_text(FAKE_PB_UTILS)
    return tmp_path / "1" / "model.pt"


RUN_RUNNER = """import numpy as np
from builders.serving.runners import load_runner
run = load_runner("torchscript", {path!r}, ["x"], ["y"], threads=2)
assert run({{"x": np.ones((2, 3, 8, 8), np.float32)}})["y"].shape == (2, 4, 8, 8)
"""


@pytest.mark.slow  # a real export: `make test` only (the fast tier's guard)
def test_the_torchscript_runner_loads_torch_with_the_passive_wait_policy(ts_model: Path, tmp_path: Path):
    # the old runner imported torch with the environment as it was: libgomp spun (GOMP_SPINCOUNT 300000)
    assert _spin_count(RUN_RUNNER.format(path=str(ts_model)), tmp_path) == "0"


@pytest.mark.slow  # a real export: `make test` only (the fast tier's guard)
def test_a_wait_policy_the_environment_names_is_kept(ts_model: Path, tmp_path: Path):
    assert _spin_count(RUN_RUNNER.format(path=str(ts_model)), tmp_path, policy="ACTIVE") == "30000000000"


@pytest.mark.slow  # a real export: `make test` only (the fast tier's guard)
def test_the_served_model_py_imports_no_torch_before_its_runner_sets_the_policy(ts_model: Path, tmp_path: Path):
    config = {
        "name": "m",
        "max_batch_size": 8,
        "input": [{"name": "x", "data_type": "TYPE_FP32", "dims": [3, 8, 8]}],
        "output": [{"name": "y", "data_type": "TYPE_FP32", "dims": [4, 8, 8]}],
        "instance_group": [{"count": 1, "kind": "KIND_CPU"}],
        "parameters": {
            "artifact_format": {"string_value": "torchscript"},
            "artifact_file": {"string_value": "model.pt"},
            "artifact_outputs": {"string_value": '["y"]'},
        },
    }
    args = {"model_config": json.dumps(config), "model_repository": str(tmp_path), "model_version": "1"}
    site = sysconfig.get_paths()["purelib"]
    code = f"""import os, runpy, sys
os.environ["TRITON_TOOLKIT_SITE_PACKAGES"] = {site!r}
ns = runpy.run_path({str(TEMPLATE)!r})
assert "torch" not in sys.modules, "the model.py's imports loaded torch before its runner could set the wait policy"
model = ns["TritonPythonModel"]()
model.initialize({args!r})
"""
    assert _spin_count(code, tmp_path) == "0"


def test_the_wait_policy_words_say_what_torch_started_with(tmp_path: Path):
    code = """from builders.serving import torch_env
print(torch_env.wait_policy_words())
torch_env.import_torch()
print(torch_env.wait_policy_words())
"""
    late = """import torch
from builders.serving import torch_env
torch_env.apply_torch_cpu_env()
print(torch_env.wait_policy_words())
"""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OMP_")}
    env["PYTHONPATH"] = str(ROOT)
    said = [
        subprocess.run([sys.executable, "-c", c], env=env, capture_output=True, text=True, timeout=300, check=True).stdout
        for c in (code, late)
    ]
    assert said[0].splitlines() == ["OMP_WAIT_POLICY=PASSIVE", "OMP_WAIT_POLICY=PASSIVE"]
    assert said[1].strip() == "unknown (torch was imported before the toolkit set OMP_WAIT_POLICY)"


def test_every_server_the_toolkit_starts_or_writes_a_manifest_for_gets_the_policy(tmp_path: Path, monkeypatch):
    # LibTorch in NVIDIA's image (a native pytorch_libtorch variant) reads it from the server's environment: the
    # container runtime's docker run, the local runtime's server process and the bundle's Deployment pass it
    from clients.runtimes.local import LocalRuntime
    from clients.runtimes.options import ServerOptions
    from clients.server import TritonServer
    from perf.deploy import k8s

    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    (tmp_path / "repo").mkdir()
    cmd = TritonServer(ServerOptions(tmp_path / "repo", runtime="container", gpus="", shm_size="1g")).command
    assert "OMP_WAIT_POLICY=PASSIVE" in cmd and cmd[cmd.index("OMP_WAIT_POLICY=PASSIVE") - 1] == "-e"
    assert LocalRuntime(ServerOptions(tmp_path / "repo", runtime="local")).environment()["OMP_WAIT_POLICY"] == "PASSIVE"
    plan = k8s.ServingPlan("m", "m", "nvcr.io/nvidia/tritonserver:24.10-py3", k8s.Resources(None, 1, ()), 1 << 20)
    dep: Any = k8s.deployment(plan)
    (container,) = dep.spec.template.spec.containers
    assert {(e.name, e.value) for e in container.env} == {("OMP_WAIT_POLICY", "PASSIVE")}
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")  # a policy the user's environment names is passed instead
    assert (
        "OMP_WAIT_POLICY=ACTIVE"
        in TritonServer(ServerOptions(tmp_path / "repo", runtime="container", gpus="", shm_size="1g")).command
    )
    assert LocalRuntime(ServerOptions(tmp_path / "repo", runtime="local")).environment()["OMP_WAIT_POLICY"] == "ACTIVE"
    # the bundle's Deployment too (it wrote PASSIVE whatever the environment named, while a sweep run with
    # OMP_WAIT_POLICY=ACTIVE served torch that way: 15 infer/s against 240 with PASSIVE on a 2-core host)
    (container,) = k8s.deployment(plan).spec.template.spec.containers
    assert {(e.name, e.value) for e in container.env} == {("OMP_WAIT_POLICY", "ACTIVE")}
