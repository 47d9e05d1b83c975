"""config.pbtxt generation: golden files, protobuf text round trip, Triton's rules at generation time.

Golden files live in tests/golden/; after an intended change regenerate them with
``UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q tests/builders/config/test_config.py`` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tritonclient.grpc import model_config_pb2 as mc

from builders.config.checks import artifact_problems
from builders.config.pbtxt import make_config, parse_config, to_text
from builders.config.variants import Variant
from builders.model.artifact_signature import ArtifactIO, TensorIO
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from core.dtypes import TENSOR_IO_NAMES
from core.errors import ConfigError

GOLDEN = Path(__file__).resolve().parents[2] / "golden"

TINY = ModelSpec((TensorSpec("INPUT__0", "float32", (16,)),), (TensorSpec("OUTPUT__0", "float32", (8,)),))
SEQ = ModelSpec(
    (TensorSpec("input_ids", "int64", ("seq",), (0, 999)), TensorSpec("mask", "int64", ("seq",), (0, 1))),
    (TensorSpec("logits", "float32", ("seq", 4)),),
    {"seq": (1, 32, 128)},
)
SEQ_ONNX = ArtifactIO(
    "onnx",
    (TensorIO("input_ids", "TYPE_INT64", (-1, -1)), TensorIO("mask", "TYPE_INT64", (-1, -1))),
    (TensorIO("logits", "TYPE_FP32", (-1, -1, 4)),),
)
TRT_IO = ArtifactIO(
    "trt", (TensorIO("INPUT__0", "TYPE_FP32", (-1, 16)),), (TensorIO("OUTPUT__0", "TYPE_FP32", (-1, 8)),), max_batch_size=64
)

CASES = {
    "bundled_onnx_cpu2_db500p4-8_mbs8": (
        Variant(
            "tiny", "onnx", count=2, max_batch_size=8, dynamic_batching=True, max_queue_delay_us=500, preferred_batch_sizes=(4, 8)
        ),
        TINY,
        "python",
        None,
    ),
    "native_ts_cpu1_nodb_mbs0_warm-zero": (Variant("tiny", "torchscript", max_batch_size=0, warmup="zero"), TINY, "native", None),
    "native_onnx_gpu1g0_db100_mbs16_ortrt-fp16_warm-random": (
        Variant(
            "seq",
            "onnx",
            kind="gpu",
            gpus=(0,),
            max_batch_size=16,
            dynamic_batching=True,
            max_queue_delay_us=100,
            warmup="random",
            trt_accelerator="fp16",
        ),
        SEQ,
        "native",
        SEQ_ONNX,
    ),
    "native_trt-fp16_gpu2_db0_mbs64": (
        Variant("tiny", "trt", "fp16", kind="gpu", count=2, max_batch_size=64, dynamic_batching=True),
        TINY,
        "native",
        TRT_IO,
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_config_matches_golden_file(case):
    variant, spec, serving, io = CASES[case]
    text = to_text(make_config(variant, spec, serving, io=io))
    path = GOLDEN / f"{case}.pbtxt"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()
    assert parse_config(path.read_text()) == make_config(variant, spec, serving, io=io)


def test_golden_files_have_no_orphans():
    assert sorted(p.stem for p in GOLDEN.glob("*.pbtxt")) == sorted(CASES)


def test_max_batch_size_zero_is_written_explicitly():
    text = to_text(make_config(Variant("m", "onnx", max_batch_size=0), TINY, "native"))
    assert text.splitlines()[1] == "max_batch_size: 0"
    assert parse_config(text).max_batch_size == 0
    # a message without a name still parses: the line goes first, never inside a block
    nameless = mc.ModelConfig()
    nameless.input.add(name="x", data_type=mc.TYPE_FP32, dims=[1])
    assert to_text(nameless).startswith("max_batch_size: 0\ninput {")
    assert parse_config(to_text(nameless)) == nameless


def test_batched_dims_leave_out_the_batch_axis_and_unbatched_keep_it():
    batched = make_config(Variant("m", "onnx", max_batch_size=8), SEQ, "native", io=SEQ_ONNX)
    assert list(batched.input[0].dims) == [-1] and list(batched.output[0].dims) == [-1, 4]
    full = make_config(Variant("m", "onnx", max_batch_size=0), SEQ, "native", io=SEQ_ONNX)
    # the batch axis at 1, the one row a max_batch_size 0 variant is verified at (trial 30, F5); dynamic axes -1
    assert list(full.input[0].dims) == [1, -1] and list(full.output[0].dims) == [1, -1, 4]
    assert artifact_problems(full, SEQ_ONNX) == []  # an export's dynamic batch dim takes a fixed config dim


def test_dtypes_and_dims_come_from_the_artifact_not_the_spec():
    io = ArtifactIO("onnx", (TensorIO("INPUT__0", "TYPE_FP16", (-1, 16)),), (TensorIO("OUTPUT__0", "TYPE_FP16", (-1, 8)),))
    cfg = make_config(Variant("m", "onnx"), TINY, "native", io=io)
    assert cfg.input[0].data_type == mc.TYPE_FP16 and cfg.output[0].data_type == mc.TYPE_FP16


def test_a_dim_the_artifact_leaves_dynamic_but_the_spec_fixes_is_the_specs():
    """Trial 7: an exporter's symbolic dim (``F.normalize`` in the ONNX graph) made the ONNX
    variants serve ``embedding`` as ``dims: [-1]`` while the TorchScript ones said ``[64]``, and
    ``builders validate`` refused the repository the build had just written."""
    spec = ModelSpec(
        (TensorSpec("ids", "int64", ("n",), (0, 9)),),
        (TensorSpec("logits", "float32", (5,)), TensorSpec("embedding", "float32", (64,))),
        {"n": (1, 8, 32)},
    )
    io = ArtifactIO(
        "onnx",
        (TensorIO("ids", "TYPE_INT64", (-1, -1)),),
        (TensorIO("logits", "TYPE_FP32", (-1, 5)), TensorIO("embedding", "TYPE_FP32", (-1, -1))),
    )
    batched = make_config(Variant("m", "onnx", max_batch_size=8), spec, "native", io=io)
    assert list(batched.output[1].dims) == [64] and list(batched.input[0].dims) == [-1]  # a dynamic axis stays -1
    full = make_config(Variant("m", "onnx", max_batch_size=0), spec, "native", io=io)
    assert list(full.output[1].dims) == [1, 64] and list(full.input[0].dims) == [1, -1]
    ts = make_config(Variant("m", "torchscript", max_batch_size=8), spec, "native")
    assert list(ts.output[1].dims) == list(batched.output[1].dims)  # one served signature for every format
    assert artifact_problems(batched, io) == []


def test_artifact_without_batch_axis_rejects_batching_naming_the_field():
    io = ArtifactIO("onnx", (TensorIO("INPUT__0", "TYPE_FP32", (4, 16)),), (TensorIO("OUTPUT__0", "TYPE_FP32", (4, 8)),))
    with pytest.raises(ConfigError, match="max_batch_size"):
        make_config(Variant("m", "onnx", max_batch_size=8), TINY, "native", io=io)
    assert list(make_config(Variant("m", "onnx", max_batch_size=0), TINY, "native", io=io).input[0].dims) == [4, 16]


def test_spec_name_missing_from_artifact_is_a_config_error():
    io = ArtifactIO("onnx", (TensorIO("x", "TYPE_FP32", (-1, 16)),), (TensorIO("OUTPUT__0", "TYPE_FP32", (-1, 8)),))
    with pytest.raises(ConfigError, match=r"input: INPUT__0 is not an input of the exported onnx artifact \(it has x\)"):
        make_config(Variant("m", "onnx"), TINY, "native", io=io)


def test_max_batch_size_above_the_tensorrt_profile_is_refused():
    with pytest.raises(ConfigError, match="max_batch_size: 128 exceeds the TensorRT engine's profile maximum batch 64"):
        make_config(Variant("m", "trt", kind="gpu", max_batch_size=128), TINY, "native", io=TRT_IO)


def test_kind_gpu_is_refused_where_the_server_has_no_gpu():
    with pytest.raises(ConfigError, match=r"instance_group\[0\].kind"):
        make_config(Variant("m", "onnx", kind="gpu"), TINY, "native", server_gpu=False)
    assert (
        make_config(Variant("m", "onnx", kind="gpu"), TINY, "native", server_gpu=True).instance_group[0].kind
        == mc.ModelInstanceGroup.KIND_GPU
    )


def test_python_serving_refuses_tensorrt_and_the_ort_accelerator():
    with pytest.raises(
        ConfigError, match=r"parameters\[artifact_format\]: TensorRT plans cannot be served by the python backend"
    ):
        make_config(Variant("m", "trt"), TINY, "python")
    with pytest.raises(ConfigError, match="execution_accelerators"):
        make_config(Variant("m", "onnx", kind="gpu", trt_accelerator="fp16"), TINY, "python")


def test_servings_differ_only_in_platform_backend_and_file():
    v = Variant("m", "onnx", max_batch_size=8, dynamic_batching=True, warmup="zero")
    native, bundled = make_config(v, TINY, "native"), make_config(v, TINY, "python")
    assert (native.platform, native.default_model_filename) == ("onnxruntime_onnx", "model.onnx")
    assert bundled.backend == "python" and bundled.parameters["artifact_file"].string_value == "model.onnx"
    for c in (native, bundled):
        c.ClearField("platform"), c.ClearField("backend"), c.ClearField("default_model_filename"), c.ClearField("parameters")
    assert native == bundled


def test_warmup_uses_concrete_sizes_from_the_spec():
    cfg = make_config(Variant("m", "onnx", max_batch_size=16, warmup="random"), SEQ, "native", io=SEQ_ONNX)
    assert [(w.name, w.batch_size) for w in cfg.model_warmup][:2] == [("random_batch1", 1), ("random_batch16", 16)]
    ids = cfg.model_warmup[0].inputs["input_ids"]
    assert list(ids.dims) == [32] and ids.data_type == mc.TYPE_INT64
    assert ids.input_data_file and not ids.random_data  # bounded token ids: Triton's random bytes would be out of range
    floats = make_config(Variant("m", "onnx", max_batch_size=4, warmup="random"), TINY, "native")
    assert floats.model_warmup[0].inputs["INPUT__0"].random_data
    unbatched = make_config(Variant("m", "onnx", max_batch_size=0, warmup="zero"), SEQ, "native", io=SEQ_ONNX)
    assert [list(unbatched.model_warmup[0].inputs[n].dims) for n in ("input_ids", "mask")] == [[1, 32], [1, 32]]


def test_warmup_refuses_a_dynamic_dim_without_a_size():
    # the artifact has a dynamic axis the spec does not know about
    io = ArtifactIO("onnx", (TensorIO("INPUT__0", "TYPE_FP32", (-1, 16, -1)),), (TensorIO("OUTPUT__0", "TYPE_FP32", (-1, 8)),))
    with pytest.raises(ConfigError, match=r"model_warmup.inputs\[INPUT__0\].dims"):
        make_config(Variant("m", "onnx", warmup="zero"), TINY, "native", io=io)


def test_scalar_per_sample_output_uses_dims_1_with_empty_reshape():
    spec = ModelSpec((TensorSpec("x", "float32", (3,)),), (TensorSpec("score", "float32", ()),))
    io = ArtifactIO("onnx", (TensorIO("x", "TYPE_FP32", (-1, 3)),), (TensorIO("score", "TYPE_FP32", (-1,)),))
    cfg = make_config(Variant("m", "onnx"), spec, "native", io=io)
    assert list(cfg.output[0].dims) == [1] and cfg.output[0].HasField("reshape") and not cfg.output[0].reshape.shape
    assert artifact_problems(cfg, io) == []


# --------------------------------------------------------------------------- property-based round trip

_dims = st.lists(st.one_of(st.integers(1, 64), st.sampled_from(["a", "b"])), min_size=0, max_size=3)


@st.composite
def variants_and_specs(draw):
    n_in, n_out = draw(st.integers(1, 3)), draw(st.integers(1, 2))
    names = draw(
        st.lists(
            st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,8}", fullmatch=True), min_size=n_in + n_out, max_size=n_in + n_out, unique=True
        )
    )
    dtypes = st.sampled_from(sorted(TENSOR_IO_NAMES))
    inputs = tuple(TensorSpec(n, draw(dtypes), tuple(draw(_dims)) or (1,)) for n in names[:n_in])
    outputs = tuple(TensorSpec(n, draw(dtypes), tuple(draw(_dims))) for n in names[n_in:])
    axes = {"a": (1, draw(st.integers(1, 8)), 8), "b": (1, 2, 3)}
    used = {d for t in (*inputs, *outputs) for d in t.shape}  # a declared axis must be used (issue 11, item 5)
    spec = ModelSpec(inputs, outputs, {k: v for k, v in axes.items() if k in used})
    fmt = draw(st.sampled_from(["torchscript", "onnx", "trt"]))
    serving = "native" if fmt == "trt" else draw(st.sampled_from(["python", "native"]))
    kind = draw(st.sampled_from(["cpu", "gpu"]))
    mbs = draw(st.integers(0, 256))
    db = mbs > 0 and draw(st.booleans())
    pref = tuple(sorted(draw(st.sets(st.integers(1, max(mbs, 1)), max_size=3)))) if db else ()
    variant = Variant(
        draw(st.from_regex(r"[a-z][a-z0-9_-]{0,10}", fullmatch=True)),
        fmt,
        draw(st.sampled_from(["fp32", "fp16"])),
        kind,
        draw(st.integers(1, 8)),
        mbs,
        db,
        draw(st.integers(0, 10**6)) if db else 0,
        pref,
        tuple(draw(st.sets(st.integers(0, 7), max_size=2))) if kind == "gpu" else (),
        draw(st.sampled_from([None, "random", "zero"])),
        draw(st.sampled_from([None, "fp16"])) if fmt == "onnx" and kind == "gpu" and serving == "native" else None,
    )
    return variant, spec, serving


@settings(max_examples=150, deadline=None)
@given(variants_and_specs())
def test_text_round_trip(case):
    variant, spec, serving = case
    cfg = make_config(variant, spec, serving)
    text = to_text(cfg)
    back = parse_config(text)
    assert back == cfg
    assert to_text(back) == text
    assert back.name == variant.name and back.max_batch_size == variant.max_batch_size
    assert ("max_batch_size: 0" in text) == (variant.max_batch_size == 0)
    assert back.HasField("dynamic_batching") == variant.dynamic_batching
