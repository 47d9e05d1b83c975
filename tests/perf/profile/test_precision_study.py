"""Precision study (perf/profile/precision_study.py): on this host each precision is measured as torch
really executes it, or marked "not run on this host" with the reason, never given numbers of 0."""

from __future__ import annotations

import pytest
import torch

from builders.model.models import load_model
from builders.verify.verdicts import KernelPrecision, kernel_precision
from perf.profile import precision_study as study


@pytest.fixture(scope="module")
def tiny():
    return load_model("tiny", None)


def test_each_precision_is_measured_or_not_run_with_a_reason(tiny):
    rows = study.precision_study(tiny.module, tiny.spec, ["fp16", "bf16"], batch_size=4, threads=1, min_run_time_s=0.05)
    assert [(r.device, r.precision) for r in rows] == [
        (d, p) for d in ("cpu", "cuda") for p in ("fp32", "fp16", "bf16")
    ]  # fp32 is run too: the speed reference
    for r in rows:
        fact = kernel_precision("torchscript", r.precision, r.device)
        assert r.computes_in == fact.computes_in
        if r.status == "measured":
            assert r.device in study.host_devices() and fact.computes_in == r.precision
            assert r.latency_median_ms and r.latency_median_ms > 0 and r.throughput_samples_per_s > 0
            assert r.max_abs_err is not None and r.max_rel_err is not None and r.within_rtol is not None
        else:
            assert r.status == "not run on this host" and r.reason
            assert r.latency_median_ms is r.max_abs_err is r.max_rel_err is r.throughput_samples_per_s is None
    cpu = {r.precision: r for r in rows if r.device == "cpu"}
    assert cpu["fp32"].status == "measured" and cpu["fp32"].max_abs_err == 0.0  # the reference itself
    for p in ("fp16", "bf16"):  # torch's CPU kernels compute in fp16/bf16 (KERNEL_PRECISION)
        if cpu[p].status == "measured":
            assert cpu[p].max_abs_err > 0 and cpu[p].speedup_vs_fp32 and cpu[p].speedup_vs_fp32 > 0
        else:
            assert "kernel" in (cpu[p].reason or "")


@pytest.mark.skipif(__import__("torch").cuda.is_available(), reason="this host has a GPU")
def test_cuda_rows_are_not_run_without_a_gpu(tiny):
    rows = study.precision_study(tiny.module, tiny.spec, ["fp16"], devices=("cuda",), min_run_time_s=0.01)
    assert {r.status for r in rows} == {"not run on this host"}
    assert all("no CUDA device" in (r.reason or "") for r in rows)


def test_kernels_computing_in_another_precision_are_not_run(tiny, monkeypatch):
    fake = KernelPrecision("torchscript", "cpu", "bf16", "fp32", "this runtime casts bf16 to fp32")
    real = study.kernel_precision
    monkeypatch.setattr(study, "kernel_precision", lambda f, p, d: fake if p == "bf16" else real(f, p, d))
    (fp32, bf16) = study.precision_study(tiny.module, tiny.spec, ["bf16"], devices=("cpu",), min_run_time_s=0.01)
    assert fp32.status == "measured"
    assert bf16.status == "not run on this host" and "casts bf16 to fp32" in (bf16.reason or "")
    assert bf16.computes_in == "fp32" and bf16.latency_median_ms is None and bf16.speedup_vs_fp32 is None


@pytest.mark.gpu
@pytest.mark.skipif(not __import__("torch").cuda.is_available(), reason="needs a CUDA GPU (none on this host)")
def test_fp16_on_a_gpu_is_measured(tiny):
    rows = study.precision_study(tiny.module, tiny.spec, ["fp16", "bf16"], devices=("cuda",), min_run_time_s=0.05)
    assert all(r.status == "measured" and r.latency_median_ms > 0 for r in rows if r.precision != "bf16")


class _Normalising(torch.nn.Module):
    """A uint8 image model that normalises inside forward(): ``image.float()`` is float32 whatever the weights are."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        return self.conv(image.float() / 255.0).mean(dim=(2, 3))


def test_a_model_making_float32_itself_says_why_its_reduced_rows_cannot_run():
    """Trial 27, T27-9: the row said a bare "RuntimeError: Input type (float) and bias type (c10::Half) should be the
    same"; it now says what that means for this model and what to do."""
    from builders.model.spec import ModelSpec
    from builders.model.tensor import TensorSpec

    spec = ModelSpec(inputs=(TensorSpec("image", "uint8", (3, 8, 8)),), outputs=(TensorSpec("y", "float32", (4,)),))
    rows = study.precision_study(_Normalising().eval(), spec, ["fp16", "bf16"], devices=("cpu",), min_run_time_s=0.01)
    by = {r.precision: r for r in rows}
    assert by["fp32"].status == "measured"
    for p in ("fp16", "bf16"):
        r = by[p]
        if r.status == "not run on this host" and "kernel" in (r.reason or ""):
            continue  # this torch has no CPU kernel of it
        assert r.status == "failed" and r.latency_median_ms is None
        reason = r.reason or ""
        assert "forward() makes float32 tensors itself" in reason and p in reason, reason
        assert "integer inputs stay as they are" in reason and "torch said: RuntimeError" in reason, reason


def test_a_short_plan_is_not_an_estimated_0_s():
    """Trial 27, T27-9 (NIT): "timed together in 8 of 8 rounds, an estimated 0 s"."""
    said = study.plan_words("cpu", [("fp32", 0.0001), ("fp16", 0.0002)], study.TimingSettings(min_run_time_s=0.05))
    assert "an estimated 0 s" not in said and " ms" in said.split("an estimated ")[1], said
