"""Verification: output comparison, and each failure a real export can cause, with a tiny
model that causes it (NaN, overflow, dtype change, tolerance breach, frozen batch axis)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from builders.export.artifacts import ExportResult
from builders.export.torchscript import export_torchscript
from builders.model.outputs import infer_outputs
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from builders.verify.compare import compare_outputs, passing_tolerance
from builders.verify.verification import verify_artifact
from core import precision as precisions
from core.errors import VerificationError

SPEC = ModelSpec((TensorSpec("x", "float32", (4,)),), ())


def _one(actual, expected, rtol=1e-4):
    return compare_outputs({"y": actual}, {"y": expected}, rtol)[0]


def test_equal_outputs_pass_with_zero_error():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    c = _one(a, a.copy())
    assert c.passed and c.max_abs_err == 0 and c.max_rel_err == 0


def test_tolerance_breach_names_the_tolerance_that_would_pass():
    exp = np.ones((2, 3), dtype=np.float32)
    act = exp + np.float32(3e-3)
    c = _one(act, exp)
    assert not c.passed
    assert c.max_abs_err == pytest.approx(3e-3, rel=1e-3)
    assert "rtol=0.005 would pass" in c.problem
    assert _one(act, exp, rtol=passing_tolerance(c.max_rel_err)).passed


@pytest.mark.parametrize(
    "actual, expected, words",
    [
        (np.zeros((2, 3), np.float32), np.zeros((2, 4), np.float32), "shape"),
        (np.full((2,), np.nan, np.float32), np.zeros((2,), np.float32), "NaN or Inf in output"),
        (np.zeros((2,), np.float32), np.array([0, np.inf], np.float32), "eager PyTorch output"),
        (np.zeros((2,), np.float64), np.zeros((2,), np.float32), "dtype float64 != expected float32"),
    ],
)
def test_each_problem_is_named(actual, expected, words):
    c = _one(actual, expected)
    assert not c.passed and words in c.problem


def test_missing_output_and_per_output_tolerances():
    exp = {"a": np.ones(3, np.float32), "b": np.ones(3, np.float32)}
    act = {"a": exp["a"] * np.float32(1.001)}
    comps = compare_outputs(act, exp, {"a": 1e-2})
    assert comps[0].passed and comps[0].rtol == 1e-2
    assert comps[1].problem == "output missing" and comps[1].rtol == precisions.get("fp32").rtol


# --- failures caused by real exports of tiny models -------------------------------------


class Sqrt(nn.Module):
    """Produces NaN for negative inputs, in eager PyTorch too."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sqrt(x)


class Overflow(nn.Module):
    """Finite in fp32, overflows to Inf in fp16 (fp16 max is 65504)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (x * 1e5) * 1e-5


class FrozenBatch(nn.Module):
    """Not scriptable (varargs), and its trace freezes the batch size: int(x.shape[0])."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x, *unused):
        n = int(x.shape[0])
        return self.fc(x).reshape(n, 2, 2).flatten(1)


