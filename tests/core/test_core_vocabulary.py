"""The shared vocabulary (core/): every DataType row converts both ways against the real
libraries' own enums, formats and precisions are single tables, variant names round-trip."""

from __future__ import annotations

import dataclasses

import numpy as np
import onnx
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from tritonclient.grpc import model_config_pb2 as mc
from tritonclient.utils import np_to_triton_dtype, triton_to_np_dtype

from core import dtypes, formats, naming
from core import precision as precisions
from core.errors import ConfigError, DataTypeError


@pytest.mark.parametrize("t", dtypes.DATA_TYPES, ids=lambda t: t.name)
def test_every_row_converts_both_ways(t: dtypes.DataType):
    assert dtypes.from_name(t.name) is t
    # Triton's own enum (model_config.proto) and tritonclient's wire names
    assert t.triton in mc.DataType.keys()
    assert dtypes.from_triton(t.triton) is t and dtypes.from_triton(t.client) is t
    assert dtypes.from_client(t.client) is t
    assert dtypes.from_onnx(t.onnx) is t
    if t.torch is not None:
        assert dtypes.from_torch(t.to_torch()) is t and dtypes.from_torch(t.torch) is t
    else:
        with pytest.raises(DataTypeError, match="no torch type"):
            t.to_torch()
    if t.numpy is not None:
        assert dtypes.from_numpy(t.to_numpy()) is t
        # tritonclient agrees on the wire name of the numpy type
        assert np_to_triton_dtype(t.to_numpy()) == t.client
        if t.name != "bytes":
            assert triton_to_np_dtype(t.client) == t.to_numpy()
    else:
        with pytest.raises(DataTypeError, match="no numpy type"):
            t.to_numpy()


def test_onnx_values_are_onnx_own():
    for t in dtypes.DATA_TYPES:
        name = onnx.TensorProto.DataType.Name(t.onnx)
        expected = {"FLOAT": "float32", "DOUBLE": "float64", "STRING": "bytes", "FLOAT16": "float16"}.get(name, name.lower())
        assert expected == t.name, (t.name, name)


def test_bf16_and_bytes_are_refused_as_model_io_with_the_named_error():
    with pytest.raises(DataTypeError, match="output 'y': bfloat16 has no numpy type"):
        dtypes.require_tensor_io("bfloat16", "output 'y'")
    with pytest.raises(DataTypeError, match="tensor 'text': bytes .*no torch type"):
        dtypes.require_tensor_io("bytes", "tensor 'text'")
    assert dtypes.require_tensor_io("int64").name == "int64"


def test_unknown_types_are_errors_never_a_default():
    for call, value in (
        (dtypes.from_name, "complex64"),
        (dtypes.from_triton, "TYPE_COMPLEX"),
        (dtypes.from_onnx, 14),
        (dtypes.from_torch, torch.complex64),
        (dtypes.from_numpy, np.complex128),
        (dtypes.from_client, "FP8"),
    ):
        with pytest.raises(DataTypeError, match="not supported"):
            call(value)
    assert dtypes.from_numpy(np.dtype("S5")).name == "bytes"


def test_format_table_holds_every_format_fact():
    assert [f.name for f in formats.FORMATS] == ["torchscript", "onnx", "trt"]
    for f in formats.FORMATS:
        assert formats.from_token(f.token) is f and formats.from_backend(f.backend) is f
        assert formats.from_platform(f.platform) is f and formats.get(f.name) is f
    with pytest.raises(ConfigError, match="choose one of torchscript, onnx, trt"):
        formats.get("tflite")


def test_precision_tolerances_and_tf32():
    fp32 = precisions.get("fp32")
    assert fp32.rtol == 1e-4 and fp32.data_type.name == "float32"
    assert fp32.rtol_on("cpu", tf32_disabled=False) == 1e-4
    assert fp32.rtol_on("cuda:0", tf32_disabled=True) == 1e-4
    assert fp32.rtol_on("cuda:0", tf32_disabled=False) == precisions.TF32_RTOL
    assert precisions.get("fp16").rtol_on("cuda", tf32_disabled=False) == 1e-2
    assert precisions.TRT_ACCELERATOR_PRECISIONS == ("fp32", "fp16")
    with pytest.raises(ConfigError):
        precisions.get("int8")


