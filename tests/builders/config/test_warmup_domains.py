"""Warmup data within each input's domain (issue 25, left over): a mask never gets zeros, token
ids never get values outside their range, and the data files travel with the variant.

Triton's ``zero_data`` sends zeros and ``random_data`` random bytes (Triton docs, "Model
Configuration: Model Warmup"); a fully masked row is no request a client sends, and random
bytes into token ids index outside the vocabulary. The warmup then does not exercise what is
served, so such inputs read their values from ``input_data_file`` in ``<model>/warmup/``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tritonclient.grpc import model_config_pb2 as mc

from builders.config.pbtxt import make_config
from builders.config.variants import Variant
from builders.config.warmup import (
    WARMUP_FOLDER,
    warmup_domain_problems,
    warmup_file_problems,
    warmup_files,
    write_warmup_files,
)
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec

ENCODER = ModelSpec(
    (
        TensorSpec("input_ids", "int64", ("seq",), (0, 999)),
        TensorSpec("attention_mask", "int64", ("seq",), (0, 1), domain="mask"),
    ),
    (TensorSpec("embeddings", "float32", (8,)),),
    {"seq": (2, 16, 64)},
)
#: Inputs whose zero is outside their domain: token ids from 5, a float mask, a bool flag.
OTHERS = ModelSpec(
    (
        TensorSpec("ids", "int32", (4,), (5, 9)),
        TensorSpec("fmask", "float32", (6,), domain="mask"),
        TensorSpec("x", "float32", (3,)),
        TensorSpec("flag", "bool", (2,)),
    ),
    (TensorSpec("y", "float32", (1,)),),
)


def _values(cfg: mc.ModelConfig, spec: ModelSpec, data: str, sample: int, name: str) -> np.ndarray:
    w = cfg.model_warmup[sample].inputs[name]
    assert w.WhichOneof("input_data_type") == "input_data_file", f"{name}: {w}"
    raw = warmup_files(cfg, spec, data)[w.input_data_file]
    dtype = {mc.TYPE_INT64: np.int64, mc.TYPE_INT32: np.int32, mc.TYPE_FP32: np.float32, mc.TYPE_BOOL: np.bool_}[w.data_type]
    return np.frombuffer(raw, dtype).reshape(list(w.dims))


@pytest.mark.parametrize("data", ["zero", "random"])
@pytest.mark.parametrize("mbs", [8, 0])
def test_a_mask_is_never_warmed_up_with_a_row_of_zeros(data, mbs):
    cfg = make_config(Variant("enc", "onnx", max_batch_size=mbs, warmup=data), ENCODER, "native")
    assert cfg.model_warmup
    for i, sample in enumerate(cfg.model_warmup):
        mask = _values(cfg, ENCODER, data, i, "attention_mask")
        assert set(np.unique(mask)) <= {0, 1}
        assert (mask.max(axis=-1) == 1).all(), f"{sample.name}: a row without a 1 {mask}"
        if data == "zero":
            assert (mask == 1).all()  # no padding: the value nearest zero within the mask domain
    ids = cfg.model_warmup[0].inputs["input_ids"]
    if data == "zero":
        assert ids.zero_data  # 0 is a token id within [0, 999]
    else:
        got = _values(cfg, ENCODER, data, 0, "input_ids")
        assert got.min() >= 0 and got.max() <= 999 and len(np.unique(got)) > 1


def test_zeros_outside_a_range_or_a_domain_are_replaced_by_the_nearest_value_within():
    cfg = make_config(Variant("m", "onnx", max_batch_size=4, warmup="zero"), OTHERS, "native")
    assert (_values(cfg, OTHERS, "zero", 0, "ids") == 5).all()
    assert (_values(cfg, OTHERS, "zero", 0, "fmask") == 1.0).all()
    assert cfg.model_warmup[0].inputs["x"].zero_data and cfg.model_warmup[0].inputs["flag"].zero_data


def test_random_warmup_draws_within_each_domain_and_keeps_random_bytes_for_plain_floats():
    cfg = make_config(Variant("m", "onnx", max_batch_size=4, warmup="random"), OTHERS, "native")
    ids = _values(cfg, OTHERS, "random", 0, "ids")
    assert ids.min() >= 5 and ids.max() <= 9
    fmask = _values(cfg, OTHERS, "random", 0, "fmask")
    assert set(np.unique(fmask)) <= {0.0, 1.0} and fmask.max() == 1.0
    assert _values(cfg, OTHERS, "random", 0, "flag").all()  # Triton's random bytes are no bool
    assert cfg.model_warmup[0].inputs["x"].random_data  # any float is a float input's value


def test_the_files_are_written_beside_the_config_with_the_bytes_triton_reads(tmp_path: Path):
    cfg = make_config(Variant("enc", "onnx", max_batch_size=8, warmup="zero"), ENCODER, "native")
    (tmp_path / WARMUP_FOLDER).mkdir()
    (tmp_path / WARMUP_FOLDER / "stale.bin").write_bytes(b"x")
    write_warmup_files(cfg, ENCODER, "zero", tmp_path)
    names = sorted(p.name for p in (tmp_path / WARMUP_FOLDER).iterdir())
    wanted = sorted({w.input_data_file for s in cfg.model_warmup for w in s.inputs.values() if w.input_data_file})
    assert names == wanted and "stale.bin" not in names
    assert not warmup_file_problems(cfg, tmp_path)
    for s in cfg.model_warmup:  # Triton reads dims x element size bytes, row-major
        w = s.inputs["attention_mask"]
        assert (tmp_path / WARMUP_FOLDER / w.input_data_file).stat().st_size == 8 * int(np.prod(list(w.dims)))
    victim = tmp_path / WARMUP_FOLDER / names[0]
    victim.write_bytes(b"\x01")
    assert any("holds 1 bytes" in p.problem for p in warmup_file_problems(cfg, tmp_path))
    victim.unlink()
    assert any("is missing" in p.problem for p in warmup_file_problems(cfg, tmp_path))
    write_warmup_files(make_config(Variant("enc", "onnx", max_batch_size=8), ENCODER, "native"), ENCODER, None, tmp_path)
    assert not (tmp_path / WARMUP_FOLDER).exists()  # no warmup, no folder


def test_a_config_that_warms_a_mask_with_zeros_is_a_problem():
    old = make_config(Variant("enc", "onnx", max_batch_size=8, warmup="zero"), ENCODER, "native")
    for sample in old.model_warmup:  # what the toolkit wrote before: zeros and random bytes
        sample.inputs["attention_mask"].zero_data = True
        sample.inputs["input_ids"].random_data = True
    problems = warmup_domain_problems(old, ENCODER)
    fields = {p.field for p in problems}
    assert "model_warmup[zero_batch1].inputs[attention_mask].zero_data" in fields
    assert "model_warmup[zero_batch1].inputs[input_ids].random_data" in fields
    assert any("a mask of zeros" in p.problem for p in problems)
    for data in ("zero", "random"):
        assert not warmup_domain_problems(
            make_config(Variant("e", "onnx", max_batch_size=8, warmup=data), ENCODER, "native"), ENCODER
        )


def test_a_written_variant_carries_its_warmup_files_and_its_upload_sends_them(tmp_path: Path):
    from builders.model.artifact_signature import ArtifactIO, TensorIO
    from builders.repository.validate import validate_model
    from builders.repository.writer import write_variant
    from clients.runtimes.upload import deploy_payload

    io = ArtifactIO(
        "onnx",
        (TensorIO("input_ids", "TYPE_INT64", (-1, -1)), TensorIO("attention_mask", "TYPE_INT64", (-1, -1))),
        (TensorIO("embeddings", "TYPE_FP32", (-1, 8)),),
    )
    artifact = tmp_path / "model.onnx"
    artifact.write_bytes(b"onnx")
    for serving in ("native", "python"):
        v = Variant(f"enc_{serving}", "onnx", max_batch_size=8, warmup="zero")
        vdir = write_variant(tmp_path / "repo", v, artifact, ENCODER, serving, io=io)
        written = sorted(p.name for p in (vdir / WARMUP_FOLDER).iterdir())
        assert written and all(n.startswith("attention_mask.zero.") for n in written)
        _config, files = deploy_payload(vdir)  # a remote server gets them too, or its load fails
        assert {f"file:{WARMUP_FOLDER}/{n}" for n in written} <= set(files)
        # Triton reads warmup/ as data, never as a version folder; validate says the same
        problems = validate_model(vdir, check_artifacts=False)
        assert not [p for p in problems if WARMUP_FOLDER in p.file or "warmup" in p.field], problems


def test_warmup_values_reach_a_narrower_config_type_by_the_one_conversion_rule():
    """The spec's int64 ids 200..300 served as TYPE_INT8 (an artifact's own type): astype wrapped 300
    to 44 and the warmup sent it silently; now the values are converted by core.casts.convert's rule,
    which refuses a value the type cannot hold, naming the input and the type."""
    from builders.config.warmup import warmup_values
    from core.errors import ConfigError

    ids = TensorSpec("ids", "int64", (4,), (200, 300))
    with pytest.raises(ConfigError, match=r"input 'ids' takes int8 \(TYPE_INT8\).*outside int8's range"):
        warmup_values(ids, "random", [4], mc.TYPE_INT8)
    wide = warmup_values(ids, "random", [4], mc.TYPE_INT16)  # a type that holds the range: the same values
    assert wide.dtype == np.int16 and wide.tolist() == warmup_values(ids, "random", [4], mc.TYPE_INT64).tolist()


def test_a_warmup_file_outside_the_input_s_range_or_domain_is_a_problem(tmp_path: Path):
    """builders validate read a warmup file's size only: values outside the input's range (a stale or
    hand-edited file) were warmed with although no request sends them."""
    from builders.config.warmup import warmup_value_problems

    cfg = make_config(Variant("enc", "onnx", max_batch_size=8, warmup="random"), ENCODER, "native")
    write_warmup_files(cfg, ENCODER, "random", tmp_path)
    assert warmup_value_problems(cfg, ENCODER, tmp_path) == []
    w = cfg.model_warmup[0]
    ids, mask = (tmp_path / WARMUP_FOLDER / w.inputs[n].input_data_file for n in ("input_ids", "attention_mask"))
    _, high = ENCODER.inputs[0].value_range
    past = np.frombuffer(ids.read_bytes(), np.int64).copy()
    past[-1] = high + 1
    ids.write_bytes(past.tobytes())
    mask.write_bytes(np.zeros(len(mask.read_bytes()) // 8, np.int64).tobytes())  # rows with no 1
    said = {p.field: p.problem for p in warmup_value_problems(cfg, ENCODER, tmp_path)}
    name = w.name
    assert (
        f"holds 1 values outside the range 0..{high} (e.g. {high + 1})"
        in said[f"model_warmup[{name}].inputs[input_ids].input_data_file"]
    )
    assert "with no 1" in said[f"model_warmup[{name}].inputs[attention_mask].input_data_file"]
