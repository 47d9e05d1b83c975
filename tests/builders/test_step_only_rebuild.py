"""A dynamic axis's step alone is not another model (s21k): ``--dynamic-axis T=8,16,32/8`` restricts the sizes sent,
not what is exported or verified (min, opt and max are the only sizes a build uses, multiples of the step either way).
Adding or changing only a step exported every format again, and a ``--formats`` subset was refused as "of another
model (it differs in spec)" when a run had measured the other format's variants. Now the step is left out of the
exports' reuse key and of the earlier build's identity, and still recorded in the manifest's spec."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from builders.build import BuildOptions, build
from builders.config.variants import VariantGrid
from builders.model.spec import ModelSpec
from builders.repository.manifest import MANIFEST
from tests.builders.test_rebuild_words import _measured

CONV_MODEL = """
import torch
from torch import nn


def make():
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv1d(2, 3, 3, padding=1)).eval()
"""


def _build(tmp_path: Path, axis: str, formats: tuple[str, ...]) -> list[str]:
    opts = BuildOptions(
        "conv_pkg:make",
        repository=tmp_path / "repo",
        build_dir=tmp_path / "builds",
        grid=VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(2,)),
        formats=formats,
        spec=ModelSpec.from_flags(["x:float32:2,T"], ["y"], axes=[axis]),
    )
    lines: list[str] = []
    sys.modules.pop("conv_pkg", None)
    try:
        build(opts, lines.append)
    finally:
        sys.modules.pop("conv_pkg", None)
    return lines


@pytest.mark.slow  # real TorchScript and ONNX exports
def test_a_step_alone_reuses_the_exports_and_keeps_the_measured_variants_of_a_format_subset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "conv_pkg.py").write_text(CONV_MODEL)
    _build(tmp_path, "T=8,16,32", ("torchscript", "onnx"))
    variants = sorted(p.name for p in (tmp_path / "repo").iterdir() if (p / "config.pbtxt").is_file())
    _measured(tmp_path / "results", "r1", tmp_path / "repo")
    # old: refused ("this build would remove 1 variant of model_repository that runs measured: ..._onnx_... (the
    # earlier build was of another model (it differs in spec) ...")
    lines = _build(tmp_path, "T=8,16,32/8", ("torchscript",))
    said = "\n".join(lines)
    assert "another model" not in said and "differs in" not in said, said
    assert any(x.startswith("torchscript fp32: unchanged, reusing") for x in lines), said  # old: exported again
    assert sorted(p.name for p in (tmp_path / "repo").iterdir() if (p / "config.pbtxt").is_file()) == variants
    manifest = json.loads((tmp_path / "builds" / "make" / MANIFEST).read_text())
    assert manifest["spec"]["multiple_of"] == {"T": 8}  # recorded: every size sent is checked against it
    assert {e["format"] for e in manifest["exports"]} == {"torchscript", "onnx"}
