"""``builders build`` refuses a flag the build would not read (trial 21, kind K1 "a flag accepted and ignored":
``--format torchscript --opset 17``, ``--timing-cache`` / ``--workspace-mib`` without a TensorRT plan,
``--target-triton`` without ``--print-trtexec``, ``--warmup-count`` with ``--warmup off`` and
``--trt-accelerator fp16`` on a CPU grid all built without a word, the last with an empty grid and the
reason "()"). Exit 2, before the model loads; and an accelerator value no grid point takes is said as a skip."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from builders.cli.main import cli
from builders.config.variants import VariantGrid
from core.cli import EXIT_USAGE
from core.errors import ConfigError


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--format", "torchscript", "--opset", "17"], "--opset would be ignored: it applies to ONNX exports"),
        (["--format", "onnx", "--timing-cache", "tc.bin"], "--timing-cache would be ignored: it applies to TensorRT plans"),
        (["--format", "onnx", "--workspace-mib", "512"], "--workspace-mib would be ignored: it applies to TensorRT plans"),
        (["--format", "onnx", "--target-triton", "24.08"], "--target-triton would be ignored: it applies to the commands"),
        (
            ["--format", "onnx", "--warmup-count", "3"],
            "--warmup-count would be ignored: it applies to variants with model_warmup",
        ),
        (["--format", "onnx", "--warmup-count-reason", "x"], "--warmup-count-reason would be ignored"),
        (["--format", "onnx", "--trt-accelerator", "off,fp16"], "--trt-accelerator fp16 applies to ONNX on KIND_GPU"),
    ],
)
def test_a_flag_the_build_would_not_read_is_refused(extra: list[str], said: str, tmp_path: Path) -> None:
    args = ["build", "--model", "mlp", "--build-dir", str(tmp_path / "b"), "-r", str(tmp_path / "r"), *extra]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == EXIT_USAGE, res.output
    assert said in res.output
    assert "loading model" not in res.output and not (tmp_path / "b").exists()


def test_the_same_flags_where_the_build_reads_them_are_not_refused() -> None:
    from builders.cli.unread import refuse_unread_build_flags
    from core.errors import FlagError

    args = ["--opset", "17", "--warmup-count", "2", "--workspace-mib", "8"]
    sub = cli.commands["build"].make_context("build", args, parent=cli.make_context("builders", ["build", *args]))
    fp32 = ("fp32",)
    refuse_unread_build_flags(sub, ("onnx", "trt"), fp32, {}, VariantGrid(warmups=("zero",)), "python", False)
    refuse_unread_build_flags(sub, ("onnx",), fp32, {}, VariantGrid(warmups=(None, "zero")), "python", True)  # --print-trtexec
    with pytest.raises(FlagError) as e:
        refuse_unread_build_flags(sub, ("onnx",), fp32, {}, VariantGrid(), "python", False)
    assert e.value.flag == "--workspace-mib"  # every unread flag named, in one refusal
    assert "; --warmup-count would be ignored" in str(e.value)
    assert "drop --workspace-mib" in (e.value.hint or "") and "drop --warmup-count" in (e.value.hint or "")


def test_what_the_grid_and_the_plans_make_decides_not_the_flags_alone() -> None:
    """The review of this change: an accelerator no variant takes (TorchScript only) gives no model_warmup, so
    --warmup-count is unread; a TensorRT precision every plan of which comes from --plan is imported, not built,
    so --workspace-mib is unread; ORT-TRT variants (ONNX, KIND_GPU, native serving) do warm up."""
    from builders.cli.unread import refuse_unread_build_flags
    from core.errors import FlagError

    args = ["--warmup-count", "3", "--workspace-mib", "8"]
    sub = cli.commands["build"].make_context("build", args, parent=cli.make_context("builders", ["build", *args]))
    gpu = VariantGrid(kinds=("gpu",), trt_accelerators=(None, "fp16"), server_gpu=True)
    with pytest.raises(FlagError) as e:
        refuse_unread_build_flags(sub, ("torchscript", "trt"), ("fp16",), {"fp16": Path("p.plan")}, gpu, "native", False)
    assert "--workspace-mib would be ignored" in str(e.value) and "--warmup-count would be ignored" in str(e.value)
    refuse_unread_build_flags(sub, ("onnx", "trt"), ("fp16",), {}, gpu, "native", False)  # ORT-TRT warms up; a plan is built


def test_an_accelerator_no_grid_point_takes_is_said_as_a_skip() -> None:
    """A KIND_AUTO grid on a host without a GPU (auto is KIND_CPU there), or no ONNX format: the value is
    skipped with its reason, not dropped without a word (the grid was empty with the reason '()')."""
    grid = VariantGrid(kinds=("auto",), trt_accelerators=(None, "fp16"), server_gpu=False)
    plan = grid.plan("m", ("onnx",))
    assert plan.variants and all(v.trt_accelerator is None for v in plan.variants)
    assert [s.what for s in plan.skipped] == ["TensorRT accelerator fp16"]
    assert "KIND_CPU" in plan.skipped[0].reason
    only = VariantGrid(kinds=("auto",), trt_accelerators=("fp16",), server_gpu=True).plan("m", ("torchscript",), serving="native")
    assert not only.variants and "ONNX Runtime option" in only.skipped[0].reason
    with pytest.raises(ConfigError, match="has only cpu instances") as e:
        VariantGrid(kinds=("cpu",), trt_accelerators=("fp16",))
    assert e.value.flag == "--trt-accelerator"


def test_opset_beside_plans_taken_back_is_refused() -> None:
    """s19: `--format trt --plan fp32=model.plan --opset 17` took the plan back, exported no ONNX and said nothing of
    --opset (the check asked whether the formats named trt, not whether an ONNX export is made)."""
    from builders.cli.unread import refuse_unread_build_flags
    from core.errors import FlagError

    args = ["--opset", "17"]
    sub = cli.commands["build"].make_context("build", args, parent=cli.make_context("builders", ["build", *args]))
    with pytest.raises(FlagError) as e:
        refuse_unread_build_flags(sub, ("trt",), ("fp32",), {"fp32": Path("p.plan")}, VariantGrid(), "native", False)
    assert "--opset would be ignored: it applies to ONNX exports, and this build makes none (--format trt); --plan takes" in (
        str(e.value)
    )
    refuse_unread_build_flags(sub, ("onnx", "trt"), ("fp32",), {"fp32": Path("p.plan")}, VariantGrid(), "native", False)
