"""Runtime unit tests without a server: each runtime's command line from the same options,
the container command, the ``auto`` choice, ``--print-cmd``, and the container guardian
(with a fake ``docker``)."""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from clients.runtimes.base import Ports, server_args
from clients.runtimes.bundled import BundledRuntime
from clients.runtimes.choose import AUTO_ORDER, RUNTIME_CLASSES, RUNTIMES, resolve_runtime
from clients.runtimes.container import ContainerRuntime
from clients.runtimes.host import HeldPorts
from clients.runtimes.local import LocalRuntime
from clients.runtimes.options import ServerOptions, image_for_tag
from clients.server import TritonServer
from core.errors import ServerError

PORTS = Ports(18000, 18001, 18002)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    r.mkdir()
    return r


@pytest.fixture
def fake_binary(tmp_path: Path) -> Path:
    fake = tmp_path / "bin" / "tritonserver"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    return fake


def test_every_runtime_builds_its_command_from_the_same_options(repo: Path, fake_binary: Path) -> None:
    """One ServerOptions, three command lines: the tritonserver flags are the same except the
    repository path (mounted at /models in a container) and the listen address (published by docker)."""
    opts = ServerOptions(
        repo,
        http_port=PORTS.http,
        grpc_port=PORTS.grpc,
        metrics_port=PORTS.metrics,
        load_models=("m1", "m2"),
        log_verbose=1,
        metrics_interval_ms=250,
        exit_timeout_s=7,
        extra_args=("--log-info=true",),
        binary=fake_binary,
        image=image_for_tag("24.05"),
        gpus="device=0",
        shm_size="2g",
    )
    repo_path = str(repo.resolve())
    bundled = BundledRuntime(opts).command(PORTS)
    local = LocalRuntime(opts).command(PORTS)
    container = ContainerRuntime(opts).command(PORTS)
    common = server_args(opts, PORTS, repo_path)
    # bundled: the wheel's binary with its python backend, then the common flags
    assert bundled[0].endswith("pytriton/tritonserver/bin/tritonserver")
    assert bundled[1].startswith("--backend-directory=") and bundled[1].endswith("tritonserver/backends")
    assert bundled[2:] == common
    # local: the binary as is (its own backends), then the same flags
    assert local == [str(fake_binary), *common]
    # container: docker run ... image tritonserver, flags without address binding, repository at /models
    i = container.index("nvcr.io/nvidia/tritonserver:24.05-py3")
    assert container[:4] == ["docker", "run", "--rm", "--init"] and container[i + 1] == "tritonserver"
    assert container[i + 2 :] == server_args(opts, PORTS, "/models", bind_address=False)
    assert [
        a for a in common if not a.startswith(("--model-repository=", "--http-address=", "--grpc-address=", "--metrics-address="))
    ] == [a for a in container[i + 2 :] if not a.startswith("--model-repository=")]
    for flag in (
        "--http-port=18000",
        "--grpc-port=18001",
        "--metrics-port=18002",
        "--load-model=m1",
        "--load-model=m2",
        "--log-verbose=1",
        "--metrics-interval-ms=250",
        "--exit-timeout-secs=7",
        "--model-control-mode=explicit",
    ):
        assert flag in common
    assert common[-1] == "--log-info=true"
    assert "--http-address=127.0.0.1" in common and "--metrics-address=127.0.0.1" in common
    # environment: bundled needs its libraries and the site-packages; bundled and local torch's OpenMP wait policy
    # (the one rule of builders.serving.torch_env, for the stubs' torch and a native LibTorch backend)
    assert set(BundledRuntime(opts).environment()) == {"LD_LIBRARY_PATH", "TRITON_TOOLKIT_SITE_PACKAGES", "OMP_WAIT_POLICY"}
    assert set(LocalRuntime(opts).environment()) <= {"TRITON_TOOLKIT_SITE_PACKAGES", "OMP_WAIT_POLICY"}
    assert ContainerRuntime(opts).environment() == {}


def test_the_runtime_names_are_the_registry(repo: Path) -> None:
    assert RUNTIMES == ("auto", "bundled", "local", "container", "remote")
    assert set(AUTO_ORDER) == set(RUNTIME_CLASSES) - {"remote"}  # auto starts a server; remote is chosen by --url
    for name, cls in RUNTIME_CLASSES.items():
        urls = ("127.0.0.1:8000",) if name == "remote" else ()
        runtime, why = resolve_runtime(ServerOptions(repo, runtime=name, urls=urls))
        assert isinstance(runtime, cls) and runtime.name == name and why == "asked for"


