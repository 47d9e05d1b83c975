"""Ctrl-C in ``builders build`` (a real process): it says what it left written and what builds it again, and
exits 130 (issue 26: it ended in a bare "aborted").

The model is one of the test's own whose ``forward`` sleeps, so the export (which calls ``forward`` to trace it)
is still running when Ctrl-C arrives: with the built-in ``tiny`` model the whole build took under 3 s on CI and
the signal landed after it had finished (stop 40's one failure)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import interruptible
import pytest

ROOT = Path(__file__).resolve().parents[2]

SLOW_MODEL = """
import time
import torch

class Slow(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 2)

    def forward(self, x):
        time.sleep(3.0)  # every call, the export's tracing calls included
        return self.fc(x)

def slow():
    return Slow().eval()
"""


@pytest.mark.slow  # a real `builders build` process (loads torch, starts the ONNX export)
def test_ctrl_c_during_an_export_says_nothing_was_written_and_exits_130(tmp_path: Path) -> None:
    (tmp_path / "slowmodel.py").write_text(SLOW_MODEL)
    builds, repo = tmp_path / "builds", tmp_path / "repo"
    cmd = [sys.executable, "-m", "builders.cli.main", "build", "--model", f"{tmp_path / 'slowmodel.py'}:slow"]
    cmd += ["--input", "x:float32:8", "--format", "onnx", "--build-dir", str(builds), "--repository", str(repo)]
    cmd += ["--instance-counts", "1", "--dynamic-batching", "off", "--max-batch-sizes", "4"]
    rc, out = interruptible.interrupt_at(cmd, "onnx fp32: exporting", after_s=0.5)  # inside the export's forward
    assert rc == 130, out
    said = " ".join(out.split())
    assert (
        f"interrupted (Ctrl-C): nothing of this build was written: {builds / 'slow'} (its manifest) and {repo} are as "
        "they were before it; the same command builds it again"
    ) in said, out
    assert "aborted" not in out and "Traceback" not in out, out
    assert not repo.exists() and not (builds / "slow" / "manifest.json").exists()
    assert not (builds / "slow").exists()  # the folder this build made, bare, goes too (trial 30, F12)


#: A model whose forward, under the dynamo exporter's trace only, says so (a file: the exporter captures its output)
#: and waits, then does with a Ctrl-C what torch.export did in trial 28 (T28-11): an ordinary error in place of the
#: ``KeyboardInterrupt``. The TorchScript-based exporter's trace and eager calls run at once, so a build that takes
#: the stop for dynamo's failure falls back and finishes.
WRAPPING_MODEL = """
import os, time
import torch

class Wrapping(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 2)

    def forward(self, x):
        if torch.compiler.is_compiling():
            open(os.environ["TRACING_FLAG"], "w").close()
            try:
                time.sleep(10.0)
            except KeyboardInterrupt:
                raise AttributeError("module 'torch._dynamo' has no attribute 'exc'") from None
        return self.fc(x)

def wrapping():
    return Wrapping().eval()
"""


@pytest.mark.slow  # a real `builders build` process (loads torch, starts the dynamo ONNX export)
def test_ctrl_c_that_the_export_turns_into_an_error_still_stops_the_build(tmp_path: Path) -> None:
    (tmp_path / "wrapmodel.py").write_text(WRAPPING_MODEL)
    builds, repo, flag = tmp_path / "builds", tmp_path / "repo", tmp_path / "tracing"
    cmd = [sys.executable, "-m", "builders.cli.main", "build", "--model", f"{tmp_path / 'wrapmodel.py'}:wrapping"]
    cmd += ["--input", "x:float32:8", "--format", "onnx", "--build-dir", str(builds), "--repository", str(repo)]
    cmd += ["--instance-counts", "1", "--dynamic-batching", "off", "--max-batch-sizes", "4"]
    proc = interruptible.start(cmd, stderr=subprocess.STDOUT, env={"TRACING_FLAG": str(flag)})
    try:
        end = time.monotonic() + 120
        while not flag.exists() and proc.poll() is None and time.monotonic() < end:
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)  # inside the dynamo trace's wait
        out = proc.communicate(timeout=120)[0]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    said = " ".join(out.split())
    assert proc.returncode == 130, out  # was 0: the build fell back to the TorchScript-based exporter and wrote it
    assert f"interrupted (Ctrl-C): nothing of this build was written: {builds / 'wrapping'} (its manifest)" in said, out
    assert "trying torchscript" not in said and "Traceback" not in out, out
    assert not repo.exists() and not (builds / "wrapping" / "manifest.json").exists()
