"""A failed dynamo ONNX export is said as it happens, and the export's time counts it (trial 22, F-silent-dynamo:
``onnx fp32: exporting``, 45 s of silence, then ``onnx fp32: exported via torchscript in 0.2 s``; the dynamo failure was
said only below the final table)."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest
import torch

from builders.build import BuildOptions, build
from builders.build_progress import after_failed, failed_attempt
from builders.config.variants import VariantGrid
from builders.export.artifacts import Attempt
from builders.model.spec import ModelSpec

MODEL = """
import torch
from torch import nn


def make():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 3)).eval()
"""


def test_the_words_of_a_failed_attempt_and_of_the_export_after_it() -> None:
    failed = Attempt("dynamo", False, "Unsupported: data-dependent branch", 45.06)
    assert failed_attempt(failed, "torchscript") == (
        "the dynamo export failed after 45.1 s (Unsupported: data-dependent branch); trying torchscript"
    )
    assert after_failed([failed, Attempt("torchscript", True, seconds=0.2)], 0.2) == (
        " (after the dynamo attempt, which failed in 45.1 s: 45.3 s in all)"
    )
    assert after_failed([Attempt("dynamo", True, seconds=3.0)], 3.0) == ""
    rejected = Attempt("dynamo", False, "outputs differ", 2.0, stage="verify")
    assert failed_attempt(rejected, "torchscript") == "the dynamo export failed verification (outputs differ); trying torchscript"


@pytest.mark.slow  # a real ONNX export (the dynamo one made to fail)
def test_a_failed_dynamo_export_is_said_before_the_fallback_and_timed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    real = torch.onnx.export

    def export(*args, **kwargs):
        if kwargs.get("dynamo"):
            time.sleep(0.3)
            raise RuntimeError("Unsupported: a branch on a tensor's value")
        return real(*args, **kwargs)

    monkeypatch.setattr(torch.onnx, "export", export)
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "dyn_pkg.py").write_text(MODEL)
    sys.modules.pop("dyn_pkg", None)
    opts = BuildOptions(
        "dyn_pkg:make",
        repository=tmp_path / "repo",
        build_dir=tmp_path / "builds",
        grid=VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,)),
        formats=("onnx",),
        spec=ModelSpec.from_flags(["x:float32:4"], ["y"]),
    )
    lines: list[str] = []
    build(opts, lines.append)
    sys.modules.pop("dyn_pkg", None)
    (failed,) = [i for i, x in enumerate(lines) if "the dynamo export failed" in x]
    said = r"onnx fp32: the dynamo export failed after \d+\.\d s \(RuntimeError: Unsupported: a branch on a tensor's value\); "
    assert re.fullmatch(said + "trying torchscript", lines[failed]), lines[failed]
    (exported,) = [i for i, x in enumerate(lines) if x.startswith("onnx fp32: exported via torchscript in ")]
    assert failed < exported, lines
    assert re.search(
        r" \(after the dynamo attempt, which failed in \d+\.\d s: \d+\.\d s in all\); verifying ", lines[exported]
    ), lines[exported]
