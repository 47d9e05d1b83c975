"""TensorRT: the optimization profile and trtexec command everywhere; real plan builds on a GPU."""

from __future__ import annotations

import shlex

import pytest

from builders.export.tensorrt import export_tensorrt, shape_profile, trtexec_command
from builders.model.builtin import get_builtin
from builders.serving.tensorrt_env import missing_requirements
from core.errors import GpuRequiredError

MISSING = missing_requirements()
needs_trt = pytest.mark.skipif(bool(MISSING), reason="needs " + " and ".join(MISSING) if MISSING else "")
ENCODER = get_builtin("encoder").spec


def test_profile_spans_batch_and_declared_axes():
    lo, opt, hi = ENCODER.dynamic_axes["seq"]
    prof = shape_profile(ENCODER, 16)
    assert prof["input_ids"] == ((1, lo), (8, opt), (16, hi))
    assert prof["attention_mask"] == prof["input_ids"]
    cnn = shape_profile(get_builtin("cnn").spec, 1)["pixels"]
    assert cnn == ((1, 3, 224, 224),) * 3


@pytest.mark.parametrize("precision, flag", [("fp32", None), ("fp16", "--fp16"), ("bf16", "--bf16")])
def test_trtexec_command_builds_the_same_plan(tmp_path, precision, flag):
    cmd = shlex.split(
        trtexec_command(
            tmp_path / "model.onnx", ENCODER, 8, precision, workspace_bytes=2 << 30, timing_cache=tmp_path / "t.cache"
        )
    )
    assert cmd[0] == "trtexec"
    args = dict(a.split("=", 1) for a in cmd[1:] if "=" in a)
    assert args["--onnx"] == str(tmp_path / "model.onnx") and args["--saveEngine"] == str(tmp_path / "model.plan")
    assert args["--minShapes"] == "input_ids:1x1,attention_mask:1x1"
    assert args["--maxShapes"] == "input_ids:8x128,attention_mask:8x128"
    assert args["--memPoolSize"] == "workspace:2048"
    assert args["--timingCacheFile"] == str(tmp_path / "t.cache")
    assert (flag in cmd) if flag else not any(a in cmd for a in ("--fp16", "--bf16"))


@pytest.mark.skipif(not MISSING, reason="this machine has a GPU and TensorRT")
def test_no_gpu_or_tensorrt_is_one_error_naming_what_is_missing(tmp_path):
    with pytest.raises(GpuRequiredError) as e:
        export_tensorrt(tmp_path / "model.onnx", ENCODER, tmp_path, "fp16", 8)
    for what in MISSING:
        assert what in e.value.message
    assert "trtexec --onnx=" in e.value.hint and "--fp16" in e.value.hint


# --- real builds: run where a GPU and TensorRT exist ----------------------------------


@pytest.mark.slow  # real export on a GPU host (TensorRT/ONNX/TorchScript)
@pytest.mark.gpu
@needs_trt
@pytest.mark.parametrize("model, precision", [("tiny", "fp32"), ("tiny", "fp16"), ("encoder", "fp16")])
def test_plan_builds_verifies_and_reuses_its_timing_cache(tmp_path, model, precision):
    from builders.export.onnx import export_onnx
    from builders.export.tensorrt import TIMING_CACHE_FILE
    from builders.model.outputs import infer_outputs
    from builders.verify.verification import verify_plan

    b = get_builtin(model)
    module = b.factory()
    spec = infer_outputs(module, b.spec)
    onnx_result = export_onnx(module, spec, tmp_path, "fp32", max_batch_size=8)  # plans come from the fp32 ONNX
    result = export_tensorrt(onnx_result.path, spec, tmp_path, precision, 8)
    assert result.path.stat().st_size > 0
    assert result.extra["tensorrt_version"] and result.extra["gpu_name"] and "." in result.extra["compute_capability"]
    cache = tmp_path / TIMING_CACHE_FILE
    assert cache.stat().st_size > 0
    checks = verify_plan(result, module, spec, 8, {})
    assert [c["batch"] for c in checks][:3] == [1, 4, 8]
    again = export_tensorrt(onnx_result.path, spec, tmp_path / "again", precision, 8, timing_cache=cache)
    assert again.extra["timing_cache"] == str(cache)
