"""TensorRT outside this host (issue 19, item 5): ``--print-trtexec`` prints the whole
``docker run`` with the paths seen inside the container, and ``--plan`` takes a plan built
there back: verified where TensorRT and a GPU are, else marked not verified here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from builders.build import BuildOptions, build
from builders.cli.main import cli
from builders.config.variants import VariantGrid
from builders.export.tensorrt import import_plan, trtexec_docker_command
from builders.model.builtin import get_builtin
from builders.serving.tensorrt_env import missing_requirements
from core.errors import ExportError

TINY = get_builtin("tiny").spec
GPU_GRID = VariantGrid(kinds=("gpu",), counts=(1,), queue_delays_us=(None,), max_batch_sizes=(8,), server_gpu=True)


def test_the_docker_command_uses_container_paths_only(tmp_path: Path) -> None:
    build_dir = tmp_path / "builds" / "tiny"
    line = trtexec_docker_command(build_dir, "fp16", TINY, 8, "25.01", workspace_bytes=1 << 30)
    docker, trtexec = line.split(" trtexec ")
    assert docker == f"docker run --rm --gpus=all -v {build_dir.resolve()}:/build nvcr.io/nvidia/tensorrt:25.01-py3"
    assert "--onnx=/build/model.onnx" in trtexec and "--saveEngine=/build/fp16/model.plan" in trtexec and "--fp16" in trtexec
    assert "--timingCacheFile=/build/trt_timing.cache" in trtexec and "--memPoolSize=workspace:1024" in trtexec
    assert str(tmp_path) not in trtexec
    # a timing cache kept elsewhere is mounted too
    elsewhere = trtexec_docker_command(
        build_dir, "fp32", TINY, 8, "24.10", timing_cache=tmp_path / "caches" / "t.cache", gpus="device=1"
    )
    assert f"-v {(tmp_path / 'caches').resolve()}:/cache" in elsewhere and "--timingCacheFile=/cache/t.cache" in elsewhere
    assert "--gpus=device=1" in elsewhere and "--saveEngine=/build/model.plan" in elsewhere


def test_an_unknown_target_release_is_refused_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(cli, ["build", "--model", "tiny", "--format", "onnx", "--print-trtexec", "--target-triton", "19.01"])
    assert res.exit_code == 2 and "19.01" in res.output  # what was typed: a usage error (T17-15)


@pytest.mark.skipif(not missing_requirements(), reason="this host runs TensorRT plans: the plan is verified, not marked")
def test_a_plan_built_elsewhere_is_taken_back_and_marked_not_verified_here(tmp_path: Path) -> None:
    plan = tmp_path / "from_the_gpu_host.plan"
    plan.write_bytes(b"\x00serialized engine bytes")
    result = build(
        BuildOptions(
            "tiny",
            formats=("trt",),
            grid=GPU_GRID,
            serving="native",
            plans={"fp32": plan},
            repository=tmp_path / "repo",
            build_dir=tmp_path / "builds",
        )
    )
    (trt,) = [e for e in result.manifest["exports"] if e["format"] == "trt"]
    assert trt["strategy"] == "imported" and trt["status"] == "not_verified_device"
    assert "running a TensorRT plan needs" in trt["verdicts"][0]["reason"]
    assert trt["extra"]["imported_from"] == str(plan.resolve()) and trt["extra"]["profile_read"] is False
    assert trt["extra"]["profile"]["INPUT__0"] == [[1, 16], [4, 16], [8, 16]]  # what the printed trtexec command asked for
    assert [d.name for d in result.variant_dirs] == ["tiny_trt_gpu1_nodb_mbs8"]
    served = result.variant_dirs[0] / "1" / "model.plan"
    assert served.read_bytes() == plan.read_bytes()
    assert 'platform: "tensorrt_plan"' in (result.variant_dirs[0] / "config.pbtxt").read_text()
    # another plan file is another export, not a reuse of the first
    plan.write_bytes(b"\x00another engine")
    again = build(
        BuildOptions(
            "tiny",
            formats=("trt",),
            grid=GPU_GRID,
            serving="native",
            plans={"fp32": plan},
            repository=tmp_path / "repo",
            build_dir=tmp_path / "builds",
        )
    )
    (trt2,) = [e for e in again.manifest["exports"] if e["format"] == "trt"]
    assert not trt2["reused"] and served.read_bytes() == b"\x00another engine"


def test_the_cli_takes_plans_back_by_precision(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p16.plan").write_bytes(b"x")
    flags = [
        "build",
        "--model",
        "tiny",
        "--serving",
        "native",
        "--instance-kind",
        "gpu",
        "--server-gpu",
        "--instance-counts",
        "1",
        "--dynamic-batching",
        "off",
        "--max-batch-sizes",
        "8",
        "--format",
        "trt",
    ]
    res = CliRunner().invoke(cli, [*flags, "--precision", "fp16,bf16", "--plan", "p16.plan"])
    assert res.exit_code == 2 and "say which precision it is" in res.output
    res = CliRunner().invoke(cli, [*flags, "--plan", "fp16=p16.plan", "--print-trtexec"])
    assert res.exit_code == 2 and "pass one" in res.output
    if missing_requirements():
        res = CliRunner().invoke(cli, [*flags, "--plan", "fp16=p16.plan"])
        assert res.exit_code == 0, res.output
        manifest = json.loads((tmp_path / "builds" / "tiny" / "manifest.json").read_text())
        assert [(e["format"], e["precision"], e["status"]) for e in manifest["exports"] if e["format"] == "trt"] == [
            ("trt", "fp16", "not_verified_device")
        ]
        assert (tmp_path / "model_repository" / "tiny_trt-fp16_gpu1_nodb_mbs8" / "1" / "model.plan").read_bytes() == b"x"


def test_a_missing_or_empty_plan_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="does not exist or is empty"):
        import_plan(tmp_path / "nope.plan", TINY, tmp_path / "out")
    (tmp_path / "empty.plan").write_bytes(b"")
    with pytest.raises(ExportError, match="does not exist or is empty") as e:
        import_plan(tmp_path / "empty.plan", TINY, tmp_path / "out")
    assert "--print-trtexec" in e.value.hint


@pytest.mark.slow  # real export on a GPU host (TensorRT/ONNX/TorchScript)
@pytest.mark.gpu
@pytest.mark.skipif(bool(missing_requirements()), reason="needs TensorRT and an NVIDIA GPU: " + "; ".join(missing_requirements()))
def test_a_plan_built_by_the_printed_command_verifies_on_a_gpu_host(tmp_path: Path) -> None:
    from builders.export.tensorrt import export_tensorrt

    built = build(BuildOptions("tiny", formats=("onnx",), grid=GPU_GRID, repository=tmp_path / "r0", build_dir=tmp_path / "b0"))
    plan = export_tensorrt(built.manifest_path.parent / "model.onnx", TINY, tmp_path / "elsewhere", "fp32", 8)
    result = build(
        BuildOptions(
            "tiny",
            formats=("trt",),
            grid=GPU_GRID,
            serving="native",
            plans={"fp32": plan.path},
            repository=tmp_path / "repo",
            build_dir=tmp_path / "builds",
        )
    )
    (trt,) = [e for e in result.manifest["exports"] if e["format"] == "trt"]
    assert trt["status"] == "ok" and trt["extra"]["profile_read"] is True
