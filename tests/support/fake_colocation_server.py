"""A stand-in for :class:`clients.server.TritonServer` on another host (not sampled), for the
``perf colocate`` command's tests: it starts, loads and unloads at once, and answers nothing else."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from factories import served_model

from clients.runtimes.served import Loaded


class FakeColocationServer:
    def __init__(self) -> None:
        self.grpc_url, self.http_url, self.metrics_url = "203.0.113.9:8001", "203.0.113.9:8000", "203.0.113.9:8002/metrics"
        self.container_name, self.pid = None, None
        self.runtime_impl = type("R", (), {"host": staticmethod(lambda: "203.0.113.9")})()
        self.runtime, self.command_line = "fake", "tritonserver --fake"

    def start(self) -> FakeColocationServer:
        return self

    def stop(self) -> None:
        pass

    def load(self, name: str) -> Loaded:
        return Loaded(served_model(name), 0.01)

    def unload(self, name: str) -> bool:
        return True


def fake_server_source(
    monkeypatch: Any, visit: Callable[..., Any] | None = None, server: Callable[[Any], Any] | None = None
) -> None:
    """``perf colocate``'s server side faked for a CLI test: ``ServerSource.visit`` is ``visit`` (left real when
    ``None``), no inputs are made nor warm-up sent, and each server started is ``server(opts)`` (default: a
    :class:`FakeColocationServer`)."""
    import perf.colocate.run as run_module
    from perf.colocate.run import ServerSource

    if visit is not None:
        monkeypatch.setattr(ServerSource, "visit", visit)
    monkeypatch.setattr(ServerSource, "_inputs", lambda self, v: [])
    monkeypatch.setattr(ServerSource, "_warmup", lambda self, v: None)
    monkeypatch.setattr(run_module, "TritonServer", server or (lambda opts: FakeColocationServer()))
