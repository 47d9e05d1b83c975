"""One served signature for every format: what ``builders build`` writes, ``builders validate`` passes."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from builders.build import BuildOptions, build
from builders.config.pbtxt import read_config
from builders.config.variants import VariantGrid
from builders.model.spec import ModelSpec
from builders.repository.validate import validate_repository

# a tabular model of trial 7's kind: F.normalize gives its embedding a symbolic dim in the ONNX graph
NORMED = """
import torch
import torch.nn.functional as F
from torch import nn


class Normed(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 16)
        self.proj = nn.Linear(6, 16)
        self.head = nn.Linear(16, 3)

    def forward(self, feats, ids):
        h = self.proj(feats) + self.emb(ids).mean(dim=1)
        return self.head(h), F.normalize(h, dim=-1)


def make():
    torch.manual_seed(0)
    return Normed().eval()
"""


@pytest.fixture()
def normed_model(tmp_path, monkeypatch):
    (tmp_path / "normed_pkg.py").write_text(textwrap.dedent(NORMED))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "normed_pkg:make"
    sys.modules.pop("normed_pkg", None)


@pytest.mark.slow  # real export (torch.jit.trace, torch.onnx.export)
def test_every_format_declares_the_specs_fixed_output_dims_and_validate_passes(tmp_path: Path, normed_model: str):
    spec = ModelSpec.from_flags(["feats:float32:6", "ids:int64:n:0..49"], ["logits", "embedding"], ["n=1,4,8"])
    result = build(
        BuildOptions(
            normed_model,
            repository=tmp_path / "repo",
            build_dir=tmp_path / "builds",
            spec=spec,
            formats=("torchscript", "onnx"),
            grid=VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,)),
        )
    )
    dims = {d.name: [list(o.dims) for o in read_config(d / "config.pbtxt").output] for d in result.variant_dirs}
    assert len(dims) == 2 and all(v == [[3], [16]] for v in dims.values()), dims
    assert validate_repository(tmp_path / "repo") == []
