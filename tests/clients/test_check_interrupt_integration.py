"""Ctrl-C in ``clients check`` on the real bundled server: it says at once how it stops, prints the
rows of the variants already checked, names those it did not check, and exits 130 (trial 17, T17-16:
17 s of silence, then "aborted", and the rows checked were lost). A second Ctrl-C while it stops
keeps them too (re-check of trial 17: two Ctrl-C 0.4 s apart dropped the rows and said "before any
variant was checked")."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


def _check_interrupted(tiny_repo: Path, names: list[str], log: Path, again_after_s: float | None) -> tuple[int, str, str, float]:
    """Run the check of ``names``, Ctrl-C during the second one's load (and again ``again_after_s`` after
    its stopping line); returns rc, stdout, stderr and how long the stopping line took."""
    cmd = [sys.executable, "-m", "clients.cli.main", "check", "-r", str(tiny_repo), "--runtime", "bundled"]
    cmd += ["--log-file", str(log), "--variants", ",".join(names)]
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
        said_after = float("inf")
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.append(line)
            if said_after == float("inf") and "stopping (Ctrl-C)" in line:
                said_after = time.monotonic() - sent
                if again_after_s is not None:  # while the server stops
                    time.sleep(again_after_s)
                    proc.send_signal(signal.SIGINT)
        rc = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return rc, "".join(lines), proc.stderr.read(), said_after  # type: ignore[union-attr]


@pytest.mark.parametrize("again_after_s", [None, 0.4], ids=["once", "twice"])
def test_ctrl_c_after_the_first_variant_keeps_its_rows_and_names_the_rest(tiny_repo, tiny_build, tmp_path, again_after_s):
    names = tiny_build.manifest["variants"][:3]
    rc, out, err, said_after = _check_interrupted(tiny_repo, names, tmp_path / "s.log", again_after_s)
    assert rc == 130, out + err
    assert said_after < 5, out  # at once, not after the server's stop
    assert f"stopping (Ctrl-C): {names[1]} left unfinished; stopping tritonserver, which unloads it (up to" in out
    rows = [ln for ln in out.splitlines() if "│" in ln and "pass" in ln]
    assert len(rows) == 2 and all(names[0] in r for r in rows), out  # its http and grpc rows
    assert "2 of 2 rows passed" in out and "1 of 1 variant passed over http and grpc" in out, out
    assert f"interrupted (Ctrl-C): 1 of 3 variants checked (the table above); not checked: {names[1]}, {names[2]}" in out
    assert f"--variants {names[1]},{names[2]}" in out
    assert f"{names[0]}: checked: passed over http, grpc" in out  # said as each variant ends
    assert "before any variant was checked" not in out
    assert "Traceback" not in err and "aborted" not in err, err
