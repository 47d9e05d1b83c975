"""Native TorchScript variants are checked under the names Triton's PyTorch backend serves."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders.build import BuildOptions, build
from builders.variants import VariantGrid
from clients.check import served_names


@pytest.mark.slow
def test_native_torchscript_variant_maps_reference_names_to_served_names(tmp_path: Path):
    res = build(BuildOptions("encoder", formats=("torchscript", "onnx"), serving="native",
                             grid=VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,)),
                             repository=tmp_path / "repo", build_dir=tmp_path / "builds"))
    ts = next(n for n in res.manifest["variants"] if "_ts_" in n)
    onnx = next(n for n in res.manifest["variants"] if "_onnx_" in n)
    names = served_names(tmp_path / "repo", ts)
    assert names is not None
    config = (tmp_path / "repo" / ts / "config.pbtxt").read_text()
    for served in (*names["inputs"].values(), *names["outputs"].values()):
        assert f'name: "{served}"' in config  # the config serves exactly these names
    assert set(names["outputs"]) == {t["name"] for t in res.manifest["spec"]["outputs"]}
    assert served_names(tmp_path / "repo", onnx) is None  # ONNX serves the spec's names
