"""Partial builds (issue 19, item 4): when one (format, precision) export fails, the variants
of those that passed are written, the failed ones are listed with the reason, and the build
exits non-zero."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from builders.build import BuildOptions, build
from builders.cli.main import cli
from builders.config.variants import VariantGrid
from builders.repository.records import INDEX_FILE
from core.errors import GpuRequiredError, PartialBuildError, VerificationError

pytestmark = pytest.mark.slow  # real exports (torch.jit.script, torch.onnx.export): `make test`, not `make test-unit`

GRID = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,))
FLAGS = ["--instance-counts", "1", "--dynamic-batching", "off", "--max-batch-sizes", "4"]


def _cpu_only_onnxruntime() -> bool:
    import onnxruntime as ort

    return (
        ort.get_available_providers() == ["CPUExecutionProvider"] or "CUDAExecutionProvider" not in ort.get_available_providers()
    )


@pytest.mark.skipif(not _cpu_only_onnxruntime(), reason="onnxruntime here has a GPU provider, which has bf16 Gemm kernels")
def test_onnx_fp16_and_bf16_on_a_cpu_host_writes_the_fp16_variants_and_lists_bf16(tmp_path: Path) -> None:
    opts = BuildOptions(
        "tiny",
        formats=("onnx",),
        precisions=("fp16", "bf16"),
        grid=GRID,
        repository=tmp_path / "repo",
        build_dir=tmp_path / "builds",
    )
    with pytest.raises(PartialBuildError, match=r"1 of 2 exports failed: onnx bf16 \(verify\): .*Gemm") as e:
        build(opts)
    assert [(f, p) for f, p, _ in e.value.failed] == [("onnx", "bf16")]
    assert isinstance(e.value.failed[0][2], VerificationError)
    assert [d.name for d in e.value.result.variant_dirs] == ["tiny_onnx-fp16_cpu1_nodb_mbs4"]
    index = json.loads((tmp_path / "repo" / INDEX_FILE).read_text())
    assert [v["name"] for v in index["variants"]] == ["tiny_onnx-fp16_cpu1_nodb_mbs4"]
    manifest = json.loads((tmp_path / "builds" / "tiny" / "manifest.json").read_text())
    failed = [x for x in manifest["exports"] if x.get("failed")]
    assert [(x["format"], x["precision"], x["failed"]) for x in failed] == [("onnx", "bf16", "verify")]
    assert manifest["variants"] == ["tiny_onnx-fp16_cpu1_nodb_mbs4"]


@pytest.mark.skipif(not _cpu_only_onnxruntime(), reason="onnxruntime here has a GPU provider, which has bf16 Gemm kernels")
def test_the_cli_says_where_the_passed_variants_are_and_exits_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(cli, ["build", "--model", "tiny", "--format", "onnx", "--precision", "fp16,bf16", *FLAGS])
    assert res.exit_code == 1
    assert "repository: model_repository (this build wrote 1 variant)" in res.output and "manifest:" in res.output
    assert isinstance(res.exception, PartialBuildError) and "onnx bf16 (verify)" in str(res.exception)


def test_format_all_on_a_host_without_tensorrt_is_refused_before_any_export(tmp_path: Path) -> None:
    from builders.serving.tensorrt_env import missing_requirements

    if not missing_requirements():
        pytest.skip("this machine builds TensorRT plans: the trt export does not fail here")
    opts = BuildOptions(
        "tiny",
        formats=("torchscript", "onnx", "trt"),
        grid=GRID,
        serving="native",
        repository=tmp_path / "repo",
        build_dir=tmp_path / "builds",
    )
    with pytest.raises(GpuRequiredError, match=r"nothing was exported or written: trt fp32: building a TensorRT plan") as e:
        build(opts)  # issue 26, T18-1: minutes of TorchScript and ONNX work came first, then the missing GPU
    assert e.value.hint.startswith("drop trt (--format torchscript,onnx builds the others)")
    assert not (tmp_path / "builds").exists() and not (tmp_path / "repo").exists()


@pytest.mark.skipif(not _cpu_only_onnxruntime(), reason="onnxruntime here has a GPU provider, which has bf16 Gemm kernels")
def test_a_single_asked_export_that_fails_raises_its_own_error(tmp_path: Path) -> None:
    with pytest.raises(VerificationError):  # not a PartialBuildError of one
        build(
            BuildOptions(
                "tiny", formats=("onnx",), precisions=("bf16",), grid=GRID, repository=tmp_path / "repo", build_dir=tmp_path / "b"
            )
        )
