"""``builders`` runs under a fixed string-hash seed, so a re-export of the same model is the same file
(break-it F10: the mlp's model.pt flipped between two SHA-256s; trial 23, T23-10: an EmbeddingBag
model's model.onnx took a new SHA-256 each build)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from builders.cli.hash_seed import HASH_SEED_VAR, with_fixed_hash_seed

ROOT = Path(__file__).resolve().parents[3]

BAG_MODEL = """
import torch
from torch import nn


class Bag(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.EmbeddingBag(50, 4, mode="mean")
        self.head = nn.Linear(4 + 3, 1)

    def forward(self, ids, dense):
        return torch.sigmoid(self.head(torch.cat([self.emb(ids), dense], dim=1)))


def bag():
    torch.manual_seed(0)
    return Bag().eval()
"""


def test_the_command_runs_again_with_the_seed_fixed_and_keeps_its_command_line() -> None:
    calls = []
    argv = ["/usr/bin/python3", "-X", "utf8", "-m", "builders.cli.main", "build", "--model", "mlp"]
    with_fixed_hash_seed({"HOME": "/h"}, argv, lambda *a: calls.append(a))
    assert calls == [(sys.executable, [sys.executable, *argv[1:]], {"HOME": "/h", HASH_SEED_VAR: "0"})]


@pytest.mark.parametrize("seed", ["0", "123", "random"])
def test_a_seed_the_user_set_is_kept(seed: str) -> None:
    calls = []
    with_fixed_hash_seed({HASH_SEED_VAR: seed}, ["python", "-m", "builders.cli.main"], lambda *a: calls.append(a))
    assert calls == []


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.slow  # three real `builders build` processes (TorchScript and ONNX exports, verified)
def test_builds_of_the_same_model_write_the_same_files(tmp_path: Path) -> None:
    (tmp_path / "bag.py").write_text(BAG_MODEL)
    env = {k: v for k, v in os.environ.items() if k != HASH_SEED_VAR} | {"PYTHONPATH": str(ROOT)}
    flags = ["--input", "ids:int64:5:0..49", "--input", "dense:float32:3", "--output", "score"]
    flags += ["--format", "torchscript", "--format", "onnx", "--instance-counts", "1", "--dynamic-batching", "off"]
    seen = set()
    for i in range(3):
        cmd = [sys.executable, "-m", "builders.cli.main", "build", "--model", "bag.py:bag", *flags]
        cmd += ["--build-dir", str(tmp_path / f"b{i}"), "--repository", str(tmp_path / f"r{i}")]
        done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout + done.stderr
        seen.add((_sha(tmp_path / f"b{i}" / "bag" / "model.pt"), _sha(tmp_path / f"b{i}" / "bag" / "model.onnx")))
    assert len(seen) == 1, seen


def test_a_run_that_cannot_start_again_says_so(caplog: pytest.LogCaptureFixture) -> None:
    """Review: the fallback (the build runs under a random seed) was logged at debug only: a silent fallback."""

    def refuse(*_a: object) -> None:
        raise OSError("exec refused")

    with caplog.at_level("WARNING", logger="builders.cli.hash_seed"):
        with_fixed_hash_seed({}, ["python", "-m", "builders.cli.main"], refuse)
    assert "exports may differ in bytes" in caplog.text and "set PYTHONHASHSEED=0" in caplog.text
