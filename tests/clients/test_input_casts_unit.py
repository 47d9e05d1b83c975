"""A user's input values reach the config's dtype by one rule, whatever the file (core.casts.convert):
JSON numbers (no dtype of their own) and .npy/.npz arrays of another dtype are converted only when the
cast keeps every value; else one error names the file, the input, the first bad value and its position,
the dtype and what to give. The old JSON reader cast with astype: 2.7 became token id 2, 300 became
uint8 44, 2**40 became int32 0, a bool's 2 became true, all silently."""

from __future__ import annotations

import base64
import functools
import json
import re
from pathlib import Path

import numpy as np
import pytest

from builders.model.spec import ModelSpec
from clients.input_files import load_input_file, load_samples
from clients.inputs import ModelSignature, generate_inputs
from core.errors import ClientError, PerfError
from perf.measure.inputs import input_args
from perf.measure.user_data import check_user_data

WIDTH = 3


def _config(triton: str, dims: tuple[int, ...] = (WIDTH,)) -> dict:
    return {"name": "m", "max_batch_size": 4, "input": [{"name": "v", "data_type": triton, "dims": [str(d) for d in dims]}]}


def _json(path: Path, *rows: list) -> Path:
    path.write_text(json.dumps({"data": [{"v": row} for row in rows]}))
    return path


#: (config type, one sample's values with one bad value, the bad value as said, why).
BAD = [
    ("TYPE_INT64", [1, 2.7, 3], "2.7", r"is not a whole number \(a cast would make it 2\)"),
    ("TYPE_UINT8", [1, 300, 3], "300", r"is outside uint8's range \[0, 255\]"),
    ("TYPE_INT32", [1, 2**40, 3], str(2**40), r"is outside int32's range \[-2147483648, 2147483647\]"),
    ("TYPE_BOOL", [1, 2, 0], "2", r"is neither 0 nor 1"),
    ("TYPE_INT64", [1, "7", 3], "'7'", "is not a number"),
    ("TYPE_FP16", [1.0, 1e6, 3.0], "1000000.0", "is beyond float16's largest value 65504"),
]


@pytest.mark.parametrize("triton, row, said, why", BAD)
def test_a_json_value_no_cast_keeps_is_refused_naming_file_input_entry_position_and_dtype(
    tmp_path: Path, triton: str, row: list, said: str, why: str
) -> None:
    src = _json(tmp_path / "in.json", [0] * WIDTH, row)  # entry 1 holds the bad value, at [1]
    sig = ModelSignature.from_config(_config(triton))
    dtype = sig.inputs[0].dtype
    pattern = rf"{src}: entry 1: input 'v' takes {dtype} \({triton}\), but 1 value does not convert to it exactly: the first, {said} at \[1\], {why}"
    for read in (load_samples, functools.partial(load_input_file, batch_size=2)):  # a request of both entries
        with pytest.raises(ClientError, match=pattern) as e:
            read(src, sig)
        assert "give 'v'" in e.value.hint
    with pytest.raises(PerfError, match=pattern):  # the sweep's up-front check: the same reader, the same words
        check_user_data("variant_a", _config(triton), None, src)


def _same_family(triton: str, row: list) -> bool:
    """Whether an array of ``row`` (float64 if it holds a float, else int64) is of ``triton``'s family."""
    floats = any(isinstance(v, float) for v in row)
    return "not a number" not in str(row) and (triton.startswith("TYPE_FP") == floats) and triton != "TYPE_BOOL"


@pytest.mark.parametrize("triton, row, said, why", [b for b in BAD if "not a number" not in b[3] and _same_family(b[0], b[1])])
def test_an_array_of_another_dtype_is_held_to_the_same_rule_in_npy_and_npz(
    tmp_path: Path, triton: str, row: list, said: str, why: str
) -> None:
    values = np.array([[0] * WIDTH, row], dtype=np.float64 if any(isinstance(v, float) for v in row) else np.int64)
    sig = ModelSignature.from_config(_config(triton))
    np.save(tmp_path / "in.npy", values)
    np.savez(tmp_path / "in.npz", v=values)
    for src in (tmp_path / "in.npy", tmp_path / "in.npz"):
        pattern = rf"{src}: m: an? {values.dtype} array: input 'v' takes {sig.inputs[0].dtype} .* the first, {said}(\.0)? at \[1, 1\], {why}"
        for read in (load_samples, load_input_file):
            with pytest.raises(ClientError, match=pattern):
                read(src, sig)


