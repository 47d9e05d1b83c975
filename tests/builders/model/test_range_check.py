"""An integer input's range too wide for a table the model indexes is refused once, before any
export, naming the table and the range to give (trial 23, T23-1: an ``nn.EmbeddingBag(1000)`` given
``0..1000`` exported every format, then failed on each with torch's raw "Index 3 of input takes
value 1000"; with ``nn.Embedding`` the message was good but came after exporting, once per format)."""

from __future__ import annotations

import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from click.testing import CliRunner

from builders.cli.main import cli
from builders.model.eager import run_eager
from builders.model.lookups.index_ranges import index_uses
from builders.model.lookups.probe import looks_like_index_error
from builders.model.lookups.range_ends import refuse_ranges_past_tables
from builders.model.spec import ModelSpec
from core.errors import ModelSpecError

CTR = """\
import torch
from torch import nn


class CTR(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.EmbeddingBag(1000, 16, mode="mean")
        self.mlp = nn.Sequential(nn.Linear(16 + 13, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, sparse_ids: torch.Tensor, dense: torch.Tensor) -> torch.Tensor:
        e = self.emb(sparse_ids)
        return torch.sigmoid(self.mlp(torch.cat([e, dense], dim=1)))


def ctr():
    torch.manual_seed(0)
    return CTR().eval()
"""


def test_a_range_one_past_an_embedding_bag_is_refused_before_any_export(tmp_path, monkeypatch):
    (tmp_path / "ctr.py").write_text(CTR)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "ctr", raising=False)
    r = CliRunner().invoke(
        cli,
        ["build", "--model", "ctr.py:ctr", "--input", "sparse_ids:int64:8:0..1000", "--input", "dense:float32:13"]
        + ["--output", "score", "--build-dir", "b", "-r", "r"],
    )
    assert isinstance(r.exception, ModelSpecError), r.output
    text = f"{r.exception.message} -> {r.exception.hint}"
    assert "EmbeddingBag 'emb' of 1000 rows (num_embeddings=1000)" in text and "which accepts 0..999" in text
    assert "--input sparse_ids:int64:8:0..999" in text and "before any export" in text
    assert "exporting" not in r.output and "Index 3 of input" not in text
    assert not (tmp_path / "r").exists() and not (tmp_path / "b").exists()


