"""An integer input past an embedding table's size is one clear error naming the input, the
values, where they came from and the range the model accepts (new-user trial: token ids >=
num_embeddings ended in torch's bare "IndexError: index out of range in self")."""

from __future__ import annotations

import sys

import numpy as np
import pytest
import torch
from click.testing import CliRunner

from builders.cli.main import cli
from builders.model.outputs import infer_outputs, run_eager
from builders.model.spec import ModelSpec
from core.errors import ModelSpecError

NET = """\
import torch


class SeqNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.emb = torch.nn.Embedding(100, 8)
        self.lin = torch.nn.Linear(8, 2)

    def forward(self, ids):
        return self.lin(self.emb(ids).mean(1))


def make():
    return SeqNet().eval()
"""


class _Net(torch.nn.Module):
    def __init__(self, rows: int = 100):
        super().__init__()
        self.emb = torch.nn.Embedding(rows, 4)

    def forward(self, ids, other):
        return self.emb(ids).sum(1) + other.float().sum()


def test_a_range_past_the_table_names_the_input_and_the_range_it_accepts(tmp_path, monkeypatch):
    (tmp_path / "seqnet.py").write_text(NET)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "seqnet", raising=False)  # the file is imported as module seqnet: undone after
    r = CliRunner().invoke(
        cli,
        ["build", "--model", "seqnet.py:make", "--input", "ids:int64:seq:0..200", "--dynamic-axis", "seq=1,8,16"]
        + ["--build-dir", "b", "-r", "r"],
    )
    assert isinstance(r.exception, ModelSpecError), r.output
    text = f"{r.exception.message} -> {r.exception.hint}"
    assert text.startswith("input 'ids' is drawn from 0..200 (the range given by --input")
    assert "Embedding 'emb' of 100 rows (num_embeddings=100)" in text and "which accepts 0..99" in text
    assert "--input ids:int64:seq:0..99" in text
    assert not (tmp_path / "r").exists()


def test_the_default_range_is_named_as_the_default():
    spec = ModelSpec.from_flags(["ids:int64:4", "other:int64:2:0..3"])
    with pytest.raises(ModelSpecError) as e:
        run_eager(_Net(50), spec, {"ids": np.full((2, 4), 70, dtype=np.int64), "other": np.zeros((2, 2), dtype=np.int64)})
    assert "input 'ids' is drawn from 0..100 (the default range of an integer input whose spec gives none)" in e.value.message
    assert "which accepts 0..49" in e.value.message and "--input ids:int64:4:0..49" in (e.value.hint or "")


def test_the_user_s_own_sample_is_named_as_the_source():
    spec = ModelSpec.from_flags(["ids:int64:4:0..99", "other:int64:2:0..3"])
    sample = {"ids": np.array([[1, 2, 150, 3]], dtype=np.int64), "other": np.zeros((1, 2), dtype=np.int64)}
    with pytest.raises(ModelSpecError) as e:
        run_eager(_Net(), spec, sample)
    assert "input 'ids' holds 1..150 in your own inputs (--sample; the spec's range is 0..99)" in e.value.message
    assert "keep 'ids' within 0..99 in the sample file" in (e.value.hint or "")


def test_other_failures_are_not_mistaken_for_a_range():
    class Broken(torch.nn.Module):
        def forward(self, ids):
            raise ValueError("not an index")

    with pytest.raises(ModelSpecError, match="ValueError: not an index"):
        infer_outputs(Broken(), ModelSpec.from_flags(["ids:int64:4"]))
