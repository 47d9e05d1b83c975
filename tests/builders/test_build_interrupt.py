"""Ctrl-C in ``builders build`` (a real process, the tiny model): it says what it left written and what
builds it again, and exits 130 (issue 26: it ended in a bare "aborted")."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import interruptible
import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # a real `builders build` process (loads torch, starts the ONNX export)
def test_ctrl_c_during_an_export_says_nothing_was_written_and_exits_130(tmp_path: Path) -> None:
    builds, repo = tmp_path / "builds", tmp_path / "repo"
    cmd = [sys.executable, "-m", "builders.cli.main", "build", "--model", "tiny", "--format", "onnx"]
    cmd += ["--build-dir", str(builds), "--repository", str(repo)]
    cmd += ["--instance-counts", "1", "--dynamic-batching", "off", "--max-batch-sizes", "4"]
    proc = interruptible.start(cmd, stderr=subprocess.STDOUT)  # Python's own SIGINT handler, even in a background suite
    lines: list[str] = []
    try:
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.append(line)
            if "onnx fp32: exporting" in line:
                break
        time.sleep(2)  # inside the export
        proc.send_signal(signal.SIGINT)
        out = "".join(lines) + proc.communicate(timeout=60)[0]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, out
    said = " ".join(out.split())
    assert (
        f"interrupted (Ctrl-C): nothing of this build was written: {builds / 'tiny'} (its manifest) and {repo} are as "
        "they were before it; the same command builds it again"
    ) in said, out
    assert "aborted" not in out and "Traceback" not in out, out
    assert not repo.exists() and not (builds / "tiny" / "manifest.json").exists()
