"""Verification draws within each input's valid domain, through real builds (issue 25, item 7).

The issue's case: for an ``attention_mask`` in [0, 1] the "negative" draw was an all-zero mask;
the dynamo ONNX export of a real encoder disagreed with eager PyTorch on it (relative error
0.61) and the build fell back to the older exporter without saying why. My own model
reproduces it: attention through ``scaled_dot_product_attention`` (as Hugging Face encoders
run it), where eager PyTorch returns 0 for a row with no token and the dynamo export the mean.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from builders.build import BuildOptions, build
from builders.cli.main import cli
from builders.config.variants import VariantGrid
from builders.model.spec import ModelSpec
from builders.verify.input_draws import draw_inputs

pytestmark = pytest.mark.slow  # real exports

GRID = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,))
FLAGS = ["--instance-counts", "1", "--dynamic-batching", "off", "--max-batch-sizes", "4"]
MODEL = "verification_models:masked_attention"


def _spec(mask: str) -> ModelSpec:
    return ModelSpec.from_flags(["ids:int64:seq:0..49", f"mask:int64:seq:{mask}"], [], ["seq=1,8,16"])


def _build(tmp_path: Path, spec: ModelSpec, model: str = MODEL, **kw):
    return build(
        BuildOptions(model, formats=("onnx",), spec=spec, grid=GRID, repository=tmp_path / "repo", build_dir=tmp_path / "b"),
        **kw,
    )


def _no_zero_row_was_drawn(manifest: dict, name: str) -> None:
    """Regenerate every verification point's draw and check the mask input had a 1 in every row."""
    spec = ModelSpec.from_json(manifest["spec"])
    for p in manifest["exports"][0]["verification"]:
        if p["draw"] == "sample":
            continue
        mask = draw_inputs(spec, p["batch"], p["axes"], p["draw"], seed=p["batch"])[name]
        assert (mask.max(axis=-1) == 1).all(), p


def test_a_mask_declared_keeps_the_dynamo_export(tmp_path):
    result = _build(tmp_path, _spec("mask"))
    e = result.manifest["exports"][0]
    assert e["strategy"] == "dynamo" and [a["strategy"] for a in e["attempts"]] == ["dynamo"]
    assert result.manifest["draws"]["negative"]["mask"] == "mask: a single 1 per row, at its end (the most left padding)"
    _no_zero_row_was_drawn(result.manifest, "mask")


def test_an_undeclared_mask_says_why_dynamo_was_rejected(tmp_path, monkeypatch):
    """The old behaviour, now explained: the all-zero draw rejects dynamo, and the console says
    so in one line naming the draw, what it gave the mask, and how to declare it."""
    monkeypatch.chdir(tmp_path)
    args = ["build", "--model", MODEL, "--format", "onnx", "--input", "ids:int64:seq:0..49", "--input", "mask:int64:seq:0..1"]
    res = CliRunner(env={"COLUMNS": "400"}).invoke(cli, [*args, "--dynamic-axis", "seq=1,8,16", *FLAGS])
    assert res.exit_code == 0, res.output
    (line,) = [ln for ln in res.output.splitlines() if "strategy dynamo rejected" in ln]
    assert line.startswith("onnx fp32: strategy dynamo rejected (verification failed):")
    assert "draw 'negative'" in line and "mask: integers uniform in [0, 0] (lower half)" in line
    assert "--input mask:int64:seq:mask" in line
    manifest = json.loads((tmp_path / "builds" / "masked_attention" / "manifest.json").read_text())
    assert manifest["exports"][0]["strategy"] == "torchscript"
    assert manifest["draws"]["negative"]["mask"] == "integers uniform in [0, 0] (lower half)"


def test_the_builtin_encoder_is_verified_on_masks_only(tmp_path):
    result = build(BuildOptions("encoder", formats=("onnx",), grid=GRID, repository=tmp_path / "repo", build_dir=tmp_path / "b"))
    e = result.manifest["exports"][0]
    assert e["status"] == "ok" and e["strategy"] == "dynamo"
    assert result.manifest["spec"]["inputs"][1]["domain"] == "mask"
    assert all(d["attention_mask"].startswith("mask: ") for d in result.manifest["draws"].values())
    _no_zero_row_was_drawn(result.manifest, "attention_mask")
    ref = np.load(tmp_path / "b" / "encoder" / "reference.npz")
    assert (ref["input:attention_mask"].max(axis=-1) == 1).all()  # what clients check sends
