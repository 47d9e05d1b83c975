"""Ctrl-C in ``clients infer --requests N`` on the real bundled server: it says at once what ended and what was not
sent, and exits 130 with no traceback (trial 17, T17-16; ``clients check``'s: tests/clients/test_check_interrupt_integration.py)."""

from __future__ import annotations

import re
import signal
import sys
import time
from pathlib import Path

import interruptible
import pytest

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("concurrency", [1, 3])
def test_ctrl_c_in_infer_with_many_requests_says_what_ended_and_what_was_not_sent(bundled_server, tiny_build, concurrency):
    name = tiny_build.manifest["variants"][0]
    bundled_server.load(name)
    try:
        cmd = [sys.executable, "-m", "clients.cli.main", "infer", name, "--url", f"http://{bundled_server.http_url}"]
        cmd += ["--requests", "1000000", "--concurrency", str(concurrency), "-r", str(tiny_build.manifest["repository"])]
        proc = interruptible.start(cmd)  # Python's own SIGINT handler, even in a background suite
        try:
            first = proc.stdout.readline()  # type: ignore[union-attr]
            assert first.startswith("input "), first
            time.sleep(2)  # requests are being sent
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    finally:
        bundled_server.unload(name)
    assert proc.returncode == 130, out + err
    said = re.search(r"interrupted \(Ctrl-C\): (\d+) of 1000000 requests ended \(0 failed\) before it, latency p50", err)
    assert said and int(said[1]) > 0, err
    assert f"{1000000 - int(said[1])} not sent; no outputs shown or saved" in err, err
    assert "Traceback" not in err and "aborted" not in err, err