class AsDouble(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (x * 2).double()


def _export(model, tmp_path, precision="fp32"):
    spec = infer_outputs(model, SPEC)
    return spec, export_torchscript(model, spec, tmp_path, precision)


@pytest.mark.slow  # real export (torch.jit.script)
def test_a_model_that_produces_nan_fails_verification(tmp_path):
    spec, result = _export(Sqrt().eval(), tmp_path)
    with pytest.raises(VerificationError, match="eager PyTorch output") as e:
        verify_artifact(result, Sqrt().eval(), spec, 4, {})
    assert "value ranges" in e.value.hint


@pytest.mark.slow  # real export (torch.jit.script, torch.jit.trace)
def test_reduced_precision_overflow_is_reported_as_inf(tmp_path):
    spec, result = _export(Overflow().eval(), tmp_path, "fp16")
    with pytest.raises(VerificationError, match="NaN or Inf in output"):
        verify_artifact(result, Overflow().eval(), spec, 4, {})


@pytest.mark.slow  # real export (torch.jit.script, torch.jit.trace)
def test_trace_that_froze_the_batch_is_named(tmp_path):
    torch.manual_seed(0)
    model = FrozenBatch().eval()
    spec, result = _export(model, tmp_path)
    assert result.strategy == "trace" and not result.attempts[0].ok
    assert "variable number of arguments" in result.attempts[0].error or result.attempts[0].error
    assert result.tracer_warnings and result.attempts[-1].tracer_warnings == result.tracer_warnings
    with pytest.raises(VerificationError, match=r"lost dynamic axis \['batch'\]") as e:
        verify_artifact(result, model, spec, 4, {})
    assert "froze a dynamic axis" in e.value.hint


@pytest.mark.slow  # real export (torch.jit.script)
def test_an_export_that_changed_a_dtype_fails(tmp_path):
    # the artifact on disk returns float64 where eager PyTorch returns float32
    model = nn.Identity()
    spec = infer_outputs(model, SPEC)
    torch.jit.script(AsDouble()).save(str(tmp_path / "model.pt"))
    double = ExportResult("torchscript", tmp_path / "model.pt", "fp32", "script", [], 0.0)
    scaled = lambda x: x * 2  # noqa: E731 - same values as the artifact, float32
    with pytest.raises(VerificationError, match="dtype float64 != expected float32") as e:
        verify_artifact(double, _Lambda(scaled), spec, 2, {})
    assert "cast the output" in e.value.hint


class _Lambda(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


@pytest.mark.slow  # real export (torch.jit.script, torch.jit.trace)
def test_tolerance_breach_says_which_rtol_would_pass(tmp_path):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 4)).eval()
    spec, result = _export(model, tmp_path, "fp16")
    checks = verify_artifact(result, model, spec, 4, {})  # within the fp16 default, 1e-2
    worst = max(o["max_rel_err"] for c in checks for o in c["outputs"])
    assert 0 < worst <= precisions.get("fp16").rtol
    name = spec.outputs[0].name
    with pytest.raises(VerificationError, match="tolerance") as e:
        verify_artifact(result, model, spec, 4, {name: worst / 10})
    assert f"--rtol {name}=" in e.value.hint
    assert "max abs err" in e.value.message


@pytest.mark.slow  # real export (torch.jit.script, torch.jit.trace)
def test_verification_covers_batch_ends_and_dynamic_axis_ends(tmp_path):
    model = _Lambda(lambda ids: ids.float().sum(dim=1, keepdim=True))
    spec = infer_outputs(model, ModelSpec((TensorSpec("ids", "int64", ("seq",), (0, 9)),), (), {"seq": (2, 3, 7)}))
    result = export_torchscript(model, spec, tmp_path)
    points = [(c["batch"], c["axes"]["seq"]) for c in verify_artifact(result, model, spec, 6, {})]
    assert {(1, 3), (3, 3), (6, 3), (1, 2), (6, 7)} <= set(points)


def test_fp32_tolerance_is_device_aware_and_says_its_tf32_policy():
    from builders.model.spec import ModelSpec
    from builders.model.tensor import TensorSpec
    from builders.verify.verdicts import tf32_disabled_for, verified_on
    from builders.verify.verification import output_tolerances

    spec = ModelSpec((TensorSpec("x", "float32", (4,)),), (TensorSpec("y", "float32", (4,)), TensorSpec("z", "float32", (4,))))
    assert output_tolerances(spec, "fp32", {}) == {"y": 1e-4, "z": 1e-4}
    # TorchScript on CUDA runs with TF32 off: the fp32 default stands
    assert output_tolerances(spec, "fp32", {}, "cuda:0", tf32_disabled_for("torchscript")) == {"y": 1e-4, "z": 1e-4}
    # ONNX Runtime CUDA / TensorRT may use TF32: fp32 widened, a user's --rtol still wins
    assert output_tolerances(spec, "fp32", {"z": 5e-5}, "cuda", tf32_disabled_for("trt")) == {"y": 1e-3, "z": 5e-5}
    assert output_tolerances(spec, "fp16", {}, "cuda", False) == {"y": 1e-2, "z": 1e-2}
    assert verified_on("onnx", "fp32", "cpu") == {
        "device": "cpu",
        "runner": "onnxruntime CPUExecutionProvider",
        "tf32": "n/a",
        "computes_in": "fp32",
    }
    assert verified_on("torchscript", "fp32", "cuda:0")["tf32"] == "disabled"
    assert verified_on("trt", "fp32", "cuda")["tf32"] == "allowed (fp32 rtol widened to 0.001)"


def test_no_tf32_restores_torch_switches():
    import torch

    from builders.verify.verification import no_tf32

    before = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
    with no_tf32():
        assert not torch.backends.cuda.matmul.allow_tf32 and not torch.backends.cudnn.allow_tf32
    assert (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32) == before
