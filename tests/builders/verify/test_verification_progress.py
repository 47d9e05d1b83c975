"""Verification says how much it runs and shows it going (trial 16, T16-17: an fp16 build's
"verifying against eager PyTorch on cpu (5 input draws per point)", then 1 min 44 s of nothing
until "ok"): the step line counts points × draws, and the counted progress gets every case."""

from __future__ import annotations

import pytest

from builders.build import BuildOptions, build
from builders.config.variants import VariantGrid
from builders.verify.input_draws import DRAWS


@pytest.mark.slow  # real export (torch.jit.script)
def test_the_verification_line_counts_its_runs_and_each_run_is_reported(tmp_path):
    grid = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,))
    opts = BuildOptions("tiny", formats=("torchscript",), grid=grid, repository=tmp_path / "r", build_dir=tmp_path / "b")
    lines: list[str] = []
    ticks: list[tuple[str, int, int]] = []
    result = build(opts, lines.append, lambda what, done, total: ticks.append((what, done, total)))
    points = len(result.manifest["exports"][0]["verification"]) // len(DRAWS)  # one record per point and draw
    runs = points * len(DRAWS)
    said = next(line for line in lines if "verifying against eager PyTorch" in line)
    assert f"({points} points × {len(DRAWS)} input draws = {runs} runs per device)" in said
    assert ticks == [("torchscript fp32: verifying on cpu", done, runs) for done in range(runs + 1)]
