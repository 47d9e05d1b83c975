"""The sweep's --input-data reads the files `clients infer --input-data` reads, through the same reader
(clients.input_files.load_samples), and checks them the same way before any server starts (trial 11,
F21: a valid .npz was handed raw to perf_analyzer, which failed every visit with "cb::Error : 3")."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pytest

from clients.input_files import load_input_file
from clients.inputs import ModelSignature
from core.errors import PerfError
from perf.measure.inputs import input_args
from perf.measure.user_data import check_user_data

MBS = 4
CONFIG = {
    "name": "m",
    "max_batch_size": MBS,
    "input": [
        {"name": "ids", "data_type": "TYPE_INT64", "dims": ["3"]},
        {"name": "x", "data_type": "TYPE_FP16", "dims": ["2"]},
    ],
}


def _npz(path: Path, rows: int, **override: np.ndarray) -> Path:
    rng = np.random.default_rng(0)
    arrays = {"ids": rng.integers(0, 9, (rows, 3)), "x": rng.standard_normal((rows, 2)).astype(np.float16), **override}
    np.savez(path, **arrays)
    return path


def test_an_npz_is_written_as_perf_analyzer_json_one_entry_per_row(tmp_path: Path) -> None:
    rows = MBS * 2 + 1  # more rows than a request takes: each is one sample of perf_analyzer's data
    src = _npz(tmp_path / "in.npz", rows)
    check_user_data("m", CONFIG, None, src)
    args = input_args(CONFIG, None, tmp_path, src)
    written = Path(args[args.index("--input-data") + 1])
    assert written.parent == tmp_path and written.suffix == ".json"
    data = json.loads(written.read_text())["data"]
    assert len(data) == rows
    assert set(data[0]["x"]["content"]) == {"b64"}  # FP16 as perf_analyzer's JSON reader takes it
    x0 = np.frombuffer(base64.b64decode(data[0]["x"]["content"]["b64"]), "<f2")
    with np.load(src) as z:
        np.testing.assert_array_equal(x0, z["x"][0])
        assert [d["ids"]["content"] for d in data] == z["ids"].tolist()
        assert data[0]["ids"]["shape"] == [3]
    # and clients infer reads back what the sweep wrote: one file serves both tools
    sig = ModelSignature.from_config(CONFIG)
    ids = json.loads(written.read_text())
    for d in ids["data"]:
        d["x"] = {"content": [0.5, 0.5], "shape": [2]}  # numbers: what clients infer's JSON reader parses
    back = tmp_path / "back.json"
    back.write_text(json.dumps(ids))
    with np.load(src) as z:
        np.testing.assert_array_equal(load_input_file(back, sig, 2)["ids"], z["ids"][:2])


@pytest.mark.parametrize(
    "override, said",
    [
        ({"ids": np.zeros((2, 4), np.int64)}, "input 'ids' has shape [2, 4], expected [batch, 3]"),
        ({"idz": np.zeros((2, 3), np.int64)}, "unknown input idz; the model takes ids"),
        (
            {"ids": np.full((2, 3), 2.5, np.float32)},
            "input 'ids' takes int64 (TYPE_INT64); an array is cast only float to float or integer to integer",
        ),
        (
            {"ids": np.full((2, 3), 2**64 - 1, np.uint64)},
            "input 'ids' takes int64 (TYPE_INT64), but 6 values do not convert to it exactly: the first, 18446744073709551615 at [0, 0]",
        ),
    ],
)
def test_a_file_clients_infer_refuses_is_refused_naming_the_file_and_the_variant(
    tmp_path: Path, override: dict[str, np.ndarray], said: str
) -> None:
    src = _npz(tmp_path / "bad.npz", 2, **override)
    with pytest.raises(PerfError) as e:
        check_user_data("variant_a", CONFIG, None, src)
    assert said in e.value.message and str(src) in e.value.message and "variant_a" in e.value.message


def test_a_json_entry_missing_an_input_and_a_file_of_another_kind_are_refused(tmp_path: Path) -> None:
    src = tmp_path / "pa.json"
    src.write_text(json.dumps({"data": [{"ids": [1, 2, 3], "x": [0.5, 0.5]}, {"ids": [1, 2, 3]}]}))
    with pytest.raises(PerfError, match=r"entry 1 has no input 'x'"):
        check_user_data("m", CONFIG, None, src)
    csv = tmp_path / "in.csv"
    csv.write_text("1,2,3\n")
    with pytest.raises(PerfError, match=r"not a kind of file the sweep reads \(\.npz, \.npy, \.json"):
        check_user_data("m", CONFIG, None, csv)


def test_perf_analyzers_own_forms_go_as_they_are(tmp_path: Path) -> None:
    for given in (Path("random"), Path("zero"), tmp_path):
        args = input_args(CONFIG, None, tmp_path, given)
        assert args[args.index("--input-data") + 1] == str(given)


def test_a_json_file_is_written_again_from_the_arrays_the_check_read(tmp_path: Path) -> None:
    """perf_analyzer gets what check_user_data checked: the user's JSON went to it as it was, so FP16
    given as numbers (which perf_analyzer refuses: it takes FP16 only as b64, perf_analyzer docs,
    "Input Data") passed the check and failed every level, and a dynamic dim given without "shape"
    needed a --shape perf_analyzer was not given."""
    config = {**CONFIG, "input": [{"name": "ids", "data_type": "TYPE_INT64", "dims": ["-1"]}, CONFIG["input"][1]]}
    src = tmp_path / "user" / "pa.json"
    src.parent.mkdir()
    src.write_text(json.dumps({"data": [{"ids": [1, 2, 3.0], "x": [0.5, -2.0]}, {"ids": [4, 5], "x": [1, 2]}]}))
    check_user_data("m", config, None, src)
    args = input_args(config, None, tmp_path, src)
    written = Path(args[args.index("--input-data") + 1])
    assert written.parent == tmp_path and written != src
    data = json.loads(written.read_text())["data"]
    assert [d["ids"] for d in data] == [{"content": [1, 2, 3], "shape": [3]}, {"content": [4, 5], "shape": [2]}]
    x = [np.frombuffer(base64.b64decode(d["x"]["content"]["b64"]), "<f2").tolist() for d in data]
    assert x == [[0.5, -2.0], [1.0, 2.0]] and all(d["x"]["shape"] == [2] for d in data)


def test_a_level_the_server_refused_for_an_index_past_a_table_names_the_file_and_the_verified_range() -> None:
    from builders.model.spec import ModelSpec
    from perf.measure.user_data import refused_words

    spec = ModelSpec.from_flags(["codes:int64:3:0..3"], ["y"])
    error = "perf_analyzer reported request errors: Thread [0] had error: indices element out of data bounds, idx=29"
    said = refused_words(error, Path("pa_oob.json"), spec)
    assert said.startswith("the server refused the requests (inputs: --input-data pa_oob.json): an integer input holds")
    assert "index past a table" in said and "the build verified 'codes' 0..3 (its value_range)" in said
    assert said.count("out of data bounds") == 1  # the server's words once (trial 23, T23-6)
    assert refused_words("perf_analyzer reported request errors: x", Path("f.json"), spec).endswith(
        "(inputs: --input-data f.json)"
    )


def test_a_torchscript_traceback_in_perf_analyzer_s_output_is_one_translated_line() -> None:
    """Trial 23, T23-12: a TorchScript variant's refusal is a traceback whose first line says nothing of an index;
    its last line is kept as a request error and the level's error is the one line clients infer says."""
    from builders.model.spec import ModelSpec
    from perf.measure.analyzer_output import error_text, parse_output
    from perf.measure.user_data import refused_words

    output = (
        "Thread [0] had error: The following operation failed in the TorchScript interpreter.\n"
        "Traceback of TorchScript, serialized code (most recent call last):\n"
        '  File "code/__torch__/ctr.py", line 14, in forward\n'
        "RuntimeError: Index 0 of input takes value 1275 which is not in the valid range [0, 1000)\n"
    )
    error = f"perf_analyzer reported request errors: {error_text(parse_output(output).errors)}"
    spec = ModelSpec.from_flags(["sparse_ids:int64:8:0..999"], ["score"])
    said = refused_words(error, None, spec)
    assert said == (
        "the server refused the requests: an integer input holds an index past a table the model indexes (an "
        "embedding's num_embeddings) (the server: RuntimeError: Index 0 of input takes value 1275 which is not in the "
        "valid range [0, 1000)); the build verified 'sparse_ids' 0..999 (its value_range)"
    )
    assert refused_words("perf_analyzer failed: x", None, spec) == "perf_analyzer failed: x"
