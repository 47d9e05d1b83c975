"""A stop (Ctrl-C, SIGTERM) that comes while a command stops its tritonserver, every variant done: the server's stop
holds it until the server is gone, then raises it (core.processes.held_stops; break-it F24's second case, where it
was swallowed). Then the command still keeps and shows all it measured, says the stop, and exits by it: a
``clients check`` keeps every row, a ``triton-perf coldstart`` shows (and with --into files) every record. The server here is a stand-in whose
stop ends with that raised stop."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner

import clients.check as check
from clients.check import CheckResult
from clients.check_stop import CheckInterrupted
from clients.server import ServerOptions
from core.cli import EXIT_INTERRUPTED


class StoppedAtItsStop:
    """A server whose stop ends with the stop that came meanwhile (held_stops raises it once the server is gone)."""

    runtime, runtime_reason, command_line = "bundled", "stand-in", "tritonserver --model-repository r"
    http_url, grpc_url = "http://localhost:1", "localhost:2"
    runtime_impl = SimpleNamespace(launches=True, stop_wait_s=lambda: 30.0, wait_policy=lambda: "PASSIVE")

    def __init__(self, *_a: Any, **_k: Any) -> None:
        pass

    def refuse_plans(self, *_a: Any) -> None:
        pass

    def refuse_unservable(self, *_a: Any) -> None:
        pass

    def __enter__(self) -> StoppedAtItsStop:
        return self

    def __exit__(self, *exc: object) -> None:
        if exc[0] is None:
            raise KeyboardInterrupt("SIGTERM")


def test_a_check_stopped_while_its_server_stops_keeps_every_row(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    variants = [SimpleNamespace(name="a"), SimpleNamespace(name="b")]
    monkeypatch.setattr(check, "TritonServer", StoppedAtItsStop)
    monkeypatch.setattr(check, "repository_variants", lambda *_a: variants)
    monkeypatch.setattr(check, "_loaded_before", lambda *_a: set())
    rows = {v.name: CheckResult(v.name, "http", True, [], None) for v in variants}
    monkeypatch.setattr(check, "_check_in_turn", lambda srv, repo, v, *a: [rows[v.name]])
    with pytest.raises(KeyboardInterrupt) as e:
        check.check_with_server(ServerOptions(tmp_path), ("http",))
    assert isinstance(e.value, CheckInterrupted), repr(e.value)  # was a bare KeyboardInterrupt: the rows of a and b lost
    assert e.value.results == [rows["a"], rows["b"]] and e.value.not_checked == []


@pytest.mark.slow  # a real export: `make test` only (the fast tier's guard)
def test_a_coldstart_stopped_while_its_server_stops_keeps_and_shows_every_record(
    monkeypatch: pytest.MonkeyPatch, tiny_repo: Path, tmp_path: Path
) -> None:
    import clients.server
    from perf.cli.main import cli
    from perf.coldstart import measure as cs
    from perf.records.coldstart import ColdStart

    names = sorted(p.name for p in tiny_repo.iterdir() if p.is_dir() and p.name.startswith("tiny_onnx"))[:2]
    monkeypatch.setattr(clients.server, "TritonServer", StoppedAtItsStop)
    monkeypatch.setattr(cs, "measure", lambda srv, variant, *a: ColdStart(variant.name, load_s=1.5))
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(cli, ["coldstart", "-r", str(tiny_repo), "--variants", ",".join(names)])
    assert res.exit_code == EXIT_INTERRUPTED, res.output  # was exit 1 ("aborted"), the records lost
    said = " ".join(res.output.split())
    line = said[said.index("interrupted (Ctrl-C) while tritonserver stopped: ") :]
    assert line == "interrupted (Ctrl-C) while tritonserver stopped: 2 of 2 variants measured (the table above)", said
    assert all(n in said[: -len(line)] for n in names)  # both shown in the table above it
