"""A sweep on a server given by --url: a variant whose load fails says that no log of that server is kept here and
where it is, never a log file of this host (s17's left open: perf/sweep/server.py's log_name() said "the log of the
server at h:8000" in every failed variant's error, as if a log path; the server's "gone" warning named
~/.cache/.../tritonserver-<time>.log, a file of this host no server wrote)."""

from __future__ import annotations

import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from factories import run_result

from clients.runtimes.host import not_ours_short
from clients.runtimes.remote import RemoteRuntime
from clients.server import ServerOptions, TritonServer
from core.errors import ServerError
from perf.records.results import VariantResult
from perf.sweep.context import SweepBase
from perf.sweep.rounds import RoundsSweep
from perf.sweep.server import SweepServer

URL = "203.0.113.9:8000"


class _Sweep:
    """The sweep's own load of one variant (:meth:`perf.sweep.rounds.RoundsSweep._load`), its failure said as the
    sweep says it (:meth:`perf.sweep.context.SweepBase._fail`, ``_log_name``), on a fake server at :data:`URL`."""

    _load, _variant = RoundsSweep._load, RoundsSweep._variant
    _fail, _log_name = SweepBase._fail, SweepBase._log_name

    def __init__(self, tmp_path: Path, srv: Any) -> None:
        self.run = run_result([VariantResult("m")])
        self.servers = SweepServer(ServerOptions(tmp_path, urls=(URL,)), self.run, tmp_path, "sweep started", lambda: None)
        self.srv, self.plans, self.session, self.events = srv, {"m": SimpleNamespace()}, 1, []

    def _server(self) -> Any:
        return self.srv

    def _save(self) -> None:
        pass

    def progress(self, event: dict) -> None:
        self.events.append(event)


def test_a_failed_variant_on_a_url_server_names_no_log_file_of_this_host(tmp_path: Path) -> None:
    def refused(name: str) -> None:
        raise ServerError(f"the server at http://{URL} could not load model '{name}': boom")

    srv = SimpleNamespace(http_url=URL, log_path=tmp_path / "tritonserver-1.log", load=refused)
    sweep = _Sweep(tmp_path, srv)
    assert sweep._load(None, "m") is False  # type: ignore[arg-type]
    error = sweep.run.variant("m").error or ""
    assert error == f"the server at http://{URL} could not load model 'm': boom (server log: {not_ours_short(URL)})"
    assert "none kept here: the server at http://203.0.113.9:8000 was not started by this command" in error
    assert "the log of the server at" not in error and ".log" not in error and str(tmp_path) not in error, error
    assert [e["error"] for e in sweep.events if e["event"] == "variant_failed"] == [error]


def test_a_url_server_gone_is_said_without_a_log_file_of_this_host(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(RemoteRuntime, "check", lambda self: None)  # no server at URL to ask
    server = SweepServer(ServerOptions(tmp_path, urls=(URL,)), run_result(), tmp_path, "sweep started", lambda: None)
    gone = TritonServer(ServerOptions(tmp_path, urls=(URL,)))
    monkeypatch.setattr(gone, "is_alive", lambda: False)
    server.current = gone
    server._reason = None  # it went away on its own
    monkeypatch.setattr(server, "_start", lambda: "reached again")
    with caplog.at_level(logging.WARNING, logger="perf.sweep.server"):
        assert server.get() == "reached again"
    said = " ".join(r.getMessage() for r in caplog.records)
    # the log's words are log_name()'s; the toolkit never started it, so it does not restart it (it said "restarting it")
    assert f"tritonserver is gone (its log: {not_ours_short(URL)}); waiting for it to be ready again" in said, said
    assert str(gone.log_path) not in said and "restart" not in said, said


def test_a_started_server_gone_names_its_log_in_the_run_folder_and_restarts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    server = SweepServer(ServerOptions(tmp_path), run_result(), tmp_path, "sweep started", lambda: None)
    gone = SimpleNamespace(
        is_alive=lambda: False, log_path=tmp_path / "tritonserver-1.log", runtime_impl=SimpleNamespace(launches=False)
    )
    server.current = gone  # type: ignore[assignment]
    server._reason = None
    monkeypatch.setattr(server, "_start", lambda: "started again")
    with caplog.at_level(logging.WARNING, logger="perf.sweep.server"):
        assert server.get() == "started again"
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "tritonserver is gone (its log: tritonserver-1.log); restarting it" in said, said
