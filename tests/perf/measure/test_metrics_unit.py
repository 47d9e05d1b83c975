"""perf.measure.host.HostSampler.cores: the server's own CPU (its process and children), not the host's."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from perf.measure.host import HostSampler

# a parent that starts a busy child (like tritonserver starting python-backend stubs) and idles itself
_PARENT = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time\\nt = time.time()\\nwhile time.time() - t < 30: pass"])
print("ready", flush=True)
time.sleep(30)
"""


@pytest.fixture
def busy_tree():
    proc = subprocess.Popen([sys.executable, "-c", _PARENT], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(0.3)  # the child is running
        yield proc.pid
    finally:
        import psutil

        for p in psutil.Process(proc.pid).children(recursive=True):
            p.kill()
        proc.kill()
        proc.wait()


def test_counts_the_busy_child_of_an_idle_parent(busy_tree: int):
    import psutil

    (child,) = psutil.Process(busy_tree).children()
    with HostSampler([busy_tree], period_s=0.1) as s:
        time.sleep(0.05)
        c0 = child.cpu_times()
        t0 = time.monotonic()
        time.sleep(1.5)
        c1 = child.cpu_times()
        t1 = time.monotonic()
    child_s = (c1.user + c1.system) - (c0.user + c0.system)  # measured inside the sampler's interval
    assert child_s > 0.05  # the child ran (on a loaded host it may get a small share of a core)
    assert s.cores(busy_tree, (t0, t1)) * (t1 - t0) >= child_s * 0.9  # the child is counted, the idle parent adds ~0
    assert 0 < s.cores(busy_tree) <= 1.2  # one spinning process: at most one core
    assert s.other_pct() is not None  # the busy child is the measurement's own, not "other"


def test_idle_process_uses_about_no_cpu():
    proc = subprocess.Popen(
        [sys.executable, "-c", "import time; print('ready', flush=True); time.sleep(30)"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout.readline().strip() == "ready"
        with HostSampler([proc.pid], period_s=0.1) as s:
            time.sleep(1.0)
        assert s.cores(proc.pid) is not None and s.cores(proc.pid) < 0.1
    finally:
        proc.kill()
        proc.wait()


def test_unknown_server_process_is_null_not_zero():
    with HostSampler([], period_s=0.05) as s:
        time.sleep(0.2)
    assert s.cores(None) is None
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    with HostSampler([gone.pid], period_s=0.05) as s:  # no such process any more
        time.sleep(0.2)
    assert s.cores(gone.pid) is None