def test_container_command_line(repo: Path) -> None:
    held = HeldPorts([0, 0, 0])  # fixed ports, or free ones let go, collide with servers of parallel runs
    http, grpc, metrics = held.ports
    (repo / "m1").mkdir()
    (repo / "m1" / "config.pbtxt").write_text('name: "m1"\nbackend: "python"\n')
    opts = ServerOptions(
        repo,
        runtime="container",
        image=image_for_tag("24.05"),
        gpus="device=1",
        shm_size="2g",
        http_port=http,
        grpc_port=grpc,
        metrics_port=metrics,
        load_models=("m1",),
        extra_args=("--exit-timeout-secs=5",),
    )
    srv = TritonServer(opts)
    cmd = srv.command
    assert cmd[:4] == ["docker", "run", "--rm", "--init"]
    assert srv.container_name == f"tritonserver-{os.getpid()}-{http}" and f"--name={srv.container_name}" in cmd
    assert "--gpus=device=1" in cmd and "--shm-size=2g" in cmd
    for port in (http, grpc, metrics):
        assert f"127.0.0.1:{port}:{port}" in cmd
    assert f"{repo.resolve()}:/models:ro" in cmd
    i = cmd.index("nvcr.io/nvidia/tritonserver:24.05-py3")
    assert cmd[i + 1] == "tritonserver"
    server = cmd[i + 2 :]
    assert "--model-repository=/models" in server and f"--http-port={http}" in server
    assert "--model-control-mode=explicit" in server and "--load-model=m1" in server
    assert server[-1] == "--exit-timeout-secs=5"
    # inside the container the server listens on all its interfaces; publishing limits the address
    assert not any(a.startswith("--http-address") for a in server)
    assert srv.http_url == f"localhost:{http}"


def test_container_without_gpus_and_on_another_address(repo: Path) -> None:
    srv = TritonServer(ServerOptions(repo, runtime="container", gpus="", address="0.0.0.0"))
    assert not any(a.startswith("--gpus") for a in srv.command)
    assert f"0.0.0.0:{srv.http_port}:{srv.http_port}" in srv.command


def test_image_for_tag() -> None:
    assert image_for_tag("24.10") == "nvcr.io/nvidia/tritonserver:24.10-py3"
    assert image_for_tag("24.10-py3-igpu") == "nvcr.io/nvidia/tritonserver:24.10-py3-igpu"


def test_print_cmd_shows_the_container_command(repo: Path) -> None:
    """A full suite failed here once: the test let go of a free HTTP port P and asked for it alone, so Triton's layout
    put gRPC at P + 1, which another test's server had taken ("grpc port 53552 ... already in use"). Its ports are
    held now, all three given; P + 1 is taken here to show that nothing rests on it."""
    import socket

    from clients.cli.launch import serve_command

    held = HeldPorts([0, 0, 0])
    port, grpc, metrics = held.ports
    with socket.socket() as taken:  # P + 1 in use, as in the failure: by this socket, or by whatever holds it already
        with contextlib.suppress(OSError):
            taken.bind(("127.0.0.1", port + 1))
            taken.listen()
        ports = ["--http-port", str(port), "--grpc-port", str(grpc), "--metrics-port", str(metrics)]
        argv = ["-r", str(repo), "--runtime", "container", "--tag", "23.12", *ports, "--print-cmd", "--", "--exit-timeout-secs=3"]
        res = CliRunner().invoke(serve_command(), argv)
    assert res.exit_code == 0, res.output
    line = res.output.strip()
    assert line.startswith("docker run --rm --init") and "nvcr.io/nvidia/tritonserver:23.12-py3" in line
    assert f"--http-port={port}" in line and f"--grpc-port={grpc}" in line and line.endswith("--exit-timeout-secs=3")


def test_a_launched_servers_ports_are_held_from_their_choice_until_it_stops(repo: Path) -> None:
    """Free ports were chosen by binding port 0 and letting it go: until the server bound them, seconds later,
    another process could take one (another test's server did). They are held now, and let go at stop()."""
    import socket

    srv = TritonServer(ServerOptions(repo, runtime="bundled"))  # built, not started: what --print-cmd and a sweep do
    ports = (srv.http_port, srv.grpc_port, srv.metrics_port)
    for port in ports:
        with socket.socket() as other, pytest.raises(OSError):  # another process binding it: refused
            other.bind(("127.0.0.1", port))
    with socket.socket() as server:  # tritonserver binds its listeners with SO_REUSEADDR: it takes a held port
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", srv.grpc_port))
        server.listen()
    srv.stop()
    for port in ports:
        with socket.socket() as other:
            other.bind(("127.0.0.1", port))


def test_bundled_command_listens_on_loopback_and_sets_its_environment(repo: Path) -> None:
    srv = TritonServer(ServerOptions(repo, runtime="bundled", extra_args=("--log-info=true",)))
    assert "--http-address=127.0.0.1" in srv.command and "--grpc-address=127.0.0.1" in srv.command
    assert any(a.startswith("--backend-directory=") for a in srv.command)
    assert "LD_LIBRARY_PATH=" in srv.command_line and "TRITON_TOOLKIT_SITE_PACKAGES=" in srv.command_line
    assert srv.command[-1] == "--log-info=true"


