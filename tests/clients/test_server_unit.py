"""TritonServer unit tests without a real server: option and port checks, the log tail, the
shared click options, start-up failures of fake servers, and a runtime that launches nothing."""

from __future__ import annotations

import signal
import socket
import time
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from clients.cli.options import server_options
from clients.runtimes.base import Ports, Runtime
from clients.runtimes.host import HeldPorts
from clients.runtimes.models import unload_and_wait
from clients.server import ServerOptions, TritonServer
from core.errors import ServerError


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    r.mkdir()
    return r


def test_busy_port_and_bad_options_are_refused_before_starting(repo: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(ServerError, match=f"http port {port} on 127.0.0.1 is already in use"):
            TritonServer(ServerOptions(repo, runtime="bundled", http_port=port))
    with pytest.raises(ServerError, match="need explicit model control"):
        TritonServer(ServerOptions(repo, runtime="bundled", model_control="none", load_models=("m",)))
    with pytest.raises(ServerError, match="unknown model control mode"):
        TritonServer(ServerOptions(repo, runtime="bundled", model_control="sometimes"))
    with pytest.raises(ServerError, match="does not exist"):
        TritonServer(ServerOptions(repo / "missing", runtime="bundled"))


def test_log_tail_puts_earlier_errors_first(repo: Path, tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    lines = [
        'E1130 08:00:00.000 1 server.cc:241] "CudaDriverHelper has not been initialized."',
        "E1130 08:00:01.000 1 model_repository_manager.cc:1] \"failed to load 'm'\"",
        *[f"I line {i}" for i in range(50)],
    ]
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

    res = CliRunner().invoke(
        cmd,
        [
            "-r",
            str(tmp_path),
            "--runtime",
            "bundled",
            "--http-port",
            "9000",
            "--load-model",
            "a",
            "--load-model",
            "b",
            "--server-arg=--exit-timeout-secs=1",
            "--log-verbose",
            "2",
            "--metrics-interval-ms",
            "250",
            "--tag",
            "24.01",
            "--address",
            "0.0.0.0",
        ],
    )
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
    defaults = ServerOptions(tmp_path)  # the flags' defaults are the API's
    res = CliRunner().invoke(cmd, ["-r", str(tmp_path)])
    assert res.exit_code == 0, res.output
    o = seen["a"]
    assert (
        o.runtime,
        o.address,
        o.model_control,
        o.log_verbose,
        o.metrics_interval_ms,
        o.start_timeout_s,
        o.image,
        o.gpus,
        o.shm_size,
    ) == (
        defaults.runtime,
        defaults.address,
        defaults.model_control,
        defaults.log_verbose,
        defaults.metrics_interval_ms,
        defaults.start_timeout_s,
        defaults.image,
        defaults.gpus,
        defaults.shm_size,
    )


def _fake_server(tmp_path: Path, body: str) -> Path:
    exe = tmp_path / "fake-tritonserver"
    exe.write_text("#!/bin/sh\n" + body)
    exe.chmod(0o755)
    return exe


def test_a_server_that_exits_during_start_up_fails_at_once_with_its_log(repo: Path, tmp_path: Path) -> None:
    exe = _fake_server(tmp_path, "echo 'E1130 08:00:00.000 1 server.cc:1] boom: no such backend'\nexit 3\n")
    srv = TritonServer(ServerOptions(repo, runtime="local", binary=exe, start_timeout_s=60, log_file=tmp_path / "s.log"))
    t0 = time.monotonic()
    with pytest.raises(ServerError, match=r"exited with code 3 during start-up; last lines of its log:\n.*boom") as e:
        srv.start()
    assert time.monotonic() - t0 < 20  # not the 60 s readiness timeout
    assert e.value.log_path == str(tmp_path / "s.log") and "usual causes" in e.value.hint


def test_a_server_that_never_gets_ready_times_out_and_is_stopped(repo: Path, tmp_path: Path) -> None:
    exe = _fake_server(tmp_path, "echo 'pretending to start'\nexec sleep 60\n")
    srv = TritonServer(ServerOptions(repo, runtime="local", binary=exe, start_timeout_s=1, log_file=tmp_path / "slow.log"))
    t0 = time.monotonic()
    with pytest.raises(ServerError, match=r"not ready within 1 s; last lines of its log:\npretending to start") as e:
        srv.start()
    assert 1 <= time.monotonic() - t0 < 15
    assert "--start-timeout" in e.value.hint and not srv.is_alive()


def test_a_launcher_with_sigint_ignored_still_stops_its_server_gracefully(repo: Path, tmp_path: Path) -> None:
    """A launcher in the background of a non-interactive shell (``cmd &``, CI) inherits SIGINT
    ignored; the server it starts must not, or the graceful stop waits out the exit timeout."""
    exe = _fake_server(tmp_path, "echo 'pretending to start'\nexec sleep 60\n")
    srv = TritonServer(ServerOptions(repo, runtime="local", binary=exe, start_timeout_s=1, log_file=tmp_path / "s.log"))
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        t0 = time.monotonic()
        with pytest.raises(ServerError, match="not ready within 1 s"):
            srv.start()
        took = time.monotonic() - t0
    finally:
        signal.signal(signal.SIGINT, old)
    assert took < ServerOptions(repo).exit_timeout_s and not srv.is_alive()


class _Elsewhere(Runtime):
    """A server this launcher does not start (the shape of the planned remote runtime)."""

    name = "elsewhere"
    launches = False

    def host(self) -> str:
        return "127.0.0.1"

    def command(self, ports: Ports) -> list[str]:
        raise AssertionError("a runtime that launches nothing is never asked for a command")


def test_a_runtime_that_launches_nothing_is_only_waited_for(tmp_path: Path) -> None:
    opts = ServerOptions(tmp_path / "not-here", http_port=1, grpc_port=2, metrics_port=3, start_timeout_s=1)
    srv = TritonServer(opts, runtime=_Elsewhere(opts))  # no repository check, no port check, no command
    assert (srv.runtime, srv.command, srv.http_url, srv.metrics_url) == ("elsewhere", [], "127.0.0.1:1", "127.0.0.1:3/metrics")
    with pytest.raises(ServerError, match=r"was not live within 1 s \(--start-timeout\); it answered: no answer"):
        srv.start()  # liveness is waited on, never the server's readiness
    srv.stop()  # nothing to stop
    assert srv.pid is None and srv.wait() is None


def test_held_free_ports_are_distinct():
    held = HeldPorts([0, 0, 0])
    try:
        assert len(set(held.ports)) == 3 and all(1024 <= p <= 65535 for p in held.ports)
    finally:
        held.release()


class _FakeClient:
    """A tritonclient stand-in whose model stays ready for ``ready_polls`` polls after the
    unload, then stays listed as ``UNLOADING`` for ``unloading_polls`` more index reads."""

    def __init__(self, ready_polls: int, unloading_polls: int = 0) -> None:
        self.ready_polls, self.unloading_polls, self.calls = ready_polls, unloading_polls, []

    def unload_model(self, model: str) -> None:
        self.calls.append(("unload", model))

    def is_model_ready(self, model: str) -> bool:
        self.calls.append(("ready?", model))
        self.ready_polls -= 1
        return self.ready_polls >= 0

    def get_model_repository_index(self) -> list[dict]:
        self.calls.append(("index", ""))
        self.unloading_polls -= 1
        return [
            {"name": "m", "version": "1", "state": "UNLOADING" if self.unloading_polls >= 0 else "UNAVAILABLE"},
            {"name": "other", "version": "1", "state": "READY"},
        ]


def test_unload_waits_until_the_model_is_gone(caplog: pytest.LogCaptureFixture) -> None:
    c = _FakeClient(ready_polls=2)
    assert unload_and_wait(c, "m", timeout_s=10) is True
    assert c.calls == [("unload", "m"), ("ready?", "m"), ("ready?", "m"), ("ready?", "m"), ("index", "")]
    stuck = _FakeClient(ready_polls=10**6)
    t0 = time.monotonic()
    assert unload_and_wait(stuck, "m", timeout_s=0.5) is False
    assert 0.5 <= time.monotonic() - t0 < 5 and stuck.calls.count(("unload", "m")) == 1
    assert "m still READY 0.5 s after its unload request" in caplog.text


def test_a_model_that_is_not_ready_but_still_unloading_is_not_gone(caplog: pytest.LogCaptureFixture) -> None:
    # Triton: a python model's finalize() still runs; ready is false from the unload request on
    c = _FakeClient(ready_polls=0, unloading_polls=3)
    assert unload_and_wait(c, "m", timeout_s=10) is True
    assert c.calls.count(("index", "")) == 4  # polled until the index said UNAVAILABLE
    stuck = _FakeClient(ready_polls=0, unloading_polls=10**6)
    assert unload_and_wait(stuck, "m", timeout_s=0.5) is False
    assert "m still UNLOADING 0.5 s after its unload request" in caplog.text


def _hold_from(q: int) -> HeldPorts | None:
    """Ports ``q`` to ``q + 2`` held (:class:`HeldPorts`), or ``None`` where one is in use."""
    try:
        return HeldPorts([q, q + 1, q + 2])
    except OSError:
        return None


def test_only_an_http_port_puts_grpc_and_metrics_at_triton_layout(tmp_path: Path) -> None:
    held = next(h for q in range(21000, 60000, 7) if (h := _hold_from(q)) is not None)  # three in a row, held
    p = held.ports[0]
    opts = ServerOptions(tmp_path, runtime="bundled", http_port=p)
    srv = TritonServer(opts)
    assert (srv.http_port, srv.grpc_port, srv.metrics_port) == (p, p + 1, p + 2)  # what --url HOST:P assumes
    assert f"--grpc-port={p + 1}" in srv.command and f"--metrics-port={p + 2}" in srv.command
    grpc = HeldPorts([0])
    apart = TritonServer(ServerOptions(tmp_path, runtime="bundled", http_port=p, grpc_port=grpc.ports[0]))
    assert apart.grpc_port == grpc.ports[0] and apart.metrics_port not in (0, p + 2)  # given apart: a free one for the rest
    with socket.socket() as s:  # a server listening there (over the hold, as tritonserver binds)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", p + 1))
        s.listen()
        with pytest.raises(ServerError, match=rf"grpc port {p + 1} \(HTTP port {p} \+ 1: Triton's layout\) .* in use"):
            TritonServer(opts)
