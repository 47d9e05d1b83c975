"""One rule for torch's OpenMP wait policy everywhere (builders.serving.torch_env.torch_cpu_env).

An empty ``OMP_WAIT_POLICY=`` names no policy (libgomp rejects it, "Invalid value", and spins): it was kept in
this process and in the bundled server's stubs (``os.environ.setdefault``: torch spun) but replaced by PASSIVE for
the container, the local runtime and the Deployment (s21k). Now every place reads it as unset, so PASSIVE, and a
policy the environment names is kept everywhere; each runtime that starts a server says which policy it passed
(``Runtime.wait_policy``, recorded in the run's ``environment.server``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from builders.serving.torch_env import torch_cpu_env
from clients.runtimes.bundled import BundledRuntime
from clients.runtimes.container import ContainerRuntime
from clients.runtimes.local import LocalRuntime
from clients.runtimes.options import ServerOptions
from clients.runtimes.remote import RemoteRuntime
from clients.server import TritonServer
from perf.deploy import k8s

ROOT = Path(__file__).resolve().parents[3]
PLAN = k8s.ServingPlan("m", "m", "nvcr.io/nvidia/tritonserver:24.10-py3", k8s.Resources(None, 1, ()), 1 << 20)


@pytest.mark.parametrize(("named", "policy"), [(None, "PASSIVE"), ("", "PASSIVE"), ("  ", "PASSIVE"), (" active ", "active")])
def test_the_rule_reads_an_empty_policy_as_unset_and_keeps_a_named_one(named: str | None, policy: str):
    env = {} if named is None else {"OMP_WAIT_POLICY": named}
    assert torch_cpu_env(env) == {"OMP_WAIT_POLICY": policy}


def _given(tmp_path: Path) -> dict[str, str | None]:
    """The policy each place gives its torch, with this process's environment as it is now."""
    (tmp_path / "repo").mkdir(exist_ok=True)
    opts: dict[str, Any] = {"gpus": "", "shm_size": "1g"}
    cmd = TritonServer(ServerOptions(tmp_path / "repo", runtime="container", **opts)).command
    (container,) = k8s.deployment(PLAN).spec.template.spec.containers
    return {
        "container": cmd[cmd.index("-e") + 1].removeprefix("OMP_WAIT_POLICY="),
        "local": LocalRuntime(ServerOptions(tmp_path / "repo", runtime="local")).environment()["OMP_WAIT_POLICY"],
        "bundled": BundledRuntime(ServerOptions(tmp_path / "repo", runtime="bundled")).environment().get("OMP_WAIT_POLICY"),
        "deployment": {e.name: e.value for e in container.env}["OMP_WAIT_POLICY"],
    }


@pytest.mark.parametrize(("named", "policy"), [("", "PASSIVE"), ("ACTIVE", "ACTIVE")])
def test_every_server_gets_the_same_policy_and_says_which(tmp_path: Path, monkeypatch, named: str, policy: str):
    # old: the bundled server's environment named no policy (its stubs kept the empty value: libgomp spun)
    monkeypatch.setenv("OMP_WAIT_POLICY", named)
    assert _given(tmp_path) == dict.fromkeys(("container", "local", "bundled", "deployment"), policy)
    for runtime in (BundledRuntime, LocalRuntime, ContainerRuntime):
        assert runtime(ServerOptions(tmp_path / "repo", runtime=runtime.name, gpus="")).wait_policy() == policy
    # a server the toolkit did not start: its policy is not known here
    assert RemoteRuntime(ServerOptions(tmp_path / "repo", runtime="remote", urls=("h:8000",))).wait_policy() is None


def test_the_deployment_serves_with_the_policy_the_runs_server_had(monkeypatch):
    monkeypatch.setenv("OMP_WAIT_POLICY", "")
    (container,) = k8s.deployment(PLAN).spec.template.spec.containers
    assert {e.name: e.value for e in container.env} == {"OMP_WAIT_POLICY": "PASSIVE"}  # not recorded: this environment's
    plan = k8s.ServingPlan(PLAN.name, PLAN.variant, PLAN.image, PLAN.resources, PLAN.storage_bytes, wait_policy="ACTIVE")
    (container,) = k8s.deployment(plan).spec.template.spec.containers
    assert {e.name: e.value for e in container.env} == {"OMP_WAIT_POLICY": "ACTIVE"}


@pytest.mark.parametrize(("named", "policy"), [("", "PASSIVE"), ("ACTIVE", "ACTIVE")])
def test_this_process_sets_the_same_policy_before_torch(named: str, policy: str):
    # old: os.environ.setdefault kept the empty value, so torch started spinning here and in the bundled stubs
    code = """import os
from builders.serving import torch_env
torch_env.apply_torch_cpu_env()
print(repr(os.environ["OMP_WAIT_POLICY"]), torch_env.wait_policy_words())
"""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_"))}
    env.update(PYTHONPATH=str(ROOT), OMP_WAIT_POLICY=named)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.split() == [repr(policy), f"OMP_WAIT_POLICY={policy}"]


def test_every_command_that_starts_a_server_records_its_policy(tmp_path: Path, monkeypatch):
    from perf.sweep.server import server_record

    monkeypatch.setenv("OMP_WAIT_POLICY", "")
    (tmp_path / "repo").mkdir()
    local = TritonServer(ServerOptions(tmp_path / "repo", runtime="local", binary=sys.executable))
    said = server_record(local, "2.51.0")
    assert said["omp_wait_policy"] == "PASSIVE" and "OMP_WAIT_POLICY=PASSIVE" in said["command"]
    opts = ServerOptions(tmp_path / "repo", runtime="remote", urls=("h:8000",))
    remote: Any = SimpleNamespace(runtime="remote", runtime_reason="--url", command_line="?", runtime_impl=RemoteRuntime(opts))
    assert server_record(remote)["omp_wait_policy"] is None and server_record(remote)["command"] == ""
    # the sweep, coldstart and colocate write their server's record through server_record, never a dict of their own
    found = {
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "perf").rglob("*.py")
        if "server_record(srv" in p.read_text() or re.search(r"[\"']server[\"'][:,]\s*\{[\"']runtime", p.read_text())
    }
    assert found == {"perf/sweep/server.py", "perf/cli/coldstart.py", "perf/colocate/run.py"}
    assert not any(re.search(r"[\"']server[\"'][:,]\s*\{[\"']runtime", (ROOT / f).read_text()) for f in found)
