"""One rule per input-file question for clients infer and the sweep (trial 12): a perf_analyzer JSON entry
without "shape" for a dynamic input gets the shape of its values in both (F9: clients infer guessed it, the
sweep's check passed it and perf_analyzer refused every level), or is refused by both where the values cannot
say it (several dynamic dims); a missing input file is said to be missing, never answered with advice about
its format (F10: "give a .npy or .npz written by numpy")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clients.input_files import load_input_file
from clients.inputs import ModelSignature
from core.errors import ClientError, PerfError
from perf.measure.inputs import input_args
from perf.measure.user_data import check_user_data

CONFIG = {
    "name": "kws",
    "max_batch_size": 8,
    "input": [
        {"name": "waveform", "data_type": "TYPE_FP32", "dims": ["-1"]},
        {"name": "lengths", "data_type": "TYPE_INT64", "dims": ["1"]},
    ],
}
SIG = ModelSignature.from_config(CONFIG)


def _no_shape(tmp_path: Path, config: dict = CONFIG, n: int = 2000) -> Path:
    path = tmp_path / "pa_noshape.json"
    path.write_text(json.dumps({"data": [{"waveform": [0.25] * n, "lengths": [n]}]}))
    return path


def test_a_dynamic_dim_without_shape_is_the_values_count_in_clients_infer_and_in_the_sweep(tmp_path: Path) -> None:
    src = _no_shape(tmp_path)
    assert load_input_file(src, SIG)["waveform"].shape == (1, 2000)
    check_user_data("kws", CONFIG, None, src)
    (tmp_path / "run").mkdir()
    args = input_args(CONFIG, None, tmp_path / "run", src)
    sent = json.loads(Path(args[args.index("--input-data") + 1]).read_text())["data"]
    assert sent[0]["waveform"]["shape"] == [2000] and sent[0]["lengths"]["shape"] == [1]


def test_several_dynamic_dims_without_shape_are_refused_by_both(tmp_path: Path) -> None:
    config = {**CONFIG, "input": [{"name": "waveform", "data_type": "TYPE_FP32", "dims": ["-1", "-1"]}, CONFIG["input"][1]]}
    src = _no_shape(tmp_path, config)
    with pytest.raises(ClientError, match=r'several dynamic dims .*need a "shape"'):
        load_input_file(src, ModelSignature.from_config(config))
    with pytest.raises(PerfError, match=r'several dynamic dims .*need a "shape"'):
        check_user_data("kws", config, None, src)


@pytest.mark.parametrize("name", ["missing.npz", "missing.npy", "missing.json"])
def test_a_missing_input_file_is_said_missing_by_both(tmp_path: Path, name: str) -> None:
    (tmp_path / "good.npz").write_bytes(b"")
    missing = tmp_path / name
    with pytest.raises(PerfError, match=rf"--input-data {missing} does not exist") as e:
        check_user_data("kws", CONFIG, None, missing)
    assert "numpy" not in str(e.value) + (e.value.hint or "") and "check the path" in (e.value.hint or "")
    with pytest.raises(ClientError, match=rf"input file {missing} does not exist") as c:
        load_input_file(missing, SIG)
    assert "numpy" not in (c.value.hint or "")


def test_a_folder_given_as_an_input_file_is_said_to_be_one(tmp_path: Path) -> None:
    folder = tmp_path / "in.npz"
    folder.mkdir()
    with pytest.raises(ClientError, match=r"is a folder, not a file"):
        load_input_file(folder, SIG)
