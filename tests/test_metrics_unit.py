"""perf.metrics.ProcessCpuSampler: the server's own CPU (its process and children), not the host's."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from perf.metrics import ProcessCpuSampler

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
    with ProcessCpuSampler(busy_tree) as s:
        c0 = child.cpu_times()
        time.sleep(1.5)
        c1 = child.cpu_times()
    child_s = (c1.user + c1.system) - (c0.user + c0.system)  # measured inside the sampler's interval
    assert child_s > 0.05  # the child ran (on a loaded host it may get a small share of a core)
    assert s.cpu_seconds() >= child_s * 0.99  # the child is counted, the idle parent adds ~0
    assert 0 < s.cores() <= 1.2  # one spinning process: at most one core


def test_idle_process_uses_about_no_cpu():
    proc = subprocess.Popen([sys.executable, "-c", "import time; print('ready', flush=True); time.sleep(30)"],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        with ProcessCpuSampler(proc.pid) as s:
            time.sleep(1.0)
        assert s.cores() is not None and s.cores() < 0.1
    finally:
        proc.kill()
        proc.wait()


def test_unknown_server_process_is_null_not_zero():
    with ProcessCpuSampler(None) as s:
        pass
    assert s.cores() is None
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    with ProcessCpuSampler(gone.pid) as s:  # no such process any more
        pass
    assert s.cores() is None
