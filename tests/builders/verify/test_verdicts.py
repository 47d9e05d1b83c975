"""Issue 11, items 4 and 9 and the build summary: a verdict says what verified an export,
in which precision its kernels computed, on which device; "ok" only when that is the
precision and device asked for."""

from __future__ import annotations

import json

import pytest
import verification_models as vm
from click.testing import CliRunner

from builders.build import BuildOptions, build
from builders.build_verify import verification_devices
from builders.cli.main import cli
from builders.cli.summary import SUMMARY_COLUMNS
from builders.config.variants import Variant, VariantGrid
from builders.export.onnx import export_onnx
from builders.export.torchscript import export_torchscript
from builders.model.outputs import infer_outputs
from builders.model.spec import ModelSpec
from builders.verify.verdicts import KERNEL_PRECISION, kernel_precision, overall, verified_on
from builders.verify.verification import verify_export
from core.errors import VerificationError

X16 = ModelSpec.from_flags(["x:float32:16"])
GRID = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,))


def _cuda() -> str | None:
    """Why the GPU tests cannot run here, or None."""
    import torch

    return None if torch.cuda.is_available() else "needs an NVIDIA GPU visible to torch (torch.cuda.is_available() is False)"


def _ort_cuda() -> str | None:
    """Why onnxruntime cannot run on the GPU here, or None."""
    import onnxruntime as ort

    if _cuda():
        return _cuda()
    return None if "CUDAExecutionProvider" in ort.get_available_providers() else "needs onnxruntime-gpu (CUDAExecutionProvider)"


def test_one_table_says_which_kernels_compute_in_the_precision_asked_for():
    assert kernel_precision("onnx", "fp16", "cpu").computes_in == "fp32"  # ORT CPU upcasts
    assert kernel_precision("onnx", "bf16", "cpu").computes_in == "fp32"
    assert kernel_precision("onnx", "fp16", "cuda:0").computes_in == "fp16"
    assert kernel_precision("torchscript", "fp16", "cpu").computes_in == "fp16"  # torch CPU rounds every op to fp16
    assert kernel_precision("torchscript", "bf16", "cuda").computes_in == "bf16"
    assert kernel_precision("trt", "fp16", "cuda").computes_in == "fp16"
    assert kernel_precision("trt", "fp16", "cpu").computes_in == "fp32"  # not in the table: never verified in fp16
    assert {(k.format, k.device) for k in KERNEL_PRECISION} == {
        ("torchscript", "cpu"),
        ("torchscript", "cuda"),
        ("onnx", "cpu"),
        ("onnx", "cuda"),
        ("trt", "cuda"),
    }
    assert verified_on("onnx", "fp16", "cpu")["computes_in"] == "fp32"


def test_torch_cpu_really_computes_fp16():
    """The table's claim for TorchScript on CPU, measured: an fp16 overflow shows up."""
    import torch

    model = vm.square16().half()
    with torch.no_grad():
        assert not torch.isfinite(model(torch.randn(2, 16).half())).all()


def test_overall_verdict_over_devices():
    assert overall(["ok"]) == "ok" and overall(["ok", "failed"]) == "failed"
    assert overall(["not_verified_precision", "ok"]) == "ok"  # fp16 verified for real on the GPU
    assert overall(["ok", "not_verified_device"]) == "not_verified_device"  # KIND_GPU variants never verified
    assert overall(["not_verified_precision"]) == "not_verified_precision"


@pytest.mark.slow  # real export (torch.jit.script, torch.jit.trace, torch.onnx.export, torch.export)
@pytest.mark.skipif(_ort_cuda() is None, reason="this host has a GPU: onnx fp16 is verified on onnxruntime's CUDA provider")
def test_fp16_onnx_that_overflows_is_not_ok_on_a_cpu_host(tmp_path):
    """Own example: h * h overflows fp16; onnxruntime's CPU provider computes it in fp32 and agrees."""
    model = vm.square16()
    spec = infer_outputs(model, X16)
    result = export_onnx(model, spec, tmp_path, "fp16")
    (verdict,) = verify_export(result, model, spec, 4, {}, ("cpu",))
    assert verdict["status"] == "not_verified_precision"
    assert verdict["verified_on"] == {
        "device": "cpu",
        "runner": "onnxruntime CPUExecutionProvider",
        "tf32": "n/a",
        "computes_in": "fp32",
    }
    assert "fp32" in verdict["reason"] and "Cast" in verdict["reason"]
    # the same model in TorchScript on the same CPU computes in fp16 and fails for real
    ts = export_torchscript(model, spec, tmp_path / "ts", "fp16")
    with pytest.raises(VerificationError, match="NaN or Inf in output"):
        verify_export(ts, model, spec, 4, {}, ("cpu",))