def test_a_lossless_cast_is_made_in_every_format(tmp_path: Path) -> None:
    sig = ModelSignature.from_config(_config("TYPE_INT32"))
    whole = np.array([[3, 4, 5]])  # int64 (NumPy's default) that int32 holds: converted exactly
    np.save(tmp_path / "in.npy", whole)
    np.savez(tmp_path / "in.npz", v=whole)
    for src in (tmp_path / "in.npy", tmp_path / "in.npz", _json(tmp_path / "in.json", [3.0, 4, 5.0])):  # JSON: no dtype
        got = load_input_file(src, sig)["v"]
        assert got.dtype == np.int32 and got.tolist() == [[3, 4, 5]], src
    flags = load_input_file(_json(tmp_path / "flags.json", [True, 0, False]), sig)["v"]  # false/true are 0/1 (B8)
    assert flags.dtype == np.int32 and flags.tolist() == [[1, 0, 0]]


@pytest.mark.parametrize(
    "triton, values",
    [
        ("TYPE_FP32", np.arange(WIDTH, dtype=np.int64)),  # int64 pixels for a float image input
        ("TYPE_INT64", np.ones(WIDTH, np.float32)),  # float32 token ids, whole numbers
        ("TYPE_BOOL", np.ones(WIDTH, np.int64)),
        ("TYPE_INT64", np.ones(WIDTH, bool)),
    ],
)
def test_an_array_of_another_family_is_refused_with_the_conversion_to_make(tmp_path: Path, triton: str, values) -> None:
    """Trial 13, T13-2: the README casts an array float to float or integer to integer and refuses any other
    mismatch; int64 pixels were cast to a float32 input and float32 ids to int64, with a warning only."""
    sig = ModelSignature.from_config(_config(triton))
    dtype, given = sig.inputs[0].dtype, values.dtype
    np.save(tmp_path / "in.npy", values[None])
    np.savez(tmp_path / "in.npz", v=values[None])
    article = "an" if str(given)[0] in "aeio" else "a"  # trial 20, T20-5: "a int64 array"
    said = rf"m: {article} {given} array: input 'v' takes {dtype} \({triton}\); an array is cast only float to float or integer to integer, not {given} to {dtype}"
    for src in (tmp_path / "in.npy", tmp_path / "in.npz"):
        for read in (load_samples, load_input_file):
            with pytest.raises(ClientError, match=rf"{src}: {said}") as e:
                read(src, sig)
            advice = re.search(r"arr\.astype\([^)]*\)", e.value.hint or "")
            assert advice, e.value.hint
            # the advice runs on the numpy installed (trial 20, T20-5: arr.astype(np.bool) raised AttributeError)
            assert eval(advice[0], {"np": np, "arr": values}).dtype == np.dtype(dtype)  # noqa: S307
        with pytest.raises(PerfError, match=said):  # the sweep's --input-data: the same reader, the same words
            check_user_data("variant_a", _config(triton), None, src)


def test_perf_analyzers_bare_b64_form_is_read(tmp_path: Path) -> None:
    """perf_analyzer docs, "Input Data": an input may be given as {"b64": ...} without "content"."""
    sig = ModelSignature.from_config(_config("TYPE_FP16"))
    x = np.array([0.5, -1.0, 2.0], "<f2")
    src = tmp_path / "b64.json"
    src.write_text(json.dumps({"data": [{"v": {"b64": base64.b64encode(x.tobytes()).decode()}}]}))
    np.testing.assert_array_equal(load_samples(src, sig)[0]["v"], x)


@pytest.mark.parametrize("shape", [[2.5], [True, 3], "3", [-1]])
def test_a_json_shape_that_is_not_whole_sizes_is_refused(tmp_path: Path, shape: object) -> None:
    sig = ModelSignature.from_config(_config("TYPE_INT64", (-1,)))
    src = tmp_path / "shape.json"
    src.write_text(json.dumps({"data": [{"v": {"content": [1, 2, 3], "shape": shape}}]}))
    with pytest.raises(ClientError, match=rf"{src}: entry 0: input 'v' has \"shape\" .*, not a list of whole numbers >= 0"):
        load_samples(src, sig)


@pytest.mark.parametrize("served", ["TYPE_INT8", "TYPE_UINT8"])
def test_generated_integers_are_not_wrapped_into_a_served_type_that_cannot_hold_the_builds_range(
    tmp_path: Path, served: str
) -> None:
    """The build's value_range is checked against the spec's dtype; values drawn from it were cast to the
    served config's type with astype, so 0..300 served as int8 sent 44 for 300 (clients infer, coldstart
    and the sweep's generated --input-data alike)."""
    spec = ModelSpec.from_flags([f"v:int64:{WIDTH}:0..300"], ["y"])
    config = _config(served)
    with pytest.raises(ClientError, match=rf"the build's value_range .*input 'v' takes u?int8 \({served}\).* the first, 300"):
        generate_inputs(ModelSignature.from_config(config), 1, spec)
    with pytest.raises(PerfError, match=rf"input 'v' takes u?int8 \({served}\).* the first, 300 at \[1\]"):
        input_args(config, spec, tmp_path)
    fits = ModelSpec.from_flags([f"v:int64:{WIDTH}:0..100"], ["y"])  # a range the type holds is drawn as before
    assert generate_inputs(ModelSignature.from_config(config), 2, fits)["v"].max() <= 100


