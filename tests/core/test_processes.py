"""Nothing the toolkit starts outlives a stopped server or a killed launcher (core/processes.py):
a server whose "python-backend stub" is deaf to SIGINT/SIGTERM and never looks at its parent
(what a real stub deadlocked after its server died does), perf_analyzer, and the guard itself.
No real Triton: tests/support/fake_tritonserver.py (the real one: test_launch_integration.py)."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from fake_tritonserver import write_fake_tritonserver
from process_checks import gone

from clients.server import ServerOptions, TritonServer
from core.processes import ProcessGroup, group_members

ROOT = Path(__file__).resolve().parents[2]


def _launcher(code: str, *args: str) -> subprocess.Popen:
    """A launcher process running ``code`` (this tree first on its path) with ``args``."""
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code), *args], stdout=subprocess.PIPE, text=True, cwd=ROOT, env=dict(os.environ)
    )


def _kill_if_running(*pids: int) -> None:
    for pid in pids:
        if not gone(pid, timeout_s=0):
            os.kill(pid, signal.SIGKILL)


def test_stop_kills_what_the_server_left_in_its_process_group(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    fake = write_fake_tritonserver(tmp_path / "tritonserver", tmp_path / "stub.pid")
    (tmp_path / "repo").mkdir()
    log = tmp_path / "server.log"
    srv = TritonServer(ServerOptions(tmp_path / "repo", runtime="local", binary=fake, log_file=log, start_timeout_s=60))
    stub = 0
    try:
        with caplog.at_level(logging.WARNING), srv:
            stub = int((tmp_path / "stub.pid").read_text())
            assert os.getpgid(stub) == srv.pid  # the stub is in the server's own process group
            assert set(group_members(srv.pid)) == {srv.pid, stub}
        assert srv.pid is not None and gone(srv.pid, timeout_s=0)
        assert gone(stub, timeout_s=5), "the stub outlived its stopped server"
        assert "SIGINT received" in log.read_text()  # the server itself was still stopped gracefully
        assert f"tritonserver (pid {srv.pid}) left 1 process(es) running after it exited: {stub} (" in caplog.text
        srv.stop()  # again: nothing left, nothing said
        assert caplog.text.count("left 1 process(es)") == 1
    finally:
        _kill_if_running(*(p for p in (srv.pid, stub) if p))


def test_a_killed_launcher_leaves_neither_its_server_nor_what_the_server_started(tmp_path: Path) -> None:
    fake = write_fake_tritonserver(tmp_path / "tritonserver", tmp_path / "stub.pid")
    (tmp_path / "repo").mkdir()
    launcher = _launcher(
        """
        import sys, time
        from pathlib import Path
        from clients.server import ServerOptions, TritonServer
        repo, binary, log = (Path(a) for a in sys.argv[1:])
        srv = TritonServer(ServerOptions(repo, runtime="local", binary=binary, log_file=log, start_timeout_s=60)).start()
        print(srv.pid, flush=True)
        time.sleep(600)
        """,
        str(tmp_path / "repo"),
        str(fake),
        str(tmp_path / "server.log"),
    )
    server = stub = 0
    try:
        assert launcher.stdout is not None
        server = int(launcher.stdout.readline())
        stub = int((tmp_path / "stub.pid").read_text())
        launcher.kill()  # SIGKILL: no code of the launcher runs
        launcher.wait(10)
        assert gone(server), "tritonserver outlived its killed launcher"
        assert gone(stub), "the server's stub outlived the killed launcher"
    finally:
        if launcher.poll() is None:
            launcher.kill()
        _kill_if_running(*(p for p in (server, stub) if p))


def test_perf_analyzer_does_not_outlive_a_killed_sweep(tmp_path: Path) -> None:
    slow = tmp_path / "perf_analyzer"
    slow.write_text("#!/bin/sh\nexec sleep 600\n")
    slow.chmod(0o755)
    launcher = _launcher(
        """
        import sys
        from pathlib import Path
        from perf.measure.analyzer import run_perf_analyzer
        run_perf_analyzer([sys.argv[1]], Path(sys.argv[2]), 600, on_start=lambda pid: print(pid, flush=True))
        """,
        str(slow),
        str(tmp_path / "out.csv"),
    )
    pid = 0
    try:
        assert launcher.stdout is not None
        pid = int(launcher.stdout.readline())
        launcher.kill()
        launcher.wait(10)
        assert gone(pid), "perf_analyzer outlived the killed sweep"
    finally:
        if launcher.poll() is None:
            launcher.kill()
        _kill_if_running(*(p for p in (pid,) if p))


def test_a_process_group_refuses_the_launchers_own_and_its_guardian_ends_with_it() -> None:
    with pytest.raises(ValueError, match="not a child's own group"):
        ProcessGroup(os.getpgrp())
    with pytest.raises(ValueError):
        ProcessGroup(1)
    child = subprocess.Popen(["sleep", "600"], start_new_session=True)
    try:
        group = ProcessGroup(child.pid)
        guardian = group._guardian
        assert guardian is not None and guardian.poll() is None
        assert group.close("sleep") == {child.pid: "sleep"}  # a leader still running is killed too
        assert child.wait(5) == -signal.SIGKILL
        assert guardian.poll() is not None and group._guardian is None
        assert group.close("sleep") == {}
    finally:
        if child.poll() is None:
            child.kill()


def test_a_ctrl_c_while_a_child_stops_kills_it_before_the_stop_goes_on(caplog):
    """A stop while a command stops its server ends the server at once. One that is not held (raised here by the
    wait itself, not by a signal's handler: tests/core/test_held_stops.py sends real ones) goes on once it is ended;
    before break-it F24's second case it was swallowed and the command went on as if nothing happened."""
    from core.processes import interrupt_then_kill

    deaf = "import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN); print('ready', flush=True); time.sleep(60)"
    proc = subprocess.Popen([sys.executable, "-c", deaf], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline() == "ready\n"  # SIGINT ignored from here: only a kill ends it
    waits = []
    real_wait = proc.wait

    def wait(timeout=None):
        waits.append(timeout)
        if len(waits) == 1:  # the graceful wait: Ctrl-C arrives
            raise KeyboardInterrupt
        return real_wait(timeout)

    proc.wait = wait  # type: ignore[method-assign]
    with caplog.at_level(logging.WARNING), pytest.raises(KeyboardInterrupt):
        interrupt_then_kill(proc, 30, "tritonserver")
    assert proc.returncode == -signal.SIGKILL
    assert f"a stop came while tritonserver (pid {proc.pid}) stopped: killing it now" in caplog.text


def test_the_first_interrupt_of_a_chain_is_found_under_a_second_one():
    from core.errors import first_in_chain

    class Kept(KeyboardInterrupt):
        pass

    try:
        try:
            raise Kept("rows")
        except Kept:
            raise KeyboardInterrupt from None  # `from None` hides it from a traceback, not from __context__
    except KeyboardInterrupt as e:
        second = e
    found = first_in_chain(second, Kept)
    assert isinstance(found, Kept) and found.args == ("rows",)
    assert first_in_chain(KeyboardInterrupt(), Kept) is None
