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
from builders.model.eager import run_eager
from builders.model.outputs import infer_outputs
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


class _Tabular(torch.nn.Module):
    """Two category columns with tables of 6 and 4 rows, and token ids into a table of 10 rows."""

    ROWS = (6, 4)

    def __init__(self):
        super().__init__()
        self.cols = torch.nn.ModuleList([torch.nn.Embedding(r, 2) for r in self.ROWS])
        self.tok = torch.nn.Embedding(10, 2)

    def forward(self, cats, ids):
        cols = [e(cats[:, i]) for i, e in enumerate(self.cols)]
        return torch.cat(cols, dim=1) + self.tok(ids).sum(1).repeat(1, len(self.ROWS))


def test_every_table_past_its_rows_is_said_at_once_with_the_range_that_fits_them_all():
    """Trial 11, F4: a tabular input feeding six tables named only the first that failed; a user
    who followed it failed on the next, and three ranges in one sentence read alike."""
    spec = ModelSpec.from_flags(["cats:int64:2:0..8", "ids:int64:3:0..12"])
    inputs = {"cats": np.array([[7, 5], [0, 1]], np.int64), "ids": np.array([[11, 0, 2], [1, 1, 1]], np.int64)}
    with pytest.raises(ModelSpecError) as e:
        run_eager(_Tabular(), spec, inputs)
    said = e.value.message
    for table, rows, got, source in (
        ("cols.0", 6, "0..7", "input 'cats' at position 0 of its last axis"),
        ("cols.1", 4, "1..5", "input 'cats' at position 1 of its last axis"),
        ("tok", 10, "0..11", "input 'ids'"),
    ):
        assert f"Embedding {table!r} of {rows} rows (accepts 0..{rows - 1}) got {got} from {source}" in said
    assert said.startswith("the model indexes 3 of the 3 tables it looked up past their rows:")
    assert "The indices come from draws of 'cats' 0..8 (the range given by --input" in said
    a, b = _Tabular.ROWS  # each column up to its own table's last row (trial 11, F1), not the smallest table's
    assert f"'cats' per position of its last axis, 0: 0..{a - 1} ('cols.0', {a} rows), 1: 0..{b - 1} ('cols.1', {b} rows)" in said
    assert "'ids' 0..9 (it feeds 1 table; the smallest, 'tok', has 10 rows)" in said
    hint = e.value.hint or ""
    assert f'--input cats:int64:2:0..{a - 1},0..{b - 1} (or "value_range": [[0, {a - 1}], [0, {b - 1}]] in the spec file)' in hint
    assert "--input ids:int64:3:0..9" in hint


def test_a_table_within_its_rows_still_bounds_the_range_its_column_gets():
    """Only the larger column's table fails, but the range given back must fit the smaller one
    too: one range per position, each within its own table."""
    spec = ModelSpec.from_flags(["cats:int64:2:0..8", "ids:int64:3:0..9"])
    inputs = {"cats": np.array([[8, 3], [1, 0]], np.int64), "ids": np.zeros((2, 3), np.int64)}
    with pytest.raises(ModelSpecError) as e:
        run_eager(_Tabular(), spec, inputs)
    assert "the model indexes 1 of the 3 tables it looked up past their rows" in e.value.message
    assert "--input cats:int64:2:0..5,0..3" in (e.value.hint or "")


class _Lengths(torch.nn.Module):
    """Valid-sample counts of a waveform index a table (of fewer rows than the axis's largest size)."""

    ROWS = 500

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(self.ROWS, 2)

    def forward(self, wave, lengths):
        return self.emb(lengths).sum(1) + wave.sum(1, keepdim=True)


LENGTHS_SPEC = ModelSpec.from_flags(["wave:float32:time", "lengths:int64:1:1..time"], axes=["time=100,1000,16000"])


def test_an_axis_bounded_range_is_said_at_the_failed_request_s_own_size():
    """``lengths`` 1..time in a request at time=1000 was drawn within 1..1000: the error said 1..16000
    (the axis's largest size), which the request never drew from."""
    time = LENGTHS_SPEC.axis_sizes("opt")["time"]
    assert time > _Lengths.ROWS
    inputs = {"wave": np.zeros((2, time), np.float32), "lengths": np.array([[_Lengths.ROWS], [time]], np.int64)}
    with pytest.raises(ModelSpecError) as e:
        run_eager(_Lengths(), LENGTHS_SPEC, inputs)
    said = e.value.message
    assert said.startswith(f"input 'lengths' is drawn from 1..{time} (1..time at this request's time={time}: "), said
    assert f"--input lengths:int64:1:1..{_Lengths.ROWS - 1}" in (e.value.hint or "")


def test_values_past_the_request_s_own_axis_size_are_the_user_s_not_draws():
    """A sample at time=1000 holding lengths 2000 cannot come from a draw of 1..time there: it is named
    as the user's own values (the axis's largest size, 16000, made it look drawn)."""
    time = LENGTHS_SPEC.axis_sizes("opt")["time"]
    inputs = {"wave": np.zeros((1, time), np.float32), "lengths": np.array([[2 * time]], np.int64)}
    with pytest.raises(ModelSpecError) as e:
        run_eager(_Lengths(), LENGTHS_SPEC, inputs)
    assert e.value.message.startswith(f"input 'lengths' holds {2 * time}..{2 * time} in your own inputs"), e.value.message


def test_an_axis_bounded_range_is_told_to_lower_the_axis_keeping_the_bound():
    """Break test B12: ``1..time`` past a table was told a fixed ``1..499``, which drops the bound;
    the advice first keeps it and lowers the axis's max to the table's last row."""
    time = LENGTHS_SPEC.axis_sizes("opt")["time"]
    (low, opt, _high), last = LENGTHS_SPEC.dynamic_axes["time"], _Lengths.ROWS - 1
    inputs = {"wave": np.zeros((2, time), np.float32), "lengths": np.array([[_Lengths.ROWS], [time]], np.int64)}
    with pytest.raises(ModelSpecError) as e:
        run_eager(_Lengths(), LENGTHS_SPEC, inputs)
    hint = e.value.hint or ""
    kept = f"lower time's max to {last}, which keeps 1..time within 1..{last}: --dynamic-axis time={low},{min(opt, last)},{last}"
    assert kept in hint and hint.index(kept) < hint.index(f"or a fixed range: --input lengths:int64:1:1..{last}"), hint
