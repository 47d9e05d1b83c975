"""perf.measure.host: one busy-host rule, and the server's processes found for a server the toolkit did not start."""

from __future__ import annotations

import os
import socket
import types

import pytest

from core.host_load import NOT_SAMPLED_ELSEWHERE
from perf.measure.host import HOST_BUSY_THRESHOLD_PCT, HostLoad, is_host_busy, listening_pid, own_roots
from perf.records.load import load_status


def _srv(host: str, port: int, pid: int | None = None, container: str | None = None):
    impl = types.SimpleNamespace(host=lambda: host)
    return types.SimpleNamespace(pid=pid, container_name=container, runtime_impl=impl, http_url=f"{host}:{port}")


def test_one_rule_one_threshold():
    assert HOST_BUSY_THRESHOLD_PCT == 10.0
    assert is_host_busy(10.5) and not is_host_busy(10.0) and not is_host_busy(None)
    assert is_host_busy(30.0, 25.0) and not is_host_busy(20.0, 25.0)
    assert HostLoad.of(42.123) == HostLoad(42.12, True, None)
    assert HostLoad.of(3.0) == HostLoad(3.0, False, None)
    assert HostLoad.of(None, why_not=NOT_SAMPLED_ELSEWHERE) == HostLoad(None, False, NOT_SAMPLED_ELSEWHERE)
    assert load_status("ok", True) == "host busy" and load_status("measured", True) == "host busy"
    assert load_status("failed", True) == "failed" and load_status("ok", False) == "ok"


def test_a_started_server_and_this_process_are_the_measurements_own():
    assert own_roots(_srv("localhost", 1, pid=4242)) == ([os.getpid(), 4242], None)
    roots, why = own_roots(_srv("localhost", 1, pid=4242, container="c"))
    assert roots is None and "container" in why


def test_a_remote_server_on_this_host_is_found_by_its_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert listening_pid(port) == os.getpid()
        assert own_roots(_srv("127.0.0.1", port)) == ([os.getpid(), os.getpid()], None)
    roots, why = own_roots(_srv("127.0.0.1", port))  # nothing listens there any more
    assert roots is None and f"port {port}" in why


def test_a_remote_server_on_another_host_is_not_sampled(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr("clients.runtimes.remote.socket.gethostbyname", lambda h: "10.254.0.7")
    assert own_roots(_srv("gpu-node.example", 8000)) == (None, NOT_SAMPLED_ELSEWHERE)
    assert NOT_SAMPLED_ELSEWHERE == "not sampled (server on another host)"


def test_other_processes_never_read_above_the_hosts_cores_on_a_short_span() -> None:
    # the trial: a one-batch trace "used 249 % of one core" on a 2-core host (10 ms CPU-time ticks over a short span)
    import psutil

    from perf.measure.host import HostSampler

    h = HostSampler([])
    h.samples = [(0.0, 0.0, {}), (0.01, 0.05, {})]  # 50 ms of CPU time read over 10 ms of wall time
    assert h.other_pct() == (psutil.cpu_count() or 1) * 100.0
