"""Verification says how much it runs and shows it going (trial 16, T16-17: an fp16 build's
"verifying against eager PyTorch on cpu (5 input draws per point)", then 1 min 44 s of nothing
until "ok"): the step line counts points × draws, and the counted progress gets every case with its
size, so the estimate of the rest weighs the larger points left (it was several times too low).
The export before it and the variant folders after it are shown going too (the ONNX dynamo export
of a text encoder took ~45 s without a word)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from builders.build import BuildOptions, build
from builders.build_variants import writing_words
from builders.config.variants import VariantGrid
from builders.verify.input_draws import DRAWS


@pytest.mark.slow  # real export (torch.jit.script)
def test_the_verification_line_counts_its_runs_and_each_run_is_reported(tmp_path):
    grid = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,))
    opts = BuildOptions("tiny", formats=("torchscript",), grid=grid, repository=tmp_path / "r", build_dir=tmp_path / "b")
    lines: list[str] = []
    ticks: list[tuple[str, int, int, tuple[float, ...]]] = []

    def counted(what: str, done: int, total: int, sizes: Sequence[float] | None = None) -> None:
        ticks.append((what, done, total, tuple(sizes or ())))

    result = build(opts, lines.append, counted)
    points = len(result.manifest["exports"][0]["verification"]) // len(DRAWS)  # one record per point and draw
    runs = points * len(DRAWS)
    said = next(line for line in lines if "verifying against eager PyTorch" in line)
    assert f"({points} points × {len(DRAWS)} input draws = {runs} runs per device, the largest at batch 4)" in said
    export = [t[:3] for t in ticks if "exporting" in t[0]]
    assert export == [("torchscript fp32: exporting via script", 0, 1), ("torchscript fp32: exporting via script", 1, 1)]
    verifying = [t for t in ticks if "verifying" in t[0]]
    assert [t[:3] for t in verifying] == [("torchscript fp32: verifying on cpu", done, runs) for done in range(runs + 1)]
    sizes = verifying[0][3]
    assert len(sizes) == runs and sizes[0] < sizes[-1]  # batch 1 first, the largest batch last: they cost more
    writing = [t[:3] for t in ticks if t[0].startswith("writing")]
    # no warm-up built: none said (trial 27, T27-10: "(config, warm-up data, model)" of a build without one)
    assert writing == [("writing 1 variant folder (config, model)", done, 1) for done in (0, 1)]
    assert writing_words(2, True) == "writing 2 variant folders (config, warm-up data, model)"
