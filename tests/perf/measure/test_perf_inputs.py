"""perf_analyzer input flags derived from a served config and the build's spec."""

from __future__ import annotations

import json
from pathlib import Path

from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from perf.measure.inputs import input_args

SPEC = ModelSpec(
    inputs=(TensorSpec("input_ids", "int64", ("seq",), (0, 999)), TensorSpec("scale", "float32", (4,))),
    outputs=(),
    dynamic_axes={"seq": (1, 32, 128)},
)


def _cfg(mbs: int, batched_dims: bool) -> dict:
    lead = [] if batched_dims else [-1]
    return {
        "name": "m",
        "max_batch_size": mbs,
        "input": [
            {"name": "input_ids", "data_type": "TYPE_INT64", "dims": [*lead, -1]},
            {"name": "scale", "data_type": "TYPE_FP32", "dims": [*lead, 4]},
        ],
    }


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
    mine = tmp_path / "mine.json"
    mine.write_text(json.dumps({"data": [{"x": list(range(16))}]}))
    args = input_args(cfg, None, tmp_path, user_data=mine)
    assert args == ["--input-data", str(tmp_path / "input_data_f.json")]  # the user's values, as the check read them
    assert json.loads((tmp_path / "input_data_f.json").read_text())["data"] == [
        {"x": {"content": list(range(16)), "shape": [16]}}
    ]


def _fp16_int64_cfg() -> dict:
    return {
        "name": "h",
        "max_batch_size": 8,
        "input": [{"name": "x", "data_type": "TYPE_FP16", "dims": [4]}, {"name": "ids", "data_type": "TYPE_INT64", "dims": [6]}],
    }


def test_fp16_beside_an_int64_input_is_written_as_base64_bytes(tmp_path: Path):
    # the example: perf_analyzer refuses FP16 written as JSON numbers
    import base64

    import numpy as np

    data = _data(input_args(_fp16_int64_cfg(), None, tmp_path))["data"]
    for step in data:
        x = step["x"]["content"]
        assert set(x) == {"b64"} and step["x"]["shape"] == [4]
        values = np.frombuffer(base64.b64decode(x["b64"]), dtype="<f2")
        assert values.shape == (4,) and np.isfinite(values).all() and values.std() > 0
        assert isinstance(step["ids"]["content"], list) and len(step["ids"]["content"]) == 6  # ints stay numbers


def test_bf16_beside_a_bool_and_an_int32_input_is_base64_too(tmp_path: Path):
    import base64

    import numpy as np

    cfg = {
        "name": "b",
        "max_batch_size": 0,
        "input": [
            {"name": "w", "data_type": "TYPE_BF16", "dims": [2, 3]},
            {"name": "mask", "data_type": "TYPE_BOOL", "dims": [3]},
            {"name": "pos", "data_type": "TYPE_INT32", "dims": [3]},
        ],
    }
    step = _data(input_args(cfg, None, tmp_path))["data"][0]
    raw = np.frombuffer(base64.b64decode(step["w"]["content"]["b64"]), dtype="<u2")
    as_f32 = (raw.astype("<u4") << 16).view("<f4")  # bfloat16 is the upper half of a float32
    assert raw.shape == (6,) and np.isfinite(as_f32).all() and np.abs(as_f32).max() < 10
    assert step["mask"]["content"] == [True, True, True] and all(0 <= v <= 100 for v in step["pos"]["content"])


def test_a_dynamic_dim_without_a_spec_or_shape_is_an_error_naming_input_and_axis(tmp_path: Path):
    # a repository without the toolkit's manifest: the old code silently measured size 16
    import pytest

    from core.errors import PerfError

    cfg = {
        "name": "handmade",
        "max_batch_size": 8,
        "input": [
            {"name": "tokens", "data_type": "TYPE_INT64", "dims": ["-1"]},
            {"name": "feats", "data_type": "TYPE_FP32", "dims": [3, -1]},
        ],
    }
    with pytest.raises(PerfError, match=r"input 'tokens' dims\[0\] is dynamic .* no toolkit build manifest") as e:
        input_args(cfg, None, tmp_path)
    assert "--shape tokens:N" in e.value.hint
    with pytest.raises(PerfError, match=r"input 'feats' dims\[1\] is dynamic") as e:
        input_args(cfg, None, tmp_path, shapes={"tokens": (12,)})
    assert "--shape feats:3,N" in e.value.hint
    args = input_args(cfg, None, tmp_path, shapes={"tokens": (12,), "feats": (3, 5)})
    assert "tokens:12" in args and "feats:3,5" in args
    assert _data(args)["data"][0]["tokens"]["shape"] == [12]


def test_a_shape_flag_must_fit_the_config(tmp_path: Path):
    import pytest

    from clients.shape_flags import parse_shape
    from core.errors import ClientError, PerfError

    assert parse_shape("input_ids:1,128") == ("input_ids", (1, 128))
    assert parse_shape("ns:x:4") == ("ns:x", (4,))
    for bad in ("x", "x:", "x:0", "x:a,b", ":3", "x:4,"):
        with pytest.raises(ClientError, match="is not NAME:dims|every dim must be an integer >= 1"):
            parse_shape(bad)
    with pytest.raises(PerfError, match=r"--shape 'nope' names no input of m"):
        input_args(_cfg(8, True), SPEC, tmp_path, shapes={"nope": (3,)})
    with pytest.raises(PerfError, match=r"--shape scale:5 does not fit its config dims \[4\]"):
        input_args(_cfg(8, True), SPEC, tmp_path, shapes={"scale": (5,)})
    # a given shape wins over the spec's opt size
    args = input_args(_cfg(8, True), SPEC, tmp_path, shapes={"input_ids": (64,)})
    assert args[args.index("--shape") + 1] == "input_ids:64"


def test_a_mask_input_is_not_warned_about_as_having_no_value_range(tmp_path: Path, caplog):
    # the trial: "input attention_mask: no value range in the build's spec; generated values are in [0, 100]",
    # for a mask the domain decides (0s and 1s, a 1 in every row)
    import logging

    spec = ModelSpec(
        inputs=(TensorSpec("ids", "int64", ("seq",), (0, 99)), TensorSpec("attention_mask", "int64", ("seq",), domain="mask")),
        outputs=(),
        dynamic_axes={"seq": (1, 8, 16)},
    )
    cfg = {
        "name": "m",
        "max_batch_size": 8,
        "input": [{"name": n, "data_type": "TYPE_INT64", "dims": [-1]} for n in ("ids", "attention_mask")],
    }
    with caplog.at_level(logging.WARNING):
        args = input_args(cfg, spec, tmp_path)
    assert "no value range" not in caplog.text
    masks = [step["attention_mask"]["content"] for step in _data(args)["data"]]
    assert all(set(m) <= {0, 1} and 1 in m for m in masks)
