"""What ``clients infer`` sends when it makes inputs up, and says so (issue 19, item 11):
shapes and value ranges printed with their reason, ``--shape NAME:dims``, and
``--input-data`` in perf_analyzer's JSON form."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from source_builds import POOLED_VARIANT, pooled_repo

from builders.model.tensor import DEFAULT_INT_RANGE
from builders.repository.view import Repository
from clients.input_files import load_input_file
from clients.inputs import ModelSignature, generate_inputs, plan_inputs
from clients.shape_flags import parse_shape
from core.errors import ClientError

SEQ_CONFIG = {
    "name": "m",
    "max_batch_size": 4,
    "input": [
        {"name": "ids", "data_type": "TYPE_INT64", "dims": [-1]},
        {"name": "feats", "data_type": "TYPE_FP32", "dims": [-1, 3]},
    ],
    "output": [{"name": "y", "data_type": "TYPE_FP32", "dims": [4]}],
}


def test_without_a_build_a_dynamic_dim_needs_shape_and_the_value_default_is_named() -> None:
    sig = ModelSignature.from_config(SEQ_CONFIG)
    with pytest.raises(ClientError, match=r"input 'ids' dims\[0\] is dynamic .* no toolkit build manifest") as e:
        plan_inputs(sig, 2)  # the old code sent a silent 16 here
    assert "--shape ids:N" in (e.value.hint or "")
    ids, feats = plan_inputs(sig, 2, shapes={"ids": (16,), "feats": (5, 3)})
    assert ids.shape == (2, 16) and ids.dtype == "int64"
    assert (
        f"integers uniform in [{DEFAULT_INT_RANGE[0]}, {DEFAULT_INT_RANGE[1]}] (no value range recorded: the default"
        in ids.values
    )
    assert ids.dims == "axis 0=16 (--shape)"
    assert feats.shape == (2, 5, 3) and feats.values == "N(0, 1)"
    assert ids.describe().startswith("ids [2, 16] (batch 2 × [16] per sample) int64: integers uniform in [0, 100]")


def test_shape_flags_set_dynamic_dims_and_are_checked() -> None:
    sig = ModelSignature.from_config(SEQ_CONFIG)
    shapes = dict([parse_shape("ids:40"), parse_shape("feats:7,3")])
    x = generate_inputs(sig, 3, shapes=shapes)
    assert x["ids"].shape == (3, 40) and x["feats"].shape == (3, 7, 3)
    assert "axis 0=40 (--shape)" in plan_inputs(sig, 3, shapes=shapes)[0].dims
    with pytest.raises(ClientError, match=r"--shape feats:7,4 does not fit its config dims \[-1, 3\]"):
        plan_inputs(sig, 1, shapes={"feats": (7, 4)})
    with pytest.raises(ClientError, match=r"--shape 'nope' names no input of m; the inputs of m: "):
        plan_inputs(sig, 1, shapes={"nope": (2,)})
    for bad in ("ids", "ids:", "ids:0", ":4", "ids:a"):
        with pytest.raises(ClientError, match="is not NAME:dims|every dim must be an integer >= 1"):
            parse_shape(bad)


@pytest.fixture(scope="module")
def seq_variant(tmp_path_factory: pytest.TempPathFactory):
    return Repository(pooled_repo(tmp_path_factory.mktemp("seq"))).variant(POOLED_VARIANT)


@pytest.mark.slow  # real export (torch.jit.script)
def test_with_a_build_the_opt_size_and_value_range_are_used_and_said(seq_variant) -> None:
    sig = ModelSignature.from_config(
        {
            "name": POOLED_VARIANT,
            "max_batch_size": 4,
            "input": [{"name": "ids", "data_type": "TYPE_INT64", "dims": [-1]}],
            "output": [],
        }
    )
    spec = seq_variant.served_spec
    (c,) = plan_inputs(sig, 2, spec)
    assert c.shape == (2, 24)
    assert c.values == "integers uniform in [0, 49] (the build's value_range)"
    assert c.dims.startswith("seq=24 (the build's opt size of axis seq")
    x = generate_inputs(sig, 2, spec, seed=3)["ids"]
    assert x.shape == (2, 24) and 0 <= x.min() and x.max() <= 49
    (c,) = plan_inputs(sig, 1, spec, {"ids": (5,)})
    assert c.shape == (1, 5) and c.dims == "seq=5 (--shape)"
    with pytest.raises(ClientError, match=r"sets axis seq to 33, outside the build's verified range 1..32"):
        plan_inputs(sig, 1, spec, {"ids": (33,)})


def test_perf_analyzer_json_input_data_is_read_and_batched(tmp_path: Path) -> None:
    sig = ModelSignature.from_config(SEQ_CONFIG)
    data = {
        "data": [
            {"ids": {"content": [1, 2, 3], "shape": [3]}, "feats": {"content": list(range(6)), "shape": [2, 3]}},
            {"ids": [4, 5, 6], "feats": {"content": [0.5] * 6, "shape": [2, 3]}},
        ]
    }
    path = tmp_path / "in.json"
    path.write_text(json.dumps(data))
    x = load_input_file(path, sig, batch_size=3)
    assert x["ids"].tolist() == [[1, 2, 3], [4, 5, 6], [1, 2, 3]] and x["ids"].dtype == np.int64
    assert x["feats"].shape == (3, 2, 3) and x["feats"].dtype == np.float32
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"data": [{"ids": [1]}]}))
    with pytest.raises(ClientError, match="entry 0 has no input 'feats'"):
        load_input_file(bad, sig)
    bad.write_text("[1, 2]")
    with pytest.raises(ClientError, match="is not perf_analyzer input data"):
        load_input_file(bad, sig)
