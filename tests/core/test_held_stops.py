"""A stop (Ctrl-C, SIGTERM, SIGHUP) that comes while a command cleans up (break-it F24's second case): stopping the
launched tritonserver swallowed it and the command went on as if nothing happened; a save in a clean-up was cut short.
Now the clean-up ends whole, then the stop is raised with its words and exit code, unless the command is stopping
already (a second stop). The signal is sent for real, by a child, while the clean-up waits for it."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from core.console import catch_stops, reset_stop, stop_exit_code, stop_name
from core.processes import held_stops, interrupt_then_kill

#: A child that ignores tritonserver's graceful stop (SIGINT) and answers it by sending SIGTERM to its parent: the
#: parent's stop comes exactly while it waits for the child to exit.
STOP_ON_STOP = (
    "import os, signal, sys, time\n"
    "signal.signal(signal.SIGINT, lambda *a: os.kill(os.getppid(), signal.SIGTERM))\n"
    "print('ready', flush=True)\n"
    "time.sleep(60)\n"
)


@pytest.fixture
def stops() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt as in a CLI (core.console.catch_stops); set back afterwards."""
    before = signal.getsignal(signal.SIGTERM)
    reset_stop()
    catch_stops()
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)
        reset_stop()


def _child() -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", STOP_ON_STOP], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


def test_a_stop_while_the_server_stops_kills_it_at_once_and_is_raised_after(stops: None) -> None:
    """The first stop of a command that was stopping its server as it ended: killed at once, then raised (it was
    swallowed: the command went on), named for the command's words and exit code."""
    proc = _child()
    began = time.monotonic()
    with pytest.raises(KeyboardInterrupt, match="SIGTERM"):
        interrupt_then_kill(proc, 30, "tritonserver")
    assert proc.returncode == -signal.SIGKILL and time.monotonic() - began < 20  # not the 30 s graceful wait
    assert stop_name() == "SIGTERM" and stop_exit_code(130) == 143


def test_a_second_stop_while_the_server_stops_kills_it_at_once_and_cuts_nothing(stops: None) -> None:
    """A stop while a command stops already (its first stop in flight): killed at once, nothing raised over the
    first stop's words (re-check of trial 17)."""
    proc = _child()
    try:
        raise KeyboardInterrupt
    except KeyboardInterrupt:
        interrupt_then_kill(proc, 30, "tritonserver")
    assert proc.returncode == -signal.SIGKILL


def test_the_whole_server_stop_runs_before_the_stop_is_raised(stops: None) -> None:
    """clients.server.TritonServer.stop: its process group and the runtime's clean-up (``docker rm -f``) still run
    when a stop comes while the server exits; then the stop is raised."""
    from clients.server import TritonServer

    done: list[str] = []
    srv = cast(Any, TritonServer.__new__(TritonServer))
    srv._proc, srv.tenancy, srv.http_url, srv.grpc_url = _child(), None, "http://localhost:1", "localhost:2"
    srv._group = SimpleNamespace(close=lambda what: done.append("group"))
    srv.runtime_impl = SimpleNamespace(launches=True, stop_wait_s=lambda: 30.0, after_stop=lambda: done.append("runtime"))
    with pytest.raises(KeyboardInterrupt):
        srv.stop()
    assert done == ["group", "runtime"] and srv._proc.returncode == -signal.SIGKILL


def test_a_save_in_a_clean_up_is_written_whole_before_the_stop(stops: None, tmp_path: Path) -> None:
    """A stop that comes while a clean-up writes a record: the record is written whole, then the stop is raised; one
    nested clean-up does not raise it early."""
    out = tmp_path / "results.json"
    with pytest.raises(KeyboardInterrupt, match="SIGTERM"):
        with held_stops():
            signal.raise_signal(signal.SIGTERM)
            with held_stops():
                out.write_text("part one\n")
            with out.open("a") as f:
                f.write("part two\n")
    assert out.read_text() == "part one\npart two\n"
    assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL  # the command's handler is back
    with held_stops(ending=True):  # the command ends by a stop it caught already: this one is dropped
        signal.raise_signal(signal.SIGTERM)