class _Padded(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(50, 4, padding_idx=0)

    def forward(self, ids):
        return self.emb(ids).sum(1)


class _Functional(torch.nn.Module):
    """Tables as bare parameters, looked up with F.embedding and F.embedding_bag."""

    def __init__(self):
        super().__init__()
        self.words = torch.nn.Parameter(torch.randn(30, 4))
        self.bag = torch.nn.Parameter(torch.randn(20, 4))

    def forward(self, ids, tags):
        return F.embedding(ids, self.words).sum(1) + F.embedding_bag(tags, self.bag, mode="sum")


class _Offsets(torch.nn.Module):
    """Three columns of 5, 7 and 9 categories, offset into one table of 21 rows."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.EmbeddingBag(21, 4, mode="sum")
        self.register_buffer("offsets", torch.tensor([0, 5, 12]))

    def forward(self, cats):
        return self.emb(cats + self.offsets)


class _TwoTables(torch.nn.Module):
    """A user table of 40 rows and an item table of 60, fed by one column each."""

    def __init__(self):
        super().__init__()
        self.user = torch.nn.Embedding(40, 4)
        self.item = torch.nn.Embedding(60, 4)

    def forward(self, ids):
        return self.user(ids[:, 0]) * self.item(ids[:, 1])


def _refused(module, flags):
    with pytest.raises(ModelSpecError) as e:
        refuse_ranges_past_tables(module.eval(), ModelSpec.from_flags(flags))
    return e.value.message, e.value.hint or ""


def test_an_embedding_with_padding_idx_gets_the_range_it_accepts():
    said, hint = _refused(_Padded(), ["ids:int64:6:0..50"])
    assert "Embedding 'emb' of 50 rows" in said and "--input ids:int64:6:0..49" in hint
    refuse_ranges_past_tables(_Padded().eval(), ModelSpec.from_flags(["ids:int64:6:0..49"]))


def test_functional_lookups_name_their_weights():
    said, hint = _refused(_Functional(), ["ids:int64:3:0..30", "tags:int64:5:0..20"])
    assert "'words' of 30 rows (accepts 0..29) got 0..30 from input 'ids'" in said
    assert "'bag' of 20 rows (accepts 0..19) got 0..20 from input 'tags'" in said
    assert "--input ids:int64:3:0..29" in hint and "--input tags:int64:5:0..19" in hint
    refuse_ranges_past_tables(_Functional().eval(), ModelSpec.from_flags(["ids:int64:3:0..29", "tags:int64:5:0..19"]))


def test_a_low_end_below_zero_is_refused_too():
    said, hint = _refused(_Padded(), ["ids:int64:6:-1..10"])
    assert "Embedding 'emb' of 50 rows" in said and "-1..10" in said and "--input ids:int64:6:0..49" in hint


def test_ids_offset_into_one_table_are_checked_at_their_ends():
    """Indices derived from the input (offset per column) are not the input: the table is still checked."""
    said, _ = _refused(_Offsets(), ["cats:int64:3:0..4,0..6,0..9"])
    assert "'emb' of 21 rows (accepts 0..20) got 0..21" in said
    refuse_ranges_past_tables(_Offsets().eval(), ModelSpec.from_flags(["cats:int64:3:0..4,0..6,0..8"]))


def test_columns_feeding_tables_of_their_own_get_one_range_each():
    said, hint = _refused(_TwoTables(), ["ids:int64:2:0..59"])
    assert "'user' of 40 rows (accepts 0..39) got 0..59 from input 'ids' at position 0" in said
    assert "--input ids:int64:2:0..39,0..59" in hint
    refuse_ranges_past_tables(_TwoTables().eval(), ModelSpec.from_flags(["ids:int64:2:0..39,0..59"]))


@pytest.mark.slow  # a real torch.jit.script: `make test` only (the fast tier's guard)
def test_a_scripted_model_is_refused_on_torch_s_error():
    scripted = torch.jit.trace(_Padded().eval(), torch.zeros(1, 6, dtype=torch.int64))
    said, _ = _refused(scripted, ["ids:int64:6:0..50"])
    assert "a value past the size of a table it indexes" in said and "0..50" in said


def test_embedding_bag_errors_are_read_as_an_index_past_a_table():
    """EmbeddingBag's own words ("Index 3 of input takes value 1000 which is not in the valid range",
    "Expected i < index_size") were not recognised: the eager failure was a raw torch error."""
    assert looks_like_index_error(RuntimeError("Index 3 of input takes value 1000 which is not in the valid range [0, 1000)"))
    assert looks_like_index_error(RuntimeError("Expected i < index_size to be true, but got false."))
    spec = ModelSpec.from_flags(["ids:int64:6:0..49"])
    with pytest.raises(ModelSpecError, match="EmbeddingBag 'emb' of 50 rows"):
        bag = torch.nn.Module()
        bag.emb = torch.nn.EmbeddingBag(50, 4)
        bag.forward = lambda ids: bag.emb(ids)
        run_eager(bag, spec, {"ids": np.full((2, 6), 50, np.int64)})


def test_the_build_records_each_input_s_tables_and_rows():
    spec = ModelSpec.from_flags(["ids:int64:3:0..29", "tags:int64:5:0..19"])
    found = index_uses(_Functional().eval(), spec, spec.export_inputs())
    assert found is not None and [u.name for u in found["ids"]] == ["words"] and found["tags"][0].rows == 20


@pytest.mark.slow  # a real export: `make test` only (the fast tier's guard)
def test_an_exported_program_s_flattened_bag_is_traced_to_its_input():
    """torch.export's module looks up aten.embedding_bag with the ids flattened to one row: still the input."""

    class Bag(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.EmbeddingBag(50, 4)

        def forward(self, ids):
            return self.emb(ids)

    exported = torch.export.export(Bag().eval(), (torch.zeros(2, 6, dtype=torch.int64),)).module()
    with pytest.raises(ModelSpecError) as e:  # an exported program's module takes no .eval()
        refuse_ranges_past_tables(exported, ModelSpec.from_flags(["ids:int64:6:0..50"]))
    assert "of 50 rows (num_embeddings=50)" in e.value.message and "--input ids:int64:6:0..49" in (e.value.hint or "")


COUNTRY = """\
import torch
from torch import nn


class Country(nn.Module):
    def __init__(self):
        super().__init__()
        self.cty = nn.Embedding(50, 8)
        self.head = nn.Linear(8 + 6, 1)

    def forward(self, country: torch.Tensor, numeric: torch.Tensor) -> torch.Tensor:
        return self.head(torch.cat([self.cty(country).sum(1), numeric], dim=1))


def country():
    torch.manual_seed(0)
    return Country().eval()
"""


def test_a_sample_holding_an_index_past_a_table_is_refused_before_any_export(tmp_path, monkeypatch):
    """Trial 31, F15: ``country`` 99 in a --sample, for an ``nn.Embedding(50)`` whose declared range 0..49 fits, passed
    the sample's size and row checks; both formats exported and the build ended "every export failed" with a
    manifest.failed.json. The range rule's run on the sample refuses it before any export, as clients refuse it."""
    (tmp_path / "country.py").write_text(COUNTRY)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "country", raising=False)
    np.savez(tmp_path / "s.npz", country=np.array([[99], [3]], np.int64), numeric=np.zeros((2, 6), np.float32))
    r = CliRunner().invoke(
        cli,
        ["build", "--model", "country.py:country", "--input", "country:int64:1:0..49", "--input", "numeric:float32:6"]
        + ["--output", "score", "--build-dir", "b", "-r", "r", "--max-batch-sizes", "8", "--sample", "s.npz"],
    )
    assert isinstance(r.exception, ModelSpecError), r.output
    text = f"{r.exception.message} -> {r.exception.hint}"
    assert "input 'country' holds 3..99" in text and "Embedding 'cty' of 50 rows" in text and "accepts 0..49" in text
    assert "before any export, by running the model on --sample s.npz" in text and "keep 'country' within 0..49" in text
    assert "exporting" not in r.output and "every export failed" not in text
    assert not (tmp_path / "b" / "country" / "manifest.failed.json").exists() and not (tmp_path / "r").exists()