@pytest.mark.parametrize(
    "dims, row, said",
    [
        ((WIDTH,), list(range(WIDTH + 1)), f"has {WIDTH + 1} values; shape [{WIDTH}] takes {WIDTH}"),
        ((-1, WIDTH), list(range(WIDTH + 1)), f"shape [-1, {WIDTH}] takes a multiple of {WIDTH} (its fixed dims)"),
        ((WIDTH,), {"b64": base64.b64encode(bytes(WIDTH * 8 + 1)).decode()}, f'{WIDTH * 8 + 1} bytes of "b64"'),
    ],
)
def test_too_many_values_for_a_shape_say_the_count_expected_and_given(tmp_path: Path, dims, row, said) -> None:
    """Break test B9: one value too many for a fixed-shape input leaked numpy's "cannot reshape array of size 4 into shape (3,)"."""
    sig = ModelSignature.from_config(_config("TYPE_INT64", dims))
    src = _json(tmp_path / "v.json", row)
    for read in (load_samples, load_input_file):
        with pytest.raises(ClientError) as e:
            read(src, sig)
        assert said in e.value.message and "reshape" not in e.value.message, e.value.message


def test_an_array_of_the_right_rank_and_a_wrong_dim_is_told_that_dim(tmp_path: Path) -> None:
    """A [1, 4] array for dims [3] was told "a batching model needs the batch axis first", which it had."""
    sig = ModelSignature.from_config(_config("TYPE_INT64"))
    np.save(tmp_path / "v.npy", np.zeros((1, WIDTH + 1), np.int64))
    with pytest.raises(ClientError) as e:
        load_input_file(tmp_path / "v.npy", sig)
    said = e.value.message.replace(str(tmp_path), "<tmp>")  # pytest's folder (pytest-1011/...) may hold "-1"
    assert f"has shape [1, {WIDTH + 1}], expected [batch, {WIDTH}]" in said and "-1" not in said
    assert e.value.hint == f"give 'v' a dim 1 of {WIDTH} (it has {WIDTH + 1}): the served config's dims, batch axis first"


def test_a_files_cast_is_said_once_naming_where_the_file_goes(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Trial 15, T15-6: a float64 file for a float32 input was cast with a note that named neither the file
    nor the variant, said again for each request of max_batch_size rows the sweep cut it into and again when
    it wrote the file for perf_analyzer; now once, naming where it goes, in clients.inputs.cast_words' words."""
    from perf.measure.inputs import write_user_data

    config = _config("TYPE_FP32")
    src = tmp_path / "f64.npy"
    np.save(src, np.random.default_rng(0).random((3 * config["max_batch_size"], WIDTH)))  # 3 requests' rows
    rounded = "input 'v' is float64, cast to the served float32 (TYPE_FP32) with each value rounded to float32's precision"
    with caplog.at_level("WARNING"):
        check_user_data("variant_a", config, None, src)  # the sweep, before any server starts
        write_user_data(src, config, None, tmp_path)  # its values and casts were said above
    assert [r.getMessage() for r in caplog.records] == [f"variant_a's --input-data {src}: {rounded}"]
    caplog.clear()
    with caplog.at_level("WARNING"):
        load_input_file(src, ModelSignature.from_config({**config, "max_batch_size": 12}))
    assert [r.getMessage() for r in caplog.records] == [f"{src}: {rounded}"]


@pytest.mark.parametrize(
    ("triton", "values", "drop"), [("TYPE_BOOL", np.ones(WIDTH, np.int64), False), ("TYPE_INT32", np.ones(WIDTH, np.int64), True)]
)
def test_no_cast_names_the_flag_only_where_a_cast_would_be_made(tmp_path: Path, triton: str, values, drop: bool) -> None:
    """Re-check 20, NEW-2: `clients infer --no-cast` with an int64 mask advised "or allow casting": no flag named,
    and int64 to bool is refused with casting too."""
    sig = ModelSignature.from_config(_config(triton))
    np.save(tmp_path / "in.npy", values[None])
    with pytest.raises(ClientError) as e:
        load_input_file(tmp_path / "in.npy", sig, cast=False)
    hint = e.value.hint or ""
    assert "allow casting" not in hint and ("drop --no-cast" in hint) == drop, hint
