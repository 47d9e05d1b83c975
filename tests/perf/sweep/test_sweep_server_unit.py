"""The sweep's server (perf/sweep/server.py): a server that exited on its own is stopped before the
next one starts, so what it left running (a python-backend stub: tests/support/fake_tritonserver.py)
goes with it instead of running beside the rest of the sweep."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from factories import run_result
from fake_tritonserver import write_fake_tritonserver
from process_checks import gone

from clients.server import ServerOptions
from perf.sweep.server import SweepServer


def test_a_server_that_died_leaves_nothing_running_beside_its_successor(tmp_path: Path) -> None:
    fake = write_fake_tritonserver(tmp_path / "tritonserver", tmp_path / "stub.pid")
    (tmp_path / "repo").mkdir()
    run = run_result()
    server = SweepServer(
        ServerOptions(tmp_path / "repo", runtime="local", binary=fake, start_timeout_s=60),
        run,
        tmp_path,
        "sweep started",
        lambda: None,
    )
    pids: list[int] = []
    try:
        first = server.get()
        assert first.pid is not None
        stub = int((tmp_path / "stub.pid").read_text())
        pids += [first.pid, stub]
        os.kill(first.pid, signal.SIGKILL)  # the server dies on its own; its stub does not notice
        first.wait()
        second = server.get()
        assert second is not first and second.pid is not None
        pids += [second.pid, int((tmp_path / "stub.pid").read_text())]
        assert gone(stub, timeout_s=5), "the dead server's stub kept running beside the new server"
        assert [s.reason for s in run.server_starts][0] == "sweep started" and len(run.server_starts) == 2
        server.stop()
        assert all(gone(p, timeout_s=5) for p in pids)
    finally:
        for p in pids:
            if not gone(p, timeout_s=0):
                os.kill(p, signal.SIGKILL)


@pytest.mark.parametrize(("named", "policy"), [("", "PASSIVE"), ("ACTIVE", "ACTIVE")])
def test_the_run_records_the_wait_policy_the_server_ran_with(tmp_path: Path, monkeypatch, named: str, policy: str) -> None:
    # s21k: the run recorded the in-process baseline's policy only, not the server's
    monkeypatch.setenv("OMP_WAIT_POLICY", named)
    fake = write_fake_tritonserver(tmp_path / "tritonserver", tmp_path / "stub.pid")
    (tmp_path / "repo").mkdir()
    run = run_result()
    server = SweepServer(
        ServerOptions(tmp_path / "repo", runtime="local", binary=fake, start_timeout_s=60), run, tmp_path, "s", lambda: None
    )
    pids: list[int] = []
    try:
        srv = server.get()
        assert srv.pid is not None
        pids += [srv.pid, int((tmp_path / "stub.pid").read_text())]
        environ = dict(e.split("=", 1) for e in Path(f"/proc/{srv.pid}/environ").read_text().split("\0") if "=" in e)
        assert environ["OMP_WAIT_POLICY"] == policy  # what the server process really has
        assert run.environment["server"]["omp_wait_policy"] == policy
        server.stop()
    finally:
        for p in pids:
            if not gone(p, timeout_s=0):
                os.kill(p, signal.SIGKILL)
