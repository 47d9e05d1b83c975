"""From ``example_inputs``, the positions of an integer input that index one table get one range, and the
Python API logs the "integer input ... verified with values ..." line the CLI prints (trial 23, T23-14: a bag of
8 ids into one EmbeddingBag got 8 per-position ranges from sampling noise, position 4 verified and sent only
within 236..941 of a 1000-row table, and nothing was said in Python)."""

from __future__ import annotations

import logging

import pytest
import torch
import torch.nn.functional as F

from builders.build import BuildOptions, build
from builders.config.variants import VariantGrid
from builders.model.lookups.shared_tables import merge_shared_positions
from builders.model.spec import ModelSpec


class _CTR(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.emb = torch.nn.EmbeddingBag(1000, 16, mode="mean")
        self.mlp = torch.nn.Sequential(torch.nn.Linear(16 + 13, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))

    def forward(self, sparse_ids, dense):
        return torch.sigmoid(self.mlp(torch.cat([self.emb(sparse_ids), dense], dim=1)))


class _ColumnsOfOneTable(torch.nn.Module):
    """Each of 3 columns looked up on its own, all in one functional table; a 4th column is a count (no table)."""

    def __init__(self):
        super().__init__()
        self.table = torch.nn.Parameter(torch.randn(50, 2))

    def forward(self, x):
        return sum(F.embedding(x[:, j], self.table) for j in range(3)) + x[:, 3:].float()


class _TwoTables(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.user = torch.nn.Embedding(40, 2)
        self.item = torch.nn.Embedding(60, 2)

    def forward(self, ids):
        return self.user(ids[:, 0]) * self.item(ids[:, 1])


def _examples(*columns: tuple[int, int]) -> torch.Tensor:
    return torch.tensor([[lo for lo, _ in columns], [hi for _, hi in columns]], dtype=torch.int64)


@pytest.mark.slow  # a real export: `make test` only (the fast tier's guard)
def test_a_bag_of_ids_into_one_table_gets_the_union_of_its_positions_ranges(tmp_path, caplog):
    ids = torch.randint(0, 1000, (8, 8), generator=torch.Generator().manual_seed(3))
    opts = BuildOptions(
        _CTR().eval(),
        name="ctrapi",
        formats=("torchscript",),
        example_inputs=(ids, torch.randn(8, 13)),
        grid=VariantGrid(counts=(1,), queue_delays_us=(None,)),
        repository=tmp_path / "repo",
        build_dir=tmp_path / "builds",
    )
    with caplog.at_level(logging.INFO, logger="builders"):
        result = build(opts)
    recorded = result.manifest["value_ranges"]["sparse_ids"]
    assert recorded["value_range"] == [int(ids.min()), int(ids.max())] and recorded["tables"] == ["emb"]
    said = [r.getMessage() for r in caplog.records]
    assert f"integer input 'sparse_ids': verified with values {int(ids.min())}..{int(ids.max())} (value_range from" in "\n".join(
        said
    )
    assert any("since its positions index the same table ('emb')" in m for m in said)


def test_columns_looked_up_one_by_one_in_one_table_share_a_range_and_a_count_keeps_its_own():
    spec = ModelSpec.from_example((_examples((3, 40), (0, 45), (7, 30), (1, 2)),))
    merged = merge_shared_positions(_ColumnsOfOneTable().eval(), spec)
    assert merged.inputs[0].value_range == ((0, 45), (0, 45), (0, 45), (1, 2))


def test_columns_of_tables_of_their_own_keep_their_own_ranges():
    spec = ModelSpec.from_example((_examples((0, 39), (5, 59)),))
    assert merge_shared_positions(_TwoTables().eval(), spec).inputs[0].value_range == ((0, 39), (5, 59))


def test_a_spec_given_by_the_user_is_left_as_it_is():
    spec = ModelSpec.from_flags(["ids:int64:2:0..10,3..20"])
    assert merge_shared_positions(_ColumnsOfOneTable().eval(), spec) is spec
