"""Client-side input handling without a server: validation, dtype policy, generation from a
model's signature (value ranges from the build manifest), input files, output summaries."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pytest

from builders.config.variants import Variant
from builders.model.spec import ModelSpec
from builders.model.tensor import DEFAULT_INT_RANGE
from clients.input_files import load_input_file
from clients.inputs import ModelSignature, casts, generate_inputs, spec_for, summarize, validate_inputs
from core.errors import ClientError

CFG = {
    "name": "lm",
    "max_batch_size": 8,
    "input": [
        {"name": "ids", "data_type": "TYPE_INT32", "dims": ["-1"]},  # gRPC as_json: int64 as strings
        {"name": "x", "data_type": "TYPE_FP32", "dims": [4]},
    ],
    "output": [{"name": "y", "data_type": "TYPE_FP32", "dims": [2]}],
}


@pytest.fixture
def sig() -> ModelSignature:
    return ModelSignature.from_config(CFG)


def test_signature_from_config(sig: ModelSignature) -> None:
    assert [(t.name, t.dtype, t.dims) for t in sig.inputs] == [("ids", "int32", (-1,)), ("x", "float32", (4,))]
    assert sig.max_batch_size == 8 and sig.outputs[0].triton_dtype == "TYPE_FP32"


def test_valid_inputs_pass_unchanged(sig: ModelSignature) -> None:
    ids, x = np.arange(6, dtype=np.int32).reshape(2, 3), np.zeros((2, 4), np.float32)
    out = validate_inputs(sig, {"ids": ids, "x": x})
    assert out["ids"] is not None and out["x"].dtype == np.float32 and np.array_equal(out["ids"], ids)


@pytest.mark.parametrize(
    "inputs, message",
    [
        (
            {"ids": np.zeros((2, 3), np.int32), "x": np.zeros((2, 5), np.float32)},
            r"input 'x' has shape \[2, 5\], expected \[batch, 4\]",
        ),
        ({"ids": np.zeros((2, 3), np.int32), "x": np.zeros(4, np.float32)}, r"input 'x' has shape \[4\]"),
        (
            {"ids": np.zeros((9, 3), np.int32), "x": np.zeros((9, 4), np.float32)},
            r"input 'ids' has batch size 9; the model takes 1..8",
        ),
        ({"ids": np.zeros((2, 3), np.int32), "x": np.zeros((3, 4), np.float32)}, "disagree on the batch size"),
        ({"ids": np.zeros((2, 3), np.int32)}, r": input x missing; the model takes ids, x"),
        (
            {"ids": np.zeros((2, 3), np.int32), "x": np.zeros((2, 4), np.float32), "z": np.zeros(1)},
            r"unknown input z; the model takes ids, x",
        ),
        (
            {"ids": np.full((2, 3), 2.7, np.float32), "x": np.zeros((2, 4), np.float32)},
            r"a float32 array: input 'ids' takes int32 \(TYPE_INT32\); an array is cast only float to float or integer "
            r"to integer, not float32 to int32",
        ),
        (
            {"ids": np.full((2, 3), 2**40, np.int64), "x": np.zeros((2, 4), np.float32)},
            r"the first, 1099511627776 at \[0, 0\], is outside int32's range \[-2147483648, 2147483647\]",
        ),
        (
            {"ids": np.zeros((2, 3), np.int32), "x": np.full((2, 4), 1e300)},
            r"input 'x' takes float32 .* the first, 1e\+300 at \[0, 0\], is beyond float32's largest value",
        ),
    ],
)
def test_bad_inputs_get_one_error_naming_the_input(sig: ModelSignature, inputs: dict, message: str) -> None:
    with pytest.raises(ClientError, match=message) as e:
        validate_inputs(sig, inputs)
    assert e.value.hint and "\n  -> " in str(e.value)  # what to do, as every error of the family (trial 9, F12)


def test_inputs_that_disagree_on_the_batch_are_told_what_to_send(sig: ModelSignature) -> None:
    with pytest.raises(ClientError, match=r"inputs disagree on the batch size: \{'ids': 2, 'x': 3\}") as e:
        validate_inputs(sig, {"ids": np.zeros((2, 3), np.int32), "x": np.zeros((3, 4), np.float32)})
    assert e.value.hint == "one request carries one batch: give every input the same first (batch) dim, e.g. 2 rows of each"


def test_a_model_without_batching_is_told_its_dims() -> None:
    flat = ModelSignature.from_config({**CFG, "max_batch_size": 0})
    with pytest.raises(ClientError, match=r"input 'x' has shape \[2, 4\], expected \[4\]") as e:
        validate_inputs(flat, {"ids": np.zeros(3, np.int32), "x": np.zeros((2, 4), np.float32)})
    assert e.value.hint == "max_batch_size 0: give the config's dims as they are, [4] (-1: any size), no batch axis added"


def test_float64_is_cast_with_a_note_or_refused(sig: ModelSignature) -> None:
    inputs = {"ids": np.ones((1, 3), np.int64), "x": np.ones((1, 4))}  # NumPy defaults: int64, float64
    with pytest.raises(ClientError, match="not float64 to int32"):  # whole floats too: another family (trial 13, T13-2)
        validate_inputs(sig, {"ids": np.full((1, 3), 7.0), "x": inputs["x"]})
    out = validate_inputs(sig, inputs)
    assert out["x"].dtype == np.float32 and out["ids"].dtype == np.int32
    assert casts(sig, inputs) == {  # the note its caller says (clients.inputs.cast_words)
        "x": "float64, cast to the served float32 (TYPE_FP32) with each value rounded to float32's precision",
        "ids": "int64, cast to the served int32 (TYPE_INT32) with every value kept",
    }
    with pytest.raises(ClientError, match=r"input 'ids' is int64, the model takes int32 \(TYPE_INT32\)"):
        validate_inputs(sig, inputs, cast=False)


SPEC = ModelSpec.from_json(
    {
        "inputs": [
            {"name": "ids", "dtype": "int32", "shape": ["seq"], "value_range": [5, 7]},
            {"name": "x", "dtype": "float32", "shape": [4]},
        ],
        "outputs": [{"name": "y", "dtype": "float32", "shape": [2]}],
        "dynamic_axes": {"seq": [1, 12, 32]},
    }
)


def test_generated_inputs_use_the_build_spec_or_the_defaults(sig: ModelSignature, fake_build) -> None:
    repo = fake_build(SPEC, Variant("lm", "onnx", max_batch_size=8))
    a = generate_inputs(sig, 3, spec_for(repo, "lm_onnx_cpu1_nodb_mbs8"))
    assert a["ids"].shape == (3, 12) and a["ids"].dtype == np.int32
    assert a["ids"].min() >= 5 and a["ids"].max() <= 7 and set(np.unique(a["ids"])) == {5, 6, 7}
    assert a["x"].shape == (3, 4) and a["x"].dtype == np.float32
    b = generate_inputs(sig, 2, shapes={"ids": (9,)})  # no build: the dynamic dim needs --shape (no guessed size)
    assert b["ids"].shape == (2, 9)
    assert DEFAULT_INT_RANGE[0] <= b["ids"].min() and b["ids"].max() <= DEFAULT_INT_RANGE[1]
    with pytest.raises(ClientError, match="batch size 9 is outside 1..8"):
        generate_inputs(sig, 9, shapes={"ids": (9,)})
    unbatched = ModelSignature.from_config({**CFG, "max_batch_size": 0})
    assert generate_inputs(unbatched, 1, shapes={"ids": (3,)})["x"].shape == (4,)
    with pytest.raises(ClientError, match=r"does not batch \(max_batch_size 0\): batch size 5 cannot be sent"):
        generate_inputs(unbatched, 5, shapes={"ids": (3,)})


def test_generated_inputs_match_the_spec_by_served_name(fake_build) -> None:
    """A native TorchScript variant serves ``ids`` as ``INPUT__0``: its range still applies."""
    names = {"inputs": {"ids": "INPUT__0", "x": "INPUT__1"}, "outputs": {"y": "OUTPUT__0"}}
    repo = fake_build(SPEC, Variant("lm", "torchscript", max_batch_size=8), extra={"triton_names": names}, serving="native")
    served = ModelSignature.from_config(
        {**CFG, "input": [{**CFG["input"][0], "name": "INPUT__0"}, {**CFG["input"][1], "name": "INPUT__1"}]}
    )
    a = generate_inputs(served, 2, spec_for(repo, "lm_ts_cpu1_nodb_mbs8"))
    assert a["INPUT__0"].shape == (2, 12) and set(np.unique(a["INPUT__0"])) <= {5, 6, 7}


def test_spec_found_through_the_repository_index(fake_build, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    repo = fake_build(SPEC, Variant("lm", "onnx", max_batch_size=8))
    assert spec_for(repo, "lm_onnx_cpu1_nodb_mbs8") == SPEC
    assert spec_for(repo, "other") is None and spec_for(None, "lm_onnx_cpu1_nodb_mbs8") is None
    assert spec_for(tmp_path / "nowhere", "lm_onnx_cpu1_nodb_mbs8") is None
    (tmp_path / "builds" / "lm" / "manifest.json").write_text(json.dumps({"schema": 2, "model": "lm"}))
    with caplog.at_level(logging.WARNING):
        assert spec_for(repo, "lm_onnx_cpu1_nodb_mbs8") is None  # a broken manifest is logged, not fatal for infer
    assert "is not a valid build manifest" in caplog.text and "source: required field is missing" in caplog.text


def test_input_files(sig: ModelSignature, tmp_path: Path) -> None:
    np.savez(tmp_path / "in.npz", ids=np.ones((1, 2), np.int32), x=np.ones((1, 4), np.float32))
    assert set(load_input_file(tmp_path / "in.npz", sig)) == {"ids", "x"}
    np.savez(tmp_path / "ref.npz", **{"input:ids": np.ones((1, 2), np.int32), "input:x": np.ones((1, 4)), "output:y": np.ones(2)})
    assert set(load_input_file(tmp_path / "ref.npz", sig)) == {"ids", "x"}
    np.save(tmp_path / "one.npy", np.ones((1, 4), np.float32))
    with pytest.raises(ClientError, match="holds one array but lm takes 2 inputs"):
        load_input_file(tmp_path / "one.npy", sig)
    single = ModelSignature.from_config({**CFG, "input": CFG["input"][1:]})
    assert list(load_input_file(tmp_path / "one.npy", single)) == ["x"]
    np.save(tmp_path / "obj.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(ClientError, match="could not read inputs from .*obj.npy"):
        load_input_file(tmp_path / "obj.npy", single)


def test_summary() -> None:
    rows = summarize({"y": np.array([[1.0, 3.0], [np.nan, 5.0]], np.float32)})
    assert rows == [{"name": "y", "shape": [2, 2], "dtype": "float32", "min": 1.0, "max": 5.0, "mean": 3.0}]


def test_messages_list_the_inputs_in_the_models_order() -> None:
    """T25-9: "input static missing; the model takes length, static, x" for a model whose forward() takes x, length,
    static: the config's order (the spec's, the order forward() takes them), not the alphabet."""
    cfg = {**CFG, "input": [{"name": n, "data_type": "TYPE_FP32", "dims": [4]} for n in ("x", "length", "static")]}
    order = ModelSignature.from_config(cfg)
    given = {n: np.zeros((1, 4), np.float32) for n in ("x", "length")}
    with pytest.raises(ClientError, match=r"input static missing; the model takes x, length, static\n"):
        validate_inputs(order, given)
    with pytest.raises(ClientError, match=r"unknown input z; the model takes x, length, static\n"):
        validate_inputs(order, {**given, "static": np.zeros((1, 4), np.float32), "z": np.zeros((1, 4), np.float32)})


def test_the_url_help_says_which_command_takes_several_servers() -> None:
    """T25-11: `clients check -h` said of --url "Several (a comma list): a sweep measures variants on them in
    parallel", a sweep's words in a command that refuses a second server."""
    from click.testing import CliRunner

    from clients.cli.main import cli

    text = " ".join(CliRunner().invoke(cli, ["check", "-h"], terminal_width=200).output.split())
    assert "One server, except `triton-perf sweep`, which takes several" in text
    assert "Several (a comma list): a sweep" not in text
