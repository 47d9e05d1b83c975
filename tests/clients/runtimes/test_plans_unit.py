"""A TensorRT plan's recorded TensorRT version against the serving release, checked before a
container starts (issue 25 item 6): the launcher's server, ``clients check`` and the sweep
refuse a plan built with another TensorRT than the image's, and every load refuses it again
without sending anything; what cannot be checked (an image of no known release, no recorded
version) is not refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders.config.variants import Variant
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from clients.runtimes.options import ServerOptions, image_for_tag
from clients.runtimes.plans import plan_problem, plan_problems
from clients.server import TritonServer
from core.errors import ServerError

SPEC = ModelSpec((TensorSpec("INPUT__0", "float32", (16,)),), (TensorSpec("OUTPUT__0", "float32", (8,)),))
PLAN = Variant("m", "trt", kind="gpu", max_batch_size=8)
CONFIG = f'name: "{PLAN.name}"\nplatform: "tensorrt_plan"\nmax_batch_size: 8\ninstance_group {{ kind: KIND_GPU count: 1 }}\n'


@pytest.fixture
def plan_repo(fake_build, tmp_path: Path) -> Path:
    """A repository with one plan variant whose build recorded TensorRT 10.8.0.43 (Triton 25.01's)."""
    repo = fake_build(SPEC, PLAN, serving="native", extra={"tensorrt_version": "10.8.0.43"})  # the export's record
    (repo / PLAN.name / "config.pbtxt").write_text(CONFIG)
    (repo / PLAN.name / "1").mkdir()
    (repo / PLAN.name / "1" / "model.plan").write_bytes(b"engine")
    return repo


def test_a_plan_is_checked_against_the_image_tag(plan_repo: Path) -> None:
    said = plan_problem(plan_repo, PLAN.name, image_for_tag("24.10"))
    assert said and "built with TensorRT 10.8.0.43, Triton 24.10 serves TensorRT 10.5.0.18" in said
    assert plan_problem(plan_repo, PLAN.name, image_for_tag("25.01")) is None  # the release that built it
    assert plan_problem(plan_repo, PLAN.name, "registry.example/triton:custom") is None  # not a known release: not refused
    assert plan_problem(plan_repo, PLAN.name, None) is None
    assert plan_problems(plan_repo, [PLAN.name, "not_a_plan"], image_for_tag("24.10")).keys() == {PLAN.name}


def test_the_container_is_never_started_for_a_plan_it_cannot_load(plan_repo: Path) -> None:
    opts = ServerOptions(plan_repo, runtime="container", image=image_for_tag("24.10"))
    srv = TritonServer(opts)  # docker is not asked yet: nothing runs
    with pytest.raises(
        ServerError, match=r"built with TensorRT 10.8.0.43.*checked before starting the server: nothing was started"
    ):
        srv.refuse_plans([PLAN.name])
    with pytest.raises(ServerError, match="built with TensorRT 10.8.0.43") as e:
        srv.check_servable(PLAN.name)  # what every load runs before its request
    assert "nothing was sent" in (e.value.hint or "")
    with pytest.raises(ServerError, match="built with TensorRT 10.8.0.43"):
        TritonServer(ServerOptions(plan_repo, runtime="container", image=image_for_tag("24.10"), load_models=(PLAN.name,)))
    with pytest.raises(ServerError, match="built with TensorRT 10.8.0.43"):
        TritonServer(ServerOptions(plan_repo, runtime="container", image=image_for_tag("24.10"), model_control="none"))
    TritonServer(ServerOptions(plan_repo, runtime="container", image=image_for_tag("25.01"), load_models=(PLAN.name,)))


def test_a_sweep_refuses_the_plan_before_starting_its_container(
    plan_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from perf.sweep.run import Sweep, SweepOptions

    bindir = tmp_path / "bin"  # a Docker engine that answers `docker info` (the sweep checks it first)
    bindir.mkdir()
    (bindir / "docker").write_text("#!/bin/sh\nexit 0\n")
    (bindir / "docker").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")

    opts = SweepOptions(
        ServerOptions(plan_repo, runtime="container", image=image_for_tag("24.10")),
        concurrency=(1,),
        results_dir=tmp_path / "results",
        run_id="plan",
        baseline=False,
    )
    with pytest.raises(ServerError, match="built with TensorRT 10.8.0.43.*nothing was started") as e:
        Sweep(opts)  # the pre-start check (perf.sweep.preflight.check_runtime): its only variant cannot load
    assert "no run folder was written" in e.value.message
    assert not (tmp_path / "results").exists()  # no container started, no folder of a run that measured nothing


def test_clients_check_refuses_the_plan_before_starting_its_container(plan_repo: Path) -> None:
    from clients.check import check_with_server

    with pytest.raises(ServerError, match="built with TensorRT 10.8.0.43.*nothing was started"):
        check_with_server(ServerOptions(plan_repo, runtime="container", image=image_for_tag("24.10")), ("http",))
