"""A run's variant that a build of other weights removed: the commands that refuse a missing variant
(:func:`perf.records.measured_files.refuse_missing`) say so, from the build folder's manifest, and never
advise a rebuild that would build other weights (trial 24, T24-16: export-deployment blamed `make clean`
and said "rebuild it", which would have built the retrained weights)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import torch

from builders.build import BuildOptions, build
from builders.config.variants import VariantGrid
from clients.runtimes.identity import found_artifact
from core.errors import PerfError
from perf.records.levels import LevelResult
from perf.records.measured_files import refuse_missing
from perf.records.results import RunResult, VariantResult
from tests.support.factories import served_model

pytestmark = pytest.mark.slow  # real exports

GRID = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,))
NAME = "mine_onnx_cpu1_nodb_mbs4"


def _build(tmp_path: Path, seed: int) -> None:
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(6, 3)).eval()
    opts = BuildOptions(
        model, formats=("onnx",), grid=GRID, repository=tmp_path / "repo", build_dir=tmp_path / "builds", name="mine",
        example_inputs=torch.randn(2, 6),
    )  # fmt: skip
    build(opts)


def _run(tmp_path: Path) -> RunResult:
    """A run that measured the variant as the first build wrote it (its files stamped after the load)."""
    repo = tmp_path / "repo"
    stamp = served_model(NAME, artifact=found_artifact(repo / NAME))
    params = {"model": "mine", "build": str(tmp_path / "builds" / "mine"), "format": "onnx", "precision": "fp32"}
    levels = [LevelResult(1, throughput_infer_per_s=100.0, latency_p99_ms=2.0)]
    variant = VariantResult(NAME, params, levels=levels, served=[stamp])  # type: ignore[arg-type]
    return RunResult("s3", "now", settings={"repository": str(repo)}, variants=[variant])


def test_a_variant_a_build_of_other_weights_removed_is_said_so(tmp_path):
    _build(tmp_path, 0)
    run = _run(tmp_path)
    _build(tmp_path, 1)  # retrained: the build folder now holds other weights' export
    shutil.rmtree(tmp_path / "repo" / NAME)
    with pytest.raises(PerfError) as e:
        refuse_missing(run, [NAME], tmp_path / "repo", "a bundle")
    text = f"{e.value.message} -> {e.value.hint}"
    assert "other weights" in text and "model.onnx" in text, text
    assert "make clean" not in text and "rebuild it" not in text, text
    assert "the weights the run measured" in text, text


def test_a_variant_whose_build_folder_still_records_what_was_measured_is_rebuilt(tmp_path):
    _build(tmp_path, 0)
    run = _run(tmp_path)
    shutil.rmtree(tmp_path / "repo" / NAME)
    with pytest.raises(PerfError) as e:
        refuse_missing(run, [NAME], tmp_path / "repo", "a bundle")
    assert "rebuild it with `builders build`" in (e.value.hint or "")
    assert "other weights" not in f"{e.value.message} {e.value.hint}"
