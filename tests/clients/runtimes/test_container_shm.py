"""The container runtime's shared memory (no Docker engine here: unit tests): docker's size
syntax checked, the default computed from the repository's python-backend models, a value
below their need refused, and a python-backend shared-memory failure explained with the fix."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from clients.runtimes.container import ContainerRuntime
from clients.runtimes.local import LocalRuntime
from clients.runtimes.options import ServerOptions
from clients.runtimes.shm import (
    MIB,
    SHM_FLOOR_BYTES,
    default_shm_size,
    format_docker_size,
    parse_docker_size,
    shm_failure_hint,
    shm_need_bytes,
)
from clients.server import TritonServer
from core.errors import ServerError


def _model(
    repo: Path,
    name: str,
    *,
    backend: str = "python",
    mbs: int = 8,
    count: int = 1,
    dims: str = "[ 4 ]",
    out_dims: str = "[ 4 ]",
    dtype: str = "TYPE_FP32",
) -> None:
    (repo / name / "1").mkdir(parents=True)
    (repo / name / "config.pbtxt").write_text(
        f'name: "{name}"\nbackend: "{backend}"\nmax_batch_size: {mbs}\n'
        f'input [ {{ name: "x" data_type: {dtype} dims: {dims} }} ]\n'
        f'output [ {{ name: "y" data_type: TYPE_FP32 dims: {out_dims} }} ]\n'
        f"instance_group [ {{ kind: KIND_CPU count: {count} }} ]\n"
    )


@pytest.mark.parametrize(
    "text, size",
    [
        ("1g", 1 << 30),
        ("512m", 512 * MIB),
        ("1.5GiB", 3 << 29),
        ("64MB", 64 * MIB),
        ("67108864", 1 << 26),
        ("2 g", 2 << 30),
        ("8k", 8192),
    ],
)
def test_docker_sizes_are_read_as_docker_does(text: str, size: int):
    assert parse_docker_size(text) == size


@pytest.mark.parametrize("text", ["lots", "8x", "", "-1g", "0", "1..5g", "g"])
def test_a_size_docker_would_not_take_is_refused(text: str):
    with pytest.raises(ServerError, match="is not a size docker takes") as e:
        parse_docker_size(text)
    assert "512m or 2g" in e.value.hint


def test_sizes_are_written_in_mib_or_gib():
    assert (
        format_docker_size(1 << 30) == "1g" and format_docker_size(1536 * MIB) == "1536m" and format_docker_size(MIB + 1) == "2m"
    )


def test_the_need_counts_python_instances_and_their_largest_request(tmp_path: Path):
    repo = tmp_path / "repo"
    _model(repo, "big", count=4, mbs=64, dims="[ 3, 224, 224 ]", out_dims="[ 1000 ]")  # an image classifier
    _model(repo, "small", count=2, mbs=0, dims="[ 16 ]", out_dims="[ 8 ]", dtype="TYPE_FP16")
    _model(repo, "native", backend="onnxruntime")  # not the python backend: no region
    need, lines = shm_need_bytes(repo)
    big = 4 * (MIB + 64 * (3 * 224 * 224 * 4 + 1000 * 4))
    small = 2 * (MIB + 1 * (16 * 2 + 8 * 4))
    assert need == big + small
    assert lines[0].startswith("big: 4 instances x (1 MiB + 64 x 606112 B)") and len(lines) == 2
    assert format_docker_size(2 * need) == "308m" and default_shm_size(repo) == "1g"  # 2 x need is below the floor


def test_a_small_repository_keeps_the_floor_of_1g(tmp_path: Path):
    repo = tmp_path / "repo"
    _model(repo, "tiny")
    assert default_shm_size(repo) == format_docker_size(SHM_FLOOR_BYTES) == "1g"
    cmd = ContainerRuntime(ServerOptions(repo, runtime="container")).command(_ports())
    assert "--shm-size=1g" in cmd


def _ports():
    from clients.runtimes.base import Ports

    return Ports(18000, 18001, 18002)


def test_the_container_command_uses_the_computed_size_or_the_given_one(tmp_path: Path):
    repo = tmp_path / "repo"
    _model(repo, "big", count=8, mbs=64, dims="[ 3, 512, 512 ]", out_dims="[ 3, 512, 512 ]")
    computed = default_shm_size(repo)
    assert parse_docker_size(computed) > SHM_FLOOR_BYTES  # the old fixed 1g would not do
    assert f"--shm-size={computed}" in ContainerRuntime(ServerOptions(repo, runtime="container")).command(_ports())
    assert "--shm-size=64g" in ContainerRuntime(ServerOptions(repo, runtime="container", shm_size="64g")).command(_ports())


def test_a_given_size_is_checked_before_the_container_starts(tmp_path: Path):
    repo = tmp_path / "repo"
    _model(repo, "m", count=8, mbs=32, dims="[ 1024 ]")  # 8 x (1 MiB + 32 x 8 KiB) = 10 MiB
    with pytest.raises(ServerError, match=r"--shm-size 8m is below what the python-backend models .* need in /dev/shm: 10m") as e:
        TritonServer(ServerOptions(repo, runtime="container", shm_size="8m"))
    assert "pass --shm-size 1g" in e.value.hint
    with pytest.raises(ServerError, match="--shm-size 'lots' is not a size docker takes"):
        TritonServer(ServerOptions(repo, runtime="container", shm_size="lots"))
    TritonServer(ServerOptions(repo, runtime="container", shm_size="16m"))  # enough: accepted


SHM_LOG = (
    "E1201 10:00:00.000000 1 model_lifecycle.cc:654] failed to load 'm' version 1: Internal: Failed to increase the shared "
    "memory pool size for key 'triton_python_backend_shm_region_2' to 1048576 bytes. If you are running Triton inside docker, "
    "use '--shm-size' flag to control the shared memory region size. Error: No space left on device\n"
)


def test_a_shared_memory_failure_is_explained_with_the_fix(tmp_path: Path):
    repo = tmp_path / "repo"
    _model(repo, "m")
    runtime = ContainerRuntime(ServerOptions(repo, runtime="container", shm_size="64m"))
    hint = runtime.explain(SHM_LOG)
    assert "ran out of shared memory" in hint and "--shm-size 64m" in hint and "e.g. 128m" in hint
    assert runtime.explain("E1201 failed to load 'm': some other reason") is None
    assert shm_failure_hint("nothing about memory", "1g") is None
    assert LocalRuntime(ServerOptions(repo)).explain(SHM_LOG) is None  # outside a container the fix is not --shm-size


def test_a_server_that_exits_for_shared_memory_says_so(tmp_path: Path):
    repo = tmp_path / "repo"
    _model(repo, "m")
    srv = TritonServer(ServerOptions(repo, runtime="container", shm_size="64m", log_file=tmp_path / "s.log"))
    srv.log_path.write_text(SHM_LOG)
    srv._proc = subprocess.Popen(["false"])
    srv._proc.wait()
    with pytest.raises(ServerError, match="exited with code 1 during start-up") as e:
        srv._ready_or_exited()
    assert "ran out of shared memory" in e.value.hint and "--shm-size" in e.value.hint


def test_releases_before_23_09_need_64_mib_per_python_instance(tmp_path: Path):
    from clients.runtimes.options import image_for_tag
    from clients.runtimes.shm import region_bytes

    repo = tmp_path / "repo"
    _model(repo, "m", count=8, mbs=32, dims="[ 1024 ]")  # 8 instances
    assert region_bytes(image_for_tag("23.05")) == (64 * MIB, "64 MiB per instance (release 23.05, before 23.09)")
    assert region_bytes(image_for_tag("23.09"))[0] == MIB and region_bytes(image_for_tag("24.10"))[0] == MIB
    assert region_bytes("registry.example/triton:custom")[0] == 64 * MIB  # release not known: the larger region
    old, _ = shm_need_bytes(repo, image_for_tag("23.05"))
    new, _ = shm_need_bytes(repo)
    assert old - new == 8 * 63 * MIB
    # what is fine for 24.10 is refused for 23.05, before any container starts
    TritonServer(ServerOptions(repo, runtime="container", shm_size="16m"))
    with pytest.raises(
        ServerError, match=r"--shm-size 16m is below .*: 514m, regions of 64 MiB per instance \(release 23.05"
    ) as e:
        TritonServer(ServerOptions(repo, runtime="container", shm_size="16m", image=image_for_tag("23.05")))
    assert "pass --shm-size 1027m" in (e.value.hint or "")
    cmd = ContainerRuntime(ServerOptions(repo, runtime="container", image=image_for_tag("23.05"))).command(_ports())
    assert "--shm-size=1027m" in cmd  # 2 x 514m (rounded up to a MiB), above the 1g floor