_model = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,20}", fullmatch=True)


@st.composite
def _parts(draw) -> naming.NameParts:
    kind = draw(st.sampled_from(["cpu", "gpu"]))
    fmt = draw(st.sampled_from(formats.FORMAT_NAMES))
    mbs = draw(st.integers(0, 256))
    db = mbs > 0 and draw(st.booleans())
    return naming.NameParts(
        model=draw(_model),
        format=fmt,
        precision=draw(st.sampled_from(precisions.PRECISION_NAMES)),
        kind=kind,
        count=draw(st.integers(1, 8)),
        max_batch_size=mbs,
        dynamic_batching=db,
        max_queue_delay_us=draw(st.integers(0, 100000)) if db else 0,
        preferred_batch_sizes=tuple(draw(st.lists(st.integers(1, max(mbs, 1)), max_size=3))) if db else (),
        gpus=tuple(draw(st.lists(st.integers(0, 7), max_size=3))) if kind == "gpu" else (),
        warmup=draw(st.sampled_from([None, *naming.WARMUPS])),
        trt_accelerator=draw(st.sampled_from([None, *precisions.TRT_ACCELERATOR_PRECISIONS]))
        if (fmt, kind) == ("onnx", "gpu")
        else None,
    )


@given(_parts())
def test_variant_names_round_trip_with_underscores_in_model_names(parts: naming.NameParts):
    name = naming.variant_name(parts)
    assert naming.parse_variant_name(name) == parts


def test_tricky_model_names_round_trip():
    for model in ("my_net", "x_onnx_cpu1_nodb_mbs8", "m_ts", "a_gpu1_db5_mbs4_warm-zero", "bert_base.v2"):
        p = naming.NameParts(
            model=model,
            format="onnx",
            kind="gpu",
            count=2,
            dynamic_batching=True,
            max_queue_delay_us=100,
            preferred_batch_sizes=(4, 8),
            gpus=(0, 1),
            warmup="zero",
            trt_accelerator="fp16",
        )
        assert naming.parse_variant_name(naming.variant_name(p)) == p
    assert naming.parse_variant_name("not_a_variant") is None


def test_builders_variant_uses_the_core_naming_rule():
    from builders.config.variants import Variant

    v = Variant("my_model", "onnx", kind="cpu", count=2, dynamic_batching=True, max_queue_delay_us=500)
    assert v.name == "my_model_onnx_cpu2_db500_mbs64"
    assert Variant.from_name(v.name) == v
    assert dataclasses.fields(Variant) and {f.name for f in dataclasses.fields(Variant)} == {
        f.name for f in dataclasses.fields(naming.NameParts)
    }


def test_an_unknown_input_dtype_names_what_an_input_can_be_and_a_precision_typed_for_it() -> None:
    """Trial 11, F5: ``"dtype": "fp32"`` in a spec was told the known dtypes, bytes and bfloat16 among
    them (which no input can be), while the README listed the others; the hint is the input dtypes
    (core.dtypes.TENSOR_IO_NAMES, the README's list) and a precision name gets its dtype."""
    from pathlib import Path

    import pytest

    from core import dtypes
    from core.errors import DataTypeError

    with pytest.raises(DataTypeError) as e:
        dtypes.require_tensor_io("fp32", "tensor 'x'")
    assert e.value.message.endswith("did you mean float32?")
    assert e.value.hint == f"a model's input or output dtype is one of {', '.join(dtypes.TENSOR_IO_NAMES)}"
    assert "bytes" not in e.value.hint and "bfloat16" not in e.value.hint
    with pytest.raises(DataTypeError) as e:
        dtypes.require_tensor_io("bfloat16")
    assert "float32 or float16" in (e.value.hint or "")  # a known type no input can be keeps its own reason
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert "`dtype` is one of bool, uint8..uint64, int8..int64, float16, float32, float64." in readme
    assert dtypes.TENSOR_IO_NAMES == (
        "bool",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "int8",
        "int16",
        "int32",
        "int64",
        "float16",
        "float32",
        "float64",
    )
