"""Which input (and position of its last axis) feeds each table is told apart, not guessed (trial 30,
F2/F11): a tabular input ``cats:int64:3:0..11`` feeding tables of 5, 12 and 7 rows by its columns
was run at its range's ends only, where every column held the same value, and each table went to the
first equal column: the refusal blamed position 0 for the 7-row table and its advice failed twice
before the third was right; it also counted "1 of the 5 tables" for a model of 3."""

from __future__ import annotations

import pytest
import torch

from builders.model.lookups.index_ranges import index_uses
from builders.model.lookups.range_ends import refuse_ranges_past_tables
from builders.model.spec import ModelSpec
from core.errors import ModelSpecError


class _Tab(torch.nn.Module):
    """Trial 30's tabular model: tables of 5, 12 and 7 rows, one per column of ``cats``."""

    def __init__(self):
        super().__init__()
        self.e0, self.e1, self.e2 = torch.nn.Embedding(5, 4), torch.nn.Embedding(12, 4), torch.nn.Embedding(7, 4)

    def forward(self, cats, feats):
        x = [self.e0(cats[..., 0]), self.e1(cats[..., 1]), self.e2(cats[..., 2])]
        return torch.cat([*x, feats], dim=-1).sum(-1)


class _Shared(torch.nn.Module):
    """Positions 0 and 1 index one table of 6 rows, position 2 a table of 4 rows of its own."""

    def __init__(self):
        super().__init__()
        self.shared, self.own = torch.nn.Embedding(6, 4), torch.nn.Embedding(4, 4)

    def forward(self, cats):
        return self.shared(cats[:, 0]) + self.shared(cats[:, 1]) + self.own(cats[:, 2])


class _UserItem(torch.nn.Module):
    """Two inputs of one shape and one range: ``user`` into 30 rows, ``item`` into 50."""

    def __init__(self):
        super().__init__()
        self.users, self.items = torch.nn.Embedding(30, 4), torch.nn.Embedding(50, 4)

    def forward(self, item, user):
        return (self.users(user) * self.items(item)).sum(-1)


class _Computed(torch.nn.Module):
    """A table indexed by a computed index (twice column 0): no column of the input."""

    def __init__(self):
        super().__init__()
        self.emb, self.other = torch.nn.Embedding(10, 4), torch.nn.Embedding(10, 4)

    def forward(self, cats):
        return self.emb(cats[:, 0] * 2) + self.other(cats[:, 1])


def _refused(module, flags):
    with pytest.raises(ModelSpecError) as e:
        refuse_ranges_past_tables(module.eval(), ModelSpec.from_flags(flags))
    return e.value.message, e.value.hint or ""


def _builds(module, flags):
    refuse_ranges_past_tables(module.eval(), ModelSpec.from_flags(flags))  # no error: the advice builds


def test_columns_with_equal_ranges_are_told_apart_and_the_advice_builds_the_first_time():
    said, hint = _refused(_Tab(), ["cats:int64:3:0..11", "feats:float32:8"])
    assert "indexes 2 of the 3 tables it looked up past their rows" in said
    assert "'e0' of 5 rows (accepts 0..4) got 0..11 from input 'cats' at position 0" in said
    assert "'e2' of 7 rows (accepts 0..6) got 0..11 from input 'cats' at position 2" in said
    assert "'e1'" not in said.split(" (checked")[0]
    assert "--input cats:int64:3:0..4,0..11,0..6" in hint
    _builds(_Tab(), ["cats:int64:3:0..4,0..11,0..6", "feats:float32:8"])


def test_a_table_fed_by_several_positions_is_one_table_and_fits_each():
    said, hint = _refused(_Shared(), ["cats:int64:3:0..9"])
    assert "indexes 2 of the 2 tables" in said
    assert "'shared' of 6 rows (accepts 0..5) got 0..9 from input 'cats' at position 0" in said
    assert "'shared' of 6 rows (accepts 0..5) got 0..9 from input 'cats' at position 1" in said
    assert "'own' of 4 rows (accepts 0..3) got 0..9 from input 'cats' at position 2" in said
    assert "--input cats:int64:3:0..5,0..5,0..3" in hint
    _builds(_Shared(), ["cats:int64:3:0..5,0..5,0..3"])


def test_two_inputs_of_one_range_are_told_apart():
    said, hint = _refused(_UserItem(), ["item:int64:1:0..49", "user:int64:1:0..49"])
    assert "input 'user' is drawn from 0..49" in said and "'users' of 30 rows" in said and "input 'item'" not in said
    assert "--input user:int64:1:0..29" in hint and "--input item" not in hint
    _builds(_UserItem(), ["item:int64:1:0..49", "user:int64:1:0..29"])


def test_a_computed_index_is_not_blamed_on_a_column():
    said, _ = _refused(_Computed(), ["cats:int64:2:0..9"])
    assert "'emb' of 10 rows (accepts 0..9) got 0..18 from an integer input it was not traced to" in said
    assert "'emb' of 10 rows (accepts 0..9) got 0..0" not in said and "1 of the 2 tables" in said


def test_columns_that_cannot_be_told_apart_are_said_to_be_so():
    """Two columns held at one value (a range of one value each) feed the same indices in every run."""
    said, hint = _refused(_Computed(), ["cats:int64:2:0..9,0..0"])
    assert "got 0..18" in said  # the computed one; the other table is fine
    with pytest.raises(ModelSpecError) as e:
        refuse_ranges_past_tables(_Shared().eval(), ModelSpec.from_flags(["cats:int64:3:7..7,7..7,0..3"]))
    said, hint = e.value.message, e.value.hint or ""
    assert "from input 'cats' at position 0 or 1 of its last axis (the runs could not tell which" in said
    assert "--input cats:int64:3:5..5,5..5,0..3" in hint
    _builds(_Shared(), ["cats:int64:3:5..5,5..5,0..3"])


def test_the_build_records_each_column_s_own_table():
    spec = ModelSpec.from_flags(["cats:int64:3:0..4,0..4,0..4", "feats:float32:8"])
    found = index_uses(_Tab().eval(), spec, {**spec.export_inputs(), "cats": spec.export_inputs()["cats"] * 0})
    assert found is not None and [(u.name, u.source) for u in found["cats"]] == [
        ("e0", ("cats", 0)),
        ("e1", ("cats", 1)),
        ("e2", ("cats", 2)),
    ]
