"""An integer value at or past the rows of a table the build found the input indexing is refused before
anything is sent, once, and a sweep's ``--input-data`` before its server starts (trial 23, T23-6: a sweep
whose ids were past the EmbeddingBag warned, started the server anyway, failed, and said the server's
~500-character error four times)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from builders.model.range_source import InputRange
from builders.model.spec import ModelSpec
from clients.input_values import check_values
from core.errors import ClientError, PerfError
from perf.measure.user_data import check_user_data

CONFIG = {
    "name": "ctr",
    "max_batch_size": 8,
    "input": [
        {"name": "sparse_ids", "data_type": "TYPE_INT64", "dims": ["8"]},
        {"name": "dense", "data_type": "TYPE_FP32", "dims": ["13"]},
    ],
}


def _spec(**ranges: InputRange) -> ModelSpec:
    spec = ModelSpec.from_flags(["sparse_ids:int64:8:0..999", "dense:float32:13"], ["score"])
    inputs = tuple(dataclasses.replace(t, recorded=ranges[t.name]) if t.name in ranges else t for t in spec.inputs)
    return dataclasses.replace(spec, inputs=inputs)


BAG = InputRange(value_range=(0, 999), source="the --input flags", tables=["emb"], rows=1000)


def test_a_sweep_s_ids_past_the_table_are_refused_before_its_server_starts(tmp_path: Path) -> None:
    src = tmp_path / "oor.json"
    ids = [[905 + 40 * i + j for j in range(8)] for i in range(8)]
    src.write_text(json.dumps({"data": [{"sparse_ids": row, "dense": [0.0] * 13} for row in ids]}))
    with pytest.raises(PerfError) as e:
        check_user_data("ctr_onnx", CONFIG, _spec(sparse_ids=BAG), src)
    said = e.value.message
    assert "an integer input holds an index past a table the model indexes: input 'sparse_ids' holds 905..1192" in said
    assert "40 of its values are 1000 or more (up to 1192), past a table of 1000 rows (0..999)" in said
    assert "'emb'" in said and "nothing was sent" in said
    assert e.value.hint == "send values within 0..999; the build verified 'sparse_ids' 0..999 (its value_range)"


def test_values_within_the_table_but_outside_the_range_are_warned_only_and_below_zero_is_not_past() -> None:
    narrow = InputRange(value_range=(0, 499), source="the --input flags", tables=["emb"], rows=1000)
    spec = _spec(sparse_ids=narrow)
    found = check_values("in.npz", spec, {"sparse_ids": [np.full((2, 8), 900, np.int64)]})
    assert [o.name for o in found] == ["sparse_ids"]  # warned: the table has the row
    assert check_values("in.npz", spec, {"sparse_ids": [np.full((2, 8), -1, np.int64)]})  # ONNX Runtime reads -1


def test_each_column_is_checked_against_its_own_table() -> None:
    cols = InputRange(value_range=[(0, 39), (0, 59)], source="the --input flags", tables=["user", "item"], rows=[40, 60])
    spec = ModelSpec.from_flags(["ids:int64:2:0..39,0..59"], ["y"])
    spec = dataclasses.replace(spec, inputs=(dataclasses.replace(spec.inputs[0], recorded=cols),))
    assert check_values("f", spec, {"ids": [np.array([[39, 59]], np.int64)]}) == []
    with pytest.raises(
        ClientError, match=r"1 of its values at position 0 of its last axis are 40 or more \(up to 45\), past a table of 40 rows"
    ):
        check_values("f", spec, {"ids": [np.array([[45, 50]], np.int64)]})


def test_a_build_that_did_not_record_its_tables_rows_warns_as_before() -> None:
    old = InputRange(value_range=(0, 999), source="the --input flags", tables=["emb"])
    assert check_values("f", _spec(sparse_ids=old), {"sparse_ids": [np.full((1, 8), 1185, np.int64)]})
