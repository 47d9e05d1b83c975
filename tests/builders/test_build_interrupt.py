"""Ctrl-C in ``builders build`` (a real process, the tiny model): it says what it left written and what
builds it again, and exits 130 (issue 26: it ended in a bare "aborted")."""

from __future__ import annotations

import sys
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
    rc, out = interruptible.interrupt_at(cmd, "onnx fp32: exporting", after_s=2)  # inside the export
    assert rc == 130, out
    said = " ".join(out.split())
    assert (
        f"interrupted (Ctrl-C): nothing of this build was written: {builds / 'tiny'} (its manifest) and {repo} are as "
        "they were before it; the same command builds it again"
    ) in said, out
    assert "aborted" not in out and "Traceback" not in out, out
    assert not repo.exists() and not (builds / "tiny" / "manifest.json").exists()