@pytest.mark.slow  # real export (torch.onnx.export, torch.export)
def test_the_issues_layernorm_fp16_onnx_is_never_ok_on_cpu(tmp_path):
    model = vm.overflow16()
    spec = infer_outputs(model, X16)
    result = export_onnx(model, spec, tmp_path, "fp16")
    try:
        (verdict,) = verify_export(result, model, spec, 4, {}, ("cpu",))
    except VerificationError as e:  # this onnxruntime runs LayerNormalization in fp16 and sees the NaN
        assert "NaN or Inf" in e.message
    else:
        assert verdict["status"] != "ok"


@pytest.mark.slow  # real export (torch.onnx.export, torch.export)
def test_build_records_the_verdict_and_the_summary_says_not_verified_in_fp16(tmp_path):
    res = CliRunner().invoke(
        cli,
        [
            "build",
            "--model",
            "verification_models:square16",
            "--input",
            "x:float32:16",
            "--format",
            "onnx",
            "--precision",
            "fp32",
            "--precision",
            "fp16",
            "--max-batch-sizes",
            "4",
            "--instance-counts",
            "1",
            "--dynamic-batching",
            "off",
            "--repository",
            str(tmp_path / "repo"),
            "--build-dir",
            str(tmp_path / "b"),
        ],
        catch_exceptions=False,
    )
    assert res.exit_code == 0, res.output
    header, table = _summary_table(res.stdout)
    assert header == list(SUMMARY_COLUMNS)  # the whole table, no colour, when stdout is not a terminal
    rows = {tuple(r[:3]): r for r in table if r[0] == "onnx"}
    gpu = _ort_cuda() is None
    fp16, fp32 = rows[("onnx", "fp16", "dynamo")], rows[("onnx", "fp32", "dynamo")]
    assert fp16[5] == ("ok" if gpu else "not verified in fp16 on this host")
    assert fp32[5] == "ok"
    assert "OUTPUT__0: abs" in fp16[4] and "onnxruntime CPUExecutionProvider" in fp32[3]
    m = json.loads((tmp_path / "b" / "square16" / "manifest.json").read_text())
    e16 = next(e for e in m["exports"] if e["precision"] == "fp16")
    assert e16["status"] == ("ok" if gpu else "not_verified_precision")
    assert e16["verdicts"][0]["verified_on"]["computes_in"] == ("fp16" if gpu else "fp32")
    assert "\x1b[" not in res.stdout


@pytest.mark.slow  # real export (torch.jit.script, torch.jit.trace)
def test_a_failed_build_still_prints_its_summary(tmp_path):
    res = CliRunner().invoke(
        cli,
        [
            "build",
            "--model",
            "verification_models:branch_noscript",
            "--input",
            "x:float32:4",
            "--format",
            "torchscript",
            "--max-batch-sizes",
            "4",
            "--instance-counts",
            "1",
            "--dynamic-batching",
            "off",
            "--repository",
            str(tmp_path / "repo"),
            "--build-dir",
            str(tmp_path / "b"),
        ],
    )
    assert res.exit_code != 0 and isinstance(res.exception, VerificationError)
    _, table = _summary_table(res.stdout)
    row = next(r for r in table if r[0] == "torchscript")
    assert "script: export failed" in row[2] and "trace: verification failed" in row[2] and row[5] == "failed (verify)"


