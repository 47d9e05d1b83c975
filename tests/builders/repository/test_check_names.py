"""Native TorchScript variants are checked under the names Triton's PyTorch backend serves."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders.build import BuildOptions, build
from builders.config.variants import VariantGrid
from builders.repository.view import Repository


@pytest.mark.slow
def test_native_torchscript_variant_maps_reference_names_to_served_names(tmp_path: Path):
    res = build(
        BuildOptions(
            "encoder",
            formats=("torchscript", "onnx"),
            serving="native",
            grid=VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,)),
            repository=tmp_path / "repo",
            build_dir=tmp_path / "builds",
        )
    )
    ts = next(n for n in res.manifest["variants"] if "_ts_" in n)
    onnx = next(n for n in res.manifest["variants"] if "_onnx_" in n)
    repo = Repository(tmp_path / "repo")
    v = repo.variant(ts)
    bindings = (*v.inputs, *v.outputs)
    assert any(b.served != b.name for b in bindings)  # the PyTorch backend's names differ from the spec's
    config = (tmp_path / "repo" / ts / "config.pbtxt").read_text()
    for b in bindings:
        assert f'name: "{b.served}"' in config  # the config serves exactly these names
    assert [b.name for b in v.outputs] == [t["name"] for t in res.manifest["spec"]["outputs"]]
    assert [b.index for b in v.outputs] == list(range(len(v.outputs)))
    assert all(b.served == b.name for b in (*repo.variant(onnx).inputs, *repo.variant(onnx).outputs))  # ONNX: the spec's names
