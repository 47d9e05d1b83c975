"""Per-backend config builders (builders/backends): the Triton facts each one writes and checks."""

from __future__ import annotations

import pytest
from tritonclient.grpc import model_config_pb2 as mc

from builders import backends
from builders.backends.pytorch_libtorch import convention_index, tensor_name_problems
from builders.model.artifact_signature import ArtifactIO, TensorIO
from core import formats
from core.errors import ConfigError


@pytest.mark.parametrize("fmt", formats.FORMAT_NAMES)
def test_native_builders_write_the_formats_table_platform_and_file(fmt):
    builder = backends.for_serving("native", fmt)
    cfg = mc.ModelConfig(name="m")
    builder.configure(cfg, fmt)
    row = formats.get(fmt)
    assert (cfg.platform, cfg.default_model_filename, builder.backend) == (row.platform, row.file, row.backend)
    assert backends.model_backend(cfg) == row.backend and backends.served_artifact(cfg) == (fmt, row.file)
    cfg.ClearField("default_model_filename")  # hand-written: the backend's default file
    assert backends.model_filename(cfg) == row.file


def test_python_builder_names_the_artifact_in_parameters_and_refuses_what_it_cannot_run():
    cfg = mc.ModelConfig(name="m")
    backends.for_serving("python", "onnx").configure(cfg, "onnx", intra_op_threads=2)
    assert cfg.backend == "python" and backends.model_filename(cfg) == "model.py"
    assert {k: v.string_value for k, v in cfg.parameters.items()} == {
        "artifact_format": "onnx",
        "artifact_file": "model.onnx",
        "intra_op_threads": "2",
    }
    assert backends.served_artifact(cfg) == ("onnx", "model.onnx")
    # the artifact's output order is recorded (the python model maps outputs by it, issue 11 item 3)
    assert [p.field for p in backends.for_config(cfg).config_problems(cfg)] == ["parameters[artifact_outputs]"]
    cfg.output.add(name="logits")
    cfg.output.add(name="feat")
    backends.for_config(cfg).record_outputs(cfg, ["feat", "logits"])
    assert cfg.parameters["artifact_outputs"].string_value == '["feat", "logits"]'
    assert backends.for_config(cfg).config_problems(cfg) == []
    cfg.output[1].name = "other"
    assert [p.field for p in backends.for_config(cfg).config_problems(cfg)] == ["parameters[artifact_outputs]"]
    cfg.parameters["artifact_format"].string_value = "trt"
    assert [p.field for p in backends.for_config(cfg).config_problems(cfg)] == ["parameters[artifact_format]"]
    assert backends.served_artifact(cfg) is None
    assert [f for f in formats.FORMAT_NAMES if backends.servable(f, "python")] == list(formats.PYTHON_SERVED)
    assert all(backends.servable(f, "native") for f in formats.FORMAT_NAMES)


def test_unknown_serving_is_a_config_error():
    with pytest.raises(ConfigError, match="unknown serving 'bundled'"):
        backends.for_serving("bundled", "onnx")


def test_backends_the_toolkit_does_not_write_are_still_known():
    tf = mc.ModelConfig(platform="tensorflow_savedmodel")
    assert backends.model_backend(tf) == "tensorflow" and backends.for_config(tf) is None
    assert backends.model_filename(mc.ModelConfig(backend="openvino")) == "model.xml"
    assert backends.served_artifact(tf) is None


def test_onnxruntime_builder_writes_the_ort_trt_block():
    cfg = mc.ModelConfig()
    backends.for_serving("native", "onnx").configure(cfg, "onnx", trt_accelerator="fp16")
    (acc,) = cfg.optimization.execution_accelerators.gpu_execution_accelerator
    assert acc.name == "tensorrt" and dict(acc.parameters) == {
        "precision_mode": "FP16",
        "max_workspace_size_bytes": str(1 << 30),
        "trt_engine_cache_enable": "1",  # engines kept for the next load (onnxruntime_backend README)
        "trt_engine_cache_path": "/tmp/triton_ort_trt_engines",
    }


def test_native_backends_write_the_threads_they_are_given():
    ort = mc.ModelConfig()
    backends.for_serving("native", "onnx").configure(ort, "onnx", intra_op_threads=3)
    assert dict(ort.parameters) == {
        "intra_op_thread_count": mc.ModelParameter(string_value="3"),
        "inter_op_thread_count": mc.ModelParameter(string_value="1"),
    }
    ts = mc.ModelConfig()
    backends.for_serving("native", "torchscript").configure(ts, "torchscript", intra_op_threads=2)
    assert dict(ts.parameters) == {"INTRA_OP_THREAD_COUNT": mc.ModelParameter(string_value="2")}
    plain = mc.ModelConfig()
    backends.for_serving("native", "onnx").configure(plain, "onnx")
    assert not plain.parameters  # none given: the library's default, no number made up


def test_pytorch_naming_convention():
    # the backend splits at the FIRST "__" (pytorch_backend GetNamingConvention): "a__b__3" is no index
    assert [convention_index(n) for n in ("INPUT__0", "OUTPUT__12", "a__b__3", "__1", "x")] == [0, 12, None, 1, None]
    module = (TensorIO("x"), TensorIO("y"))
    cfg = mc.ModelConfig()
    cfg.input.add(name="INPUT__0"), cfg.input.add(name="INPUT__2")
    assert [p.field for p in tensor_name_problems("input", cfg.input, module)] == ["input[INPUT__2].name"]
    plain = mc.ModelConfig()
    plain.input.add(name="z"), plain.input.add(name="w")  # no name says a position: each named
    assert [p.field for p in tensor_name_problems("input", plain.input, module)] == ["input[z].name", "input[w].name"]
    cfg.output.add(name="logits")
    assert [p.field for p in tensor_name_problems("output", cfg.output, (TensorIO("__0"),))] == ["output[logits].name"]


def test_tensorrt_builder_bounds_max_batch_size_by_the_engine_profile():
    io = ArtifactIO("trt", (TensorIO("x", "TYPE_FP32", (-1, 4)),), (TensorIO("y", "TYPE_FP32", (-1, 2)),), max_batch_size=16)
    cfg = mc.ModelConfig(platform="tensorrt_plan", max_batch_size=32)
    assert [p.field for p in backends.for_config(cfg).artifact_problems(cfg, io)] == ["max_batch_size"]
    cfg.max_batch_size = 16
    assert backends.for_config(cfg).artifact_problems(cfg, io) == []
