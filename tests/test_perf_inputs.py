"""perf_analyzer input flags derived from a served config and the build's spec."""

from __future__ import annotations

import json
from pathlib import Path

from builders.spec import ModelSpec, TensorSpec
from perf.inputs import input_args

SPEC = ModelSpec(
    inputs=(TensorSpec("input_ids", "int64", ("seq",), (0, 999)), TensorSpec("scale", "float32", (4,))),
    outputs=(),
    dynamic_axes={"seq": (1, 32, 128)},
)


def _cfg(mbs: int, batched_dims: bool) -> dict:
    lead = [] if batched_dims else [-1]
    return {"name": "m", "max_batch_size": mbs,
            "input": [{"name": "input_ids", "data_type": "TYPE_INT64", "dims": [*lead, -1]},
                      {"name": "scale", "data_type": "TYPE_FP32", "dims": [*lead, 4]}]}


def _data(args: list[str]) -> dict:
    return json.loads(Path(args[args.index("--input-data") + 1]).read_text())


def test_batching_model_dynamic_axis_takes_opt_size_and_ints_stay_in_range(tmp_path: Path):
    args = input_args(_cfg(8, True), SPEC, tmp_path)
    assert args[args.index("--shape") + 1] == "input_ids:32"
    data = _data(args)["data"]
    ids = [v for step in data for v in step["input_ids"]["content"]]
    assert min(ids) >= 0 and max(ids) <= 999 and len(set(ids)) > 10
    assert all(step["scale"]["shape"] == [4] for step in data)  # float inputs are in the file too


def test_max_batch_size_0_leading_dim_is_one_sample(tmp_path: Path):
    args = input_args(_cfg(0, False), SPEC, tmp_path)
    assert args[args.index("--shape") + 1] == "input_ids:1,32"
    assert "scale:1,4" in args
    assert _data(args)["data"][0]["input_ids"]["shape"] == [1, 32]


def test_float_only_model_needs_no_flags_and_user_data_wins(tmp_path: Path):
    cfg = {"name": "f", "max_batch_size": 8, "input": [{"name": "x", "data_type": "TYPE_FP32", "dims": [16]}]}
    assert input_args(cfg, None, tmp_path) == []
    assert input_args(cfg, None, tmp_path, user_data=tmp_path / "mine.json") == ["--input-data", str(tmp_path / "mine.json")]
