"""The sweep's server (perf/sweep/server.py): a server that exited on its own is stopped before the
next one starts, so what it left running (a python-backend stub: tests/support/fake_tritonserver.py)
goes with it instead of running beside the rest of the sweep."""

from __future__ import annotations

import os
import signal
from pathlib import Path

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
