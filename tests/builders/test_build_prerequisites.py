"""A build whose asked format, precision or instance kind lacks a prerequisite here stops before any
work, in one error naming each missing thing and what to do (issue 26, trial 18, T18-1: `--format trt`
on a host without a GPU exported and verified the ONNX twice, 6 min 22 s, then exited 1 without
saying that TensorRT or a GPU was missing)."""

from __future__ import annotations

import subprocess
import sys
import time
import types
from pathlib import Path

import pytest
from click.testing import CliRunner

from builders import build_preflight
from builders.build import BuildOptions
from builders.build_preflight import missing_prerequisites
from builders.cli.main import cli
from builders.config.variants import VariantGrid
from builders.serving.tensorrt_env import missing_requirements
from core.errors import GpuRequiredError

ROOT = Path(__file__).resolve().parents[2]
MISSING = missing_requirements()
FLAGS = ["--instance-counts", "1", "--dynamic-batching", "off", "--max-batch-sizes", "4"]
GRID = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,))


def _nothing_written(root: Path) -> bool:
    return not (root / "builds").exists() and not (root / "model_repository").exists()


@pytest.mark.skipif(not MISSING, reason="this machine builds TensorRT plans: nothing is missing here")
def test_the_cli_refuses_trt_before_any_export_naming_what_is_missing(tmp_path: Path) -> None:
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "builders.cli.main", "build", "--model", "tiny", "--format", "trt", *FLAGS],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "COLUMNS": "250"},
    )
    took = time.monotonic() - start
    assert proc.returncode == 1, proc.stdout + proc.stderr
    err = proc.stderr
    assert "error (gpu): not built, nothing was exported or written: trt fp32: building a TensorRT plan needs " in err
    for what in MISSING:  # the `tensorrt` package and/or a CUDA GPU, each named
        assert what in err
    assert "build --format torchscript,onnx" in err  # what to do
    assert "scripts/gpu_check.sh" in err and "--print-trtexec" in err
    assert "loading model" not in proc.stdout + err and "exporting" not in proc.stdout + err  # before any work
    assert _nothing_written(tmp_path)
    assert took < 120, f"took {took:.0f} s: the refusal is seconds of imports, not exports"  # the old code: minutes here


@pytest.mark.skipif(not MISSING, reason="this machine builds TensorRT plans: nothing is missing here")
def test_format_all_and_a_gpu_only_grid_are_named_together_before_the_model_loads(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    flags = ["--format", "all", "--serving", "native", "--instance-kind", "gpu", "--no-server-gpu", *FLAGS]
    res = CliRunner(env={"COLUMNS": "250"}).invoke(cli, ["build", "--model", "tiny", *flags])
    assert res.exit_code == 1 and isinstance(res.exception, GpuRequiredError)
    msg, hint = res.exception.message, res.exception.hint
    assert "trt fp32: building a TensorRT plan needs" in msg and "only KIND_GPU variants were asked for" in msg
    assert hint.startswith("drop trt (--format torchscript,onnx builds the others)") and "--instance-kind cpu" in hint
    assert "loading model" not in res.output and _nothing_written(tmp_path)


def test_a_gpu_host_with_tensorrt_is_not_refused_even_for_the_python_backend(monkeypatch) -> None:
    monkeypatch.setattr(build_preflight, "missing_requirements", list)  # a GPU host with TensorRT
    opts = BuildOptions("tiny", formats=("onnx", "trt"), grid=GRID)  # scripts/gpu_check.sh: plans verified, not served
    assert missing_prerequisites(opts) == []
    build_preflight.refuse_missing_prerequisites(opts)


def test_a_bf16_plan_needs_tensorrt_9(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(build_preflight, "missing_requirements", list)
    monkeypatch.setitem(sys.modules, "tensorrt", types.SimpleNamespace(__version__="8.6.1"))
    opts = BuildOptions("tiny", formats=("trt",), precisions=("fp16", "bf16"), serving="native", grid=GRID)
    (only,) = missing_prerequisites(opts)
    assert only.what == "trt bf16: a bf16 plan needs TensorRT >= 9; this is 8.6.1" and only.do == "use --precision fp16"
    monkeypatch.setitem(sys.modules, "tensorrt", types.SimpleNamespace(__version__="10.3.0"))
    assert missing_prerequisites(opts) == []


def test_plans_built_elsewhere_need_nothing_here(tmp_path: Path) -> None:
    grid = VariantGrid(kinds=("gpu",), counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,), server_gpu=True)
    opts = BuildOptions("tiny", formats=("trt",), serving="native", grid=grid, plans={"fp32": tmp_path / "p.plan"})
    assert missing_prerequisites(opts) == []  # taken back with --plan: no TensorRT build here
    assert missing_prerequisites(BuildOptions("tiny", formats=("torchscript", "onnx"), grid=GRID)) == []


def test_the_format_help_says_all_includes_trt_and_what_it_needs() -> None:
    """T25-7: `-h` said only "all = every format", and a newcomer's `--format all` on a CPU host built nothing."""
    text = " ".join(CliRunner().invoke(cli, ["build", "-h"], terminal_width=200).output.split())
    assert "all = every format (torchscript,onnx,trt: trt needs a CUDA GPU and TensorRT on the build host" in text
