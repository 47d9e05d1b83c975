"""Launcher unit tests without a server: container command line, runtime choice, option
checks, the shared click options, and the container guardian (with a fake ``docker``)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from core.errors import ServerError
from clients.cli_options import server_options
from clients.server import ServerOptions, TritonServer, image_for_tag, resolve_runtime


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    r.mkdir()
    return r


def test_container_command_line(repo: Path) -> None:
    opts = ServerOptions(repo, runtime="container", image=image_for_tag("24.05"), gpus="device=1", shm_size="2g",
                         http_port=18000, grpc_port=18001, metrics_port=18002, load_models=("m1",),
                         extra_args=("--exit-timeout-secs=5",))
    srv = TritonServer(opts)
    cmd = srv.command
    assert cmd[:4] == ["docker", "run", "--rm", "--init"]
    assert f"--name={srv.container_name}" in cmd
    assert "--gpus=device=1" in cmd and "--shm-size=2g" in cmd
    for port in (18000, 18001, 18002):
        assert f"127.0.0.1:{port}:{port}" in cmd
    assert f"{repo.resolve()}:/models:ro" in cmd
    i = cmd.index("nvcr.io/nvidia/tritonserver:24.05-py3")
    assert cmd[i + 1] == "tritonserver"
    server = cmd[i + 2:]
    assert "--model-repository=/models" in server and "--http-port=18000" in server
    assert "--model-control-mode=explicit" in server and "--load-model=m1" in server
    assert server[-1] == "--exit-timeout-secs=5"
    # inside the container the server listens on all its interfaces; publishing limits the address
    assert not any(a.startswith("--http-address") for a in server)
    assert srv.http_url == "localhost:18000"


def test_container_without_gpus_and_on_another_address(repo: Path) -> None:
    srv = TritonServer(ServerOptions(repo, runtime="container", gpus="", address="0.0.0.0"))
    assert not any(a.startswith("--gpus") for a in srv.command)
    assert f"0.0.0.0:{srv.http_port}:{srv.http_port}" in srv.command


def test_image_for_tag() -> None:
    assert image_for_tag("24.10") == "nvcr.io/nvidia/tritonserver:24.10-py3"
    assert image_for_tag("24.10-py3-igpu") == "nvcr.io/nvidia/tritonserver:24.10-py3-igpu"


def test_print_cmd_shows_the_container_command(repo: Path) -> None:
    from clients.launch import serve_command

    res = CliRunner().invoke(serve_command(), ["-r", str(repo), "--runtime", "container", "--tag", "23.12", "--http-port", "18100",
                                               "--print-cmd", "--", "--exit-timeout-secs=3"])
    assert res.exit_code == 0, res.output
    line = res.output.strip()
    assert line.startswith("docker run --rm --init") and "nvcr.io/nvidia/tritonserver:23.12-py3" in line
    assert "--http-port=18100" in line and line.endswith("--exit-timeout-secs=3")


def test_bundled_command_listens_on_loopback_and_sets_its_environment(repo: Path) -> None:
    srv = TritonServer(ServerOptions(repo, runtime="bundled", extra_args=("--log-info=true",)))
    assert "--http-address=127.0.0.1" in srv.command and "--grpc-address=127.0.0.1" in srv.command
    assert any(a.startswith("--backend-directory=") for a in srv.command)
    assert "LD_LIBRARY_PATH=" in srv.command_line and "TRITON_TOOLKIT_SITE_PACKAGES=" in srv.command_line
    assert srv.command[-1] == "--log-info=true"


def test_auto_says_which_runtime_and_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "tritonserver"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("TRITONSERVER", str(fake))
    assert resolve_runtime("auto") == ("local", f"a tritonserver binary was found at {fake}")
    monkeypatch.delenv("TRITONSERVER")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    runtime, why = resolve_runtime("auto")
    assert runtime == "bundled" and "no local tritonserver" in why
    with pytest.raises(ServerError, match="no local tritonserver found"):
        TritonServer(ServerOptions(tmp_path, runtime="local"))
    with pytest.raises(ServerError, match="unknown server runtime"):
        resolve_runtime("kubernetes")


def test_busy_port_and_bad_options_are_refused_before_starting(repo: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(ServerError, match=f"http port {port} on 127.0.0.1 is already in use"):
            TritonServer(ServerOptions(repo, runtime="bundled", http_port=port))
    with pytest.raises(ServerError, match="need explicit model control"):
        TritonServer(ServerOptions(repo, runtime="bundled", model_control="none", load_models=("m",)))
    with pytest.raises(ServerError, match="does not exist"):
        TritonServer(ServerOptions(repo / "missing", runtime="bundled"))


def test_log_tail_puts_earlier_errors_first(repo: Path, tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    lines = ['E1130 08:00:00.000 1 server.cc:241] "CudaDriverHelper has not been initialized."',
             "E1130 08:00:01.000 1 model_repository_manager.cc:1] \"failed to load 'm'\"", *[f"I line {i}" for i in range(50)]]
    log.write_text("\n".join(lines) + "\n")
    srv = TritonServer(ServerOptions(repo, runtime="bundled", log_file=log))
    tail = srv.log_tail(5).splitlines()
    assert tail[0].endswith("\"failed to load 'm'\"") and tail[1] == "..." and tail[-1] == "I line 49"
    assert not any("CudaDriverHelper" in t for t in tail)


def test_server_options_decorator_builds_server_options(tmp_path: Path) -> None:
    seen = {}

    @click.command()
    @server_options
    def cmd(server_opts: ServerOptions) -> None:
        seen["a"] = server_opts

    @click.command()
    @click.option("--repository", type=click.Path(path_type=Path))
    @server_options(repository_flag=False)
    def own_repo(server_opts: ServerOptions, repository: Path) -> None:
        seen["b"] = (server_opts, repository)

    res = CliRunner().invoke(cmd, ["-r", str(tmp_path), "--runtime", "bundled", "--http-port", "9000", "--load-model", "a",
                                   "--load-model", "b", "--server-arg=--exit-timeout-secs=1", "--log-verbose", "2",
                                   "--metrics-interval-ms", "250", "--tag", "24.01", "--address", "0.0.0.0"])
    assert res.exit_code == 0, res.output
    o = seen["a"]
    assert (o.repository, o.runtime, o.http_port, o.grpc_port) == (tmp_path, "bundled", 9000, 0)
    assert o.load_models == ("a", "b") and o.extra_args == ("--exit-timeout-secs=1",)
    assert (o.log_verbose, o.metrics_interval_ms, o.address) == (2, 250, "0.0.0.0")
    assert o.image == "nvcr.io/nvidia/tritonserver:24.01-py3" and o.model_control == "explicit"
    res = CliRunner().invoke(own_repo, ["--repository", str(tmp_path), "--image", "my/triton:1"])
    assert res.exit_code == 0, res.output
    o, r = seen["b"]
    assert o.repository == r == tmp_path and o.image == "my/triton:1" and o.runtime == "auto"


def test_container_is_removed_when_its_launcher_is_killed(tmp_path: Path) -> None:
    """A SIGKILLed ``docker run`` client leaves its container running; the guardian removes it."""
    calls = tmp_path / "docker-calls"
    bindir = tmp_path / "bin"
    bindir.mkdir()
    docker = bindir / "docker"
    docker.write_text(f'#!/bin/sh\necho "$@" >> {calls}\n')
    docker.chmod(0o755)
    launcher = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent("""
            import time
            from clients.server import start_container_guardian
            start_container_guardian("tritonserver-test")
            print("guarded", flush=True)
            time.sleep(60)
        """)],
        stdout=subprocess.PIPE, text=True, env={**os.environ, "PATH": f"{bindir}:{os.environ['PATH']}"}, cwd=Path(__file__).parent.parent,
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


def test_free_ports_are_distinct():
    from clients.server import free_ports

    ports = free_ports(3)
    assert len(set(ports)) == 3 and all(1024 <= p <= 65535 for p in ports)
