"""``clients`` and ``triton-perf`` honour a value range given per position of the last axis
(trial 11, F1): generated requests (``clients infer``, cold starts), perf_analyzer's input data and
the check of a user's own values read each column's own range from the build's manifest."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pytest
from served_configs import variant_config

from builders.config.variants import Variant
from builders.model.spec import ModelSpec
from clients.input_values import outside_range
from clients.inputs import ModelSignature, generate_inputs, plan_inputs, spec_for
from perf.measure.inputs import input_args
from perf.measure.user_data import check_user_data

#: Two category columns with tables of 3 and 50 rows, and token ids into a table of 20 rows.
PAIRS = ((0, 2), (0, 49))
SPEC = ModelSpec.from_flags(["cats:int64:2:0..2,0..49", "ids:int64:4:0..19"], ["y"])
VARIANT = Variant("tab", "onnx", max_batch_size=8)
CONFIG = variant_config(SPEC, VARIANT)
SIG = ModelSignature.from_config(CONFIG)
#: Rows generated: enough that every value of a 50-row column turns up.
MANY = 2000


def _columns(values: np.ndarray) -> list[tuple[int, int]]:
    cols = np.asarray(values).reshape(-1, np.asarray(values).shape[-1])
    return [(int(lo), int(hi)) for lo, hi in zip(cols.min(axis=0), cols.max(axis=0))]


def test_generated_requests_keep_each_column_within_its_range_read_from_the_manifest(fake_build) -> None:
    repo = fake_build(SPEC, VARIANT)
    spec = spec_for(repo, VARIANT.name)  # through the manifest's record
    assert spec is not None and spec.inputs[0].value_range == PAIRS
    batches = [generate_inputs(SIG, 8, spec, seed) for seed in range(MANY // 8)]  # also what a cold start sends
    assert _columns(np.concatenate([b["cats"] for b in batches])) == list(PAIRS)
    assert _columns(np.concatenate([b["ids"] for b in batches])) == [(0, 19)] * 4
    (cats, _ids) = plan_inputs(SIG, 1, spec)
    assert cats.values == "integers uniform in [0, 2], [0, 49] (per position of the last axis) (the build's value_range)"


def test_perf_analyzer_data_keeps_each_column_within_its_range(tmp_path: Path) -> None:
    args = input_args(CONFIG, SPEC, tmp_path, steps=MANY // 2)
    data = json.loads(Path(args[args.index("--input-data") + 1]).read_text())["data"]
    rows = np.array([step["cats"]["content"] for step in data]).reshape(-1, 2)
    assert all(step["cats"]["shape"] == [2] for step in data)
    assert _columns(rows) == list(PAIRS)


def test_a_user_s_values_are_checked_per_position(tmp_path: Path, caplog) -> None:
    t = SPEC.inputs[0]
    within = np.array([[2, 49], [0, 30]], np.int64)  # 30 and 49 are past the 3-row table's range but within their column's
    assert outside_range(t, [within]) is None
    past = np.array([[2, 0], [5, 49], [-1, 7]], np.int64)  # column 0 out at both ends, column 1 within
    found = outside_range(t, [past])
    assert found is not None and (found.below, found.above, found.size) == (1, 1, 6)
    assert found.positions == ("position 0 holds -1..5 (verified 0..2)",)
    line = found.line("f.npz")
    assert "outside the build's verified range 0..2,0..49 (its value_range, one range per position of the last axis)" in line
    assert "position 0 holds -1..5 (verified 0..2): 1 below, 1 above their position's range of its 6 values" in line
    entries = [{"cats": {"content": [1, 40], "shape": [2]}, "ids": [0, 1, 2, 3]}]
    data = tmp_path / "pa.json"
    data.write_text(json.dumps({"data": entries}))
    with caplog.at_level(logging.WARNING):
        check_user_data("tab_onnx", CONFIG, SPEC, data)  # 40 in the 50-row column: within, no warning
    assert [r for r in caplog.records if r.levelno == logging.WARNING] == []


@pytest.mark.parametrize("values", [[[0, 49]], [[2, 0]]])
def test_the_ends_of_each_column_are_within(values) -> None:
    assert outside_range(SPEC.inputs[0], [np.array(values, np.int64)]) is None