def _summary_table(output: str) -> tuple[list[str], list[list[str]]]:
    """The build summary's header and rows read back from the drawn table (a wrapped cell joined again)."""

    def cells(line: str, bar: str) -> list[str]:
        return [c.strip() for c in line.strip().strip(bar).split(bar)]

    def joined(lines: list[list[str]]) -> list[str]:
        return [" ".join(x for x in col if x) for col in zip(*lines)]

    header = joined([cells(line, "┃") for line in output.splitlines() if line.startswith("┃")])
    rows: list[list[list[str]]] = []
    for line in output.splitlines():
        if line.startswith("│"):
            c = cells(line, "│")
            if c[0] or not rows:
                rows.append([c])
            else:
                rows[-1].append(c)
    return header, [joined(r) for r in rows]


def test_kind_gpu_variants_are_verified_on_cuda_and_cpu_ones_on_cpu():
    v = [
        Variant("m_ts_cpu1", "torchscript", "fp32", "cpu"),
        Variant("m_ts_gpu1", "torchscript", "fp32", "gpu"),
        Variant("m_onnx_gpu1", "onnx", "fp16", "gpu"),
    ]
    assert verification_devices("torchscript", "fp32", v) == ("cpu", "cuda")
    assert verification_devices("onnx", "fp16", v) == ("cuda",)
    assert verification_devices("onnx", "fp32", v) == ("cpu",)  # no variant (an ONNX built for TensorRT plans)
    assert verification_devices("trt", "fp16", v) == ("cuda",)


@pytest.mark.slow  # real export (torch.jit.script)
@pytest.mark.skipif(_cuda() is None, reason="this host has a GPU: the GPU is used, not reported missing")
def test_a_gpu_variant_on_a_host_without_gpu_is_not_verified_not_ok(tmp_path):
    result = build(
        BuildOptions(
            "tiny",
            formats=("torchscript",),
            grid=VariantGrid(kinds=("cpu", "gpu"), counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,), server_gpu=True),
            repository=tmp_path / "repo",
            build_dir=tmp_path / "b",
        )
    )
    e = result.manifest["exports"][0]
    assert [v["status"] for v in e["verdicts"]] == ["ok", "not_verified_device"]
    assert e["status"] == "not_verified_device" and "no CUDA device" in e["verdicts"][1]["reason"]
    from builders.cli.summary import summary_rows
    from builders.repository.records import BuildManifest

    rows = summary_rows(BuildManifest.model_validate(result.manifest))
    assert rows[1][3].startswith("nothing (would be ") and "cuda" in rows[1][3]  # no place it never ran is named
    assert rows[0][3].startswith("torch") and "(cpu, computes in fp32)" in rows[0][3]


@pytest.mark.slow  # real export on a GPU host (TensorRT/ONNX/TorchScript)
@pytest.mark.gpu
@pytest.mark.parametrize("fmt", ["torchscript", "onnx"])
def test_kind_gpu_exports_are_verified_on_the_gpu_before_they_are_written(tmp_path, fmt):
    missing = _cuda() if fmt == "torchscript" else _ort_cuda()
    if missing:
        pytest.skip(missing)
    result = build(
        BuildOptions(
            "tiny",
            formats=(fmt,),
            grid=VariantGrid(kinds=("gpu",), counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,)),
            repository=tmp_path / "repo",
            build_dir=tmp_path / "b",
        )
    )
    e = result.manifest["exports"][0]
    assert [v["verified_on"]["device"] for v in e["verdicts"]] == ["cuda"] and e["status"] == "ok"
    assert {p["device"] for p in e["verification"]} == {"cuda"}
    want = "disabled" if fmt == "torchscript" else "allowed (fp32 rtol widened to 0.001)"
    assert e["verdicts"][0]["verified_on"]["tf32"] == want


@pytest.mark.slow  # real export on a GPU host (TensorRT/ONNX/TorchScript)
@pytest.mark.gpu
@pytest.mark.skipif(bool(_ort_cuda()), reason=_ort_cuda() or "")
def test_fp16_onnx_that_overflows_fails_on_the_gpu(tmp_path):
    model = vm.square16()
    spec = infer_outputs(model, X16)
    result = export_onnx(model, spec, tmp_path, "fp16")
    with pytest.raises(VerificationError, match="NaN or Inf in output"):
        verify_export(result, model, spec, 4, {}, ("cuda",))