def test_auto_says_which_runtime_and_why(tmp_path: Path, fake_binary: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    auto = ServerOptions(tmp_path, runtime="auto")
    monkeypatch.setenv("TRITONSERVER", str(fake_binary))
    runtime, why = resolve_runtime(auto)
    assert (runtime.name, why) == ("local", f"a tritonserver binary was found at {fake_binary}")
    assert TritonServer(auto).command[0] == str(fake_binary)
    monkeypatch.delenv("TRITONSERVER")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    runtime, why = resolve_runtime(auto)
    assert runtime.name == "bundled" and "no local tritonserver" in why
    # an explicit --tritonserver wins over PATH; a missing one is refused, never passed over for the bundled server
    # (tests/clients/runtimes/test_ignored_flags_unit.py)
    runtime, why = resolve_runtime(ServerOptions(tmp_path, runtime="auto", binary=fake_binary))
    assert runtime.name == "local" and str(fake_binary) in why
    with pytest.raises(ServerError, match="no local tritonserver found"):
        TritonServer(ServerOptions(tmp_path, runtime="local"))
    with pytest.raises(ServerError, match="unknown server runtime"):
        resolve_runtime(ServerOptions(tmp_path, runtime="kubernetes"))


def test_auto_picks_the_container_where_a_docker_engine_and_a_gpu_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for tool, rc in (("docker", 0), ("nvidia-smi", 0)):
        (bindir / tool).write_text(f"#!/bin/sh\nexit {rc}\n")
        (bindir / tool).chmod(0o755)
    monkeypatch.delenv("TRITONSERVER", raising=False)
    monkeypatch.setenv("PATH", str(bindir))
    runtime, why = resolve_runtime(ServerOptions(tmp_path, runtime="auto"))
    assert runtime.name == "container" and why == "a Docker engine and an NVIDIA GPU are available"
    (bindir / "docker").write_text("#!/bin/sh\nexit 1\n")  # a client without an engine
    assert resolve_runtime(ServerOptions(tmp_path, runtime="auto"))[0].name == "bundled"


def test_container_is_removed_when_its_launcher_is_killed(tmp_path: Path) -> None:
    """A SIGKILLed ``docker run`` client leaves its container running; the guardian removes it."""
    calls = tmp_path / "docker-calls"
    bindir = tmp_path / "bin"
    bindir.mkdir()
    docker = bindir / "docker"
    docker.write_text(f'#!/bin/sh\necho "$@" >> {calls}\n')
    docker.chmod(0o755)
    launcher = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent("""
            import time
            from clients.runtimes.container import start_container_guardian
            start_container_guardian("tritonserver-test")
            print("guarded", flush=True)
            time.sleep(60)
        """),
        ],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PATH": f"{bindir}:{os.environ['PATH']}"},
        cwd=Path(__file__).resolve().parents[3],
    )
    try:
        assert launcher.stdout.readline().strip() == "guarded"
        assert not calls.exists()
        os.kill(launcher.pid, signal.SIGKILL)
        launcher.wait(10)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not calls.exists():
            time.sleep(0.1)
        assert calls.read_text().strip() == "rm -f tritonserver-test"
    finally:
        if launcher.poll() is None:
            launcher.kill()


def test_container_runtime_removes_its_container_after_a_stop(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """before_start starts the guardian for the named container; after_stop makes it remove it, once."""
    calls = tmp_path / "docker-calls"
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "docker").write_text(f'#!/bin/sh\necho "$@" >> {calls}\n')
    (bindir / "docker").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:{os.environ['PATH']}")
    rt = ContainerRuntime(ServerOptions(repo))
    rt.command(PORTS)
    rt.before_start()
    rt.after_stop()
    rt.after_stop()
    assert calls.read_text().split("\n")[0] == f"rm -f tritonserver-{os.getpid()}-{PORTS.http}"
    assert calls.read_text().count("rm -f") == 1


@pytest.mark.parametrize("how", ["flag", "env", "bare"])
def test_a_relative_binary_is_printed_absolute(repo: Path, fake_binary: Path, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """s19: ``--tritonserver bin/tritonserver --print-cmd`` printed ``bin/tritonserver``, a command that runs only in
    the folder it was typed in (the repository in it is absolute); ``$TRITONSERVER`` the same. A bare name
    (``--tritonserver tritonserver``) is the file here that was checked, not one Popen would look up on PATH."""
    monkeypatch.chdir(fake_binary.parent.parent if how != "bare" else fake_binary.parent)
    named = Path("tritonserver") if how == "bare" else Path("bin/tritonserver")
    monkeypatch.delenv("TRITONSERVER", raising=False)
    if how == "env":
        monkeypatch.setenv("TRITONSERVER", str(named))
    opts = ServerOptions(repo, runtime="local", binary=None if how == "env" else named)
    assert LocalRuntime(opts).command(PORTS)[0] == str(fake_binary)
    printed = [w for w in shlex.split(TritonServer(opts).command_line) if "=" not in w]  # past the environment's
    assert printed[0] == str(fake_binary)
