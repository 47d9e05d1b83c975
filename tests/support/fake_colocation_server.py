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
        self.runtime_impl = type(
            "R",
            (),
            {"host": staticmethod(lambda: "203.0.113.9"), "launches": True, "wait_policy": staticmethod(lambda: "PASSIVE")},
        )()
        self.runtime, self.runtime_reason, self.command_line = "fake", "a test's fake", "tritonserver --fake"

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


def invoke_faked(tmp_path: Any, monkeypatch: Any, variants: dict[str, int], *extra: str) -> Any:
    """``perf colocate`` run through the command on a faked server (:func:`fake_server_source`), each visit 100 infer/s
    and p99 5 ms for every model, over a repository of ``variants`` (name -> instances; models "big" and "small")
    under ``tmp_path``, results in ``tmp_path/results``, run id ``r``, with the ``extra`` arguments: click's result."""
    from click.testing import CliRunner
    from colocation_repo import colocate_argv

    from perf.cli.main import cli
    from perf.records.colocation_measured import ColocationVisit, ModelSample

    def fake_visit(self, step, round_index, order, combination):  # type: ignore[no-untyped-def]
        samples = [ModelSample(m, v, 100.0, 5.0) for m, v in combination.items()]
        return ColocationVisit(step, round_index, order, dict(combination), samples, wall_s=0.1)

    fake_server_source(monkeypatch, fake_visit)
    _repo, _results, args = colocate_argv(tmp_path, variants)
    return CliRunner().invoke(cli, [*args, "--model", "big=big_*", "--model", "small=small_*", *extra])
