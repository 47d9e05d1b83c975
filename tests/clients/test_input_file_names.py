"""A user's input file whose array (or JSON key) is a near miss of an input name gets the "did you mean" a flag's typo
gets (trial 23, T23-13: `--input-data x.npz` with an array `imgae` said only "unknown input imgae"), wherever a file's
names are matched to the model's: clients infer / the sweep's --input-data (.npz, .json) and builders build --sample.
One rule (core.names.misnamed over close_names): a name is offered only for an input no array names."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from builders.verify.input_draws import load_sample
from clients.input_files import load_input_file, load_samples
from clients.inputs import ModelSignature
from core.errors import ClientError, ModelSpecError

CONFIG = {
    "name": "seg",
    "max_batch_size": 4,
    "input": [
        {"name": "image", "data_type": "TYPE_FP32", "dims": ["3"]},
        {"name": "mask_ids", "data_type": "TYPE_INT64", "dims": ["2"]},
    ],
}


def _sig() -> ModelSignature:
    return ModelSignature.from_config(CONFIG)


def _npz(path: Path, **arrays: np.ndarray) -> Path:
    np.savez(path, **arrays)
    return path


def test_an_npz_array_named_near_an_input_gets_did_you_mean(tmp_path: Path) -> None:
    src = _npz(tmp_path / "in.npz", imgae=np.zeros((2, 3), np.float32), mask_ids=np.zeros((2, 2), np.int64))
    for read in (lambda: load_input_file(src, _sig()), lambda: load_samples(src, _sig())):  # infer, the sweep
        with pytest.raises(ClientError) as e:
            read()
        assert "unknown input imgae (did you mean 'image'?); the model takes image, mask_ids" in e.value.message
        assert (e.value.hint or "").startswith("rename imgae to image: ")


def test_a_case_slip_and_an_input_prefix_get_it_too_and_a_far_name_none(tmp_path: Path) -> None:
    arrays: dict[str, np.ndarray] = {"input:Image": np.zeros((2, 3), np.float32), "input:mask_ids": np.zeros((2, 2), np.int64)}
    src = _npz(tmp_path / "case.npz", **arrays)
    with pytest.raises(ClientError, match=r"unknown input Image \(did you mean 'image'\?\)"):
        load_input_file(src, _sig())
    far = _npz(tmp_path / "far.npz", pixels=np.zeros((2, 3), np.float32), mask_ids=np.zeros((2, 2), np.int64))
    with pytest.raises(ClientError) as e:
        load_input_file(far, _sig())
    assert "unknown input pixels; the model takes" in e.value.message and "did you mean" not in e.value.message


def test_a_json_entry_key_named_near_an_input_gets_did_you_mean(tmp_path: Path) -> None:
    src = tmp_path / "pa.json"
    src.write_text(json.dumps({"data": [{"image": [0.0, 1.0, 2.0], "mask_idz": [1, 2]}]}))
    with pytest.raises(ClientError) as e:
        load_input_file(src, _sig(), 1)
    assert "entry 0 has no input 'mask_ids'; its key 'mask_idz' names no input (did you mean 'mask_ids'?)" in e.value.message
    assert e.value.hint == "the model takes image, mask_ids"  # names said as typed, not a Python list


def test_a_build_sample_array_named_near_an_input_gets_did_you_mean(tmp_path: Path) -> None:
    spec = ModelSpec((TensorSpec("image", "float32", (3,)),), (TensorSpec("y", "float32", (3,)),))
    src = _npz(tmp_path / "sample.npz", imgae=np.zeros((2, 3), np.float32))
    with pytest.raises(ModelSpecError) as e:
        load_sample(src, spec)
    assert "has no array for inputs image (it has imgae; its 'imgae' names no input (did you mean 'image'?))" in e.value.message
    assert (e.value.hint or "").startswith("rename imgae to image: ")
