"""Verification's planned cost is said before it starts (issue 26, trial 18, T18-3: 25 runs at batch 64
× 3x256x256 took ~10 min a format on a busy host and nothing said so up front, nor which flag shrinks it):
the largest point, the time the build's latest verification took for the same runs, the flag."""

from __future__ import annotations

import types
from pathlib import Path

import pytest

from builders.build import BuildOptions, build
from builders.build_verify import planned_cost
from builders.config.variants import VariantGrid
from builders.model.spec import ModelSpec

IMAGE = ModelSpec.from_flags(["image:float32:3,height,width"], axes=["height=32,128,256", "width=32,128,256"])


def _step(max_batch_size: int, verified: list[tuple[str, float]]) -> types.SimpleNamespace:
    return types.SimpleNamespace(spec=IMAGE, max_batch_size=max_batch_size, verified=verified)


def test_the_line_names_the_largest_point_the_time_of_the_same_runs_and_the_flag() -> None:
    assert planned_cost(_step(64, [])) == (
        ", the largest at batch 64 at height 256, width 256; --max-batch-sizes 8 verifies and serves up to batch 8"
    )
    assert planned_cost(_step(64, [("onnx fp32 via dynamo on cpu", 150.4)])) == (
        ", the largest at batch 64 at height 256, width 256; the onnx fp32 via dynamo on cpu verification took 2:30 "
        "for the same runs; --max-batch-sizes 8 verifies and serves up to batch 8"
    )
    assert planned_cost(_step(8, [])) == ", the largest at batch 8 at height 256, width 256"  # small already: no advice


@pytest.mark.slow  # two real TorchScript exports (fp32, fp16) verified at batch 64
def test_a_build_says_each_verifications_cost_before_it_starts(tmp_path: Path) -> None:
    lines: list[str] = []
    opts = BuildOptions(
        "tiny",
        formats=("torchscript",),
        precisions=("fp32", "fp16"),
        grid=VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(64,)),
        repository=tmp_path / "repo",
        build_dir=tmp_path / "builds",
    )
    build(opts, lines.append)
    first, second = [ln for ln in lines if "verifying against eager PyTorch" in ln]
    assert "15 runs per device, the largest at batch 64; --max-batch-sizes 8 verifies and serves up to batch 8)" in first
    assert "verification took" not in first  # nothing timed yet
    assert "the torchscript fp32 via script on cpu verification took 0:" in second and "for the same runs" in second
