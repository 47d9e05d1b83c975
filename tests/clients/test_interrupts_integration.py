"""Ctrl-C in ``clients check`` on the real bundled server: it says at once how it stops, prints the
rows of the variants already checked, names those it did not check, and exits 130 (trial 17, T17-16:
17 s of silence, then "aborted", and the rows checked were lost)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


def test_ctrl_c_after_the_first_variant_keeps_its_rows_and_names_the_rest(tiny_repo, tiny_build, tmp_path):
    names = tiny_build.manifest["variants"][:3]
    cmd = [sys.executable, "-m", "clients.cli.main", "check", "-r", str(tiny_repo), "--runtime", "bundled"]
    cmd += ["--log-file", str(tmp_path / "s.log"), "--variants", ",".join(names)]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "250"}
    # a suite started in the background hands SIGINT down ignored: give the command Python's own handler
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    lines: list[str] = []
    try:
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.append(line)
            if f"{names[1]}: loading" in line:  # the first variant's rows are in: Ctrl-C during the next load
                break
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        said_after = None
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.append(line)
            if said_after is None and "stopping (Ctrl-C)" in line:
                said_after = time.monotonic() - sent
        rc = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    out, err = "".join(lines), proc.stderr.read()  # type: ignore[union-attr]
    assert rc == 130, out + err
    assert said_after is not None and said_after < 5, out  # at once, not after the server's stop
    assert f"stopping (Ctrl-C): {names[1]} left unfinished; stopping tritonserver, which unloads it (up to" in out
    rows = [ln for ln in out.splitlines() if "│" in ln and "pass" in ln]
    assert len(rows) == 2 and all(names[0] in r for r in rows), out  # its http and grpc rows
    assert "2 of 2 rows passed" in out and "1 of 1 variant passed over http and grpc" in out, out
    assert f"interrupted (Ctrl-C): 1 of 3 variants checked (the table above); not checked: {names[1]}, {names[2]}" in out
    assert f"--variants {names[1]},{names[2]}" in out
    assert f"{names[0]}: checked: passed over http, grpc" in out  # said as each variant ends
    assert "Traceback" not in err and "aborted" not in err, err


@pytest.mark.parametrize("concurrency", [1, 3])
def test_ctrl_c_in_infer_with_many_requests_says_what_ended_and_what_was_not_sent(bundled_server, tiny_build, concurrency):
    name = tiny_build.manifest["variants"][0]
    bundled_server.load(name)
    try:
        cmd = [sys.executable, "-m", "clients.cli.main", "infer", name, "--url", f"http://{bundled_server.http_url}"]
        cmd += ["--requests", "1000000", "--concurrency", str(concurrency), "-r", str(tiny_build.manifest["repository"])]
        proc = subprocess.Popen(
            cmd, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "250"}, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )  # fmt: skip
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
