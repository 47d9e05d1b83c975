"""``builders validate --target-triton`` finds a plan's TensorRT version where its build
recorded it (issue 26): the export's record in the manifest the index names, an imported plan
named as such, and each missing link of index -> build folder -> manifest -> export named."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from builders.build import BuildOptions, build
from builders.cli.main import cli
from builders.config.variants import VariantGrid
from builders.repository.validate import validate
from builders.serving.tensorrt_env import missing_requirements
from builders.triton.releases import release

GPU_GRID = VariantGrid(kinds=("gpu",), counts=(1,), queue_delays_us=(None,), max_batch_sizes=(8,), server_gpu=True)
VARIANT = "tiny_trt_gpu1_nodb_mbs8"

#: On a host with TensorRT and a GPU an imported plan is deserialized (a fake one is refused) and its version read.
needs_no_tensorrt = pytest.mark.skipif(
    not missing_requirements(), reason="this host runs TensorRT plans: an imported plan is deserialized and its version read"
)


@pytest.fixture(scope="module")
def built_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository whose one variant serves a plan imported with --plan (not deserialized here)."""
    root = tmp_path_factory.mktemp("imported")
    plan = root / "built_elsewhere.plan"
    plan.write_bytes(b"\x00serialized engine bytes")
    build(
        BuildOptions(
            "tiny",
            formats=("trt",),
            grid=GPU_GRID,
            serving="native",
            plans={"fp32": plan},
            repository=root / "repo",
            build_dir=root / "builds",
        )
    )
    return root


@pytest.fixture
def imported(built_once: Path, tmp_path: Path) -> Path:
    """A copy of :func:`built_once` of this test's own, its index pointing at its own build folder."""
    for part in ("repo", "builds"):
        shutil.copytree(built_once / part, tmp_path / part)
    index = tmp_path / "repo" / "index.json"
    index.write_text(index.read_text().replace(str(built_once), str(tmp_path)))
    return tmp_path


def _tensorrt_rows(tmp_path: Path) -> tuple[list[str], list[str]]:
    result = validate(tmp_path / "repo", check_artifacts=False, target=release("24.10"))
    pick = [p.problem for p in result.problems if p.field.startswith("TensorRT version")]
    skip = [p.problem + " | " + p.fix for p in result.skipped if p.field.startswith("TensorRT version")]
    return pick, skip


@needs_no_tensorrt
def test_an_imported_plan_is_named_as_imported_not_as_a_missing_manifest(imported: Path) -> None:
    problems, skipped = _tensorrt_rows(imported)
    assert problems == [] and len(skipped) == 1
    assert "names no build manifest" not in skipped[0]
    assert "imported with --plan" in skipped[0] and "built_elsewhere.plan" in skipped[0]
    assert "--print-trtexec --target-triton 24.10" in skipped[0]


def _edit_manifest(tmp_path: Path, edit) -> None:
    path = tmp_path / "builds" / "tiny" / "manifest.json"
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))


@needs_no_tensorrt
def test_the_version_the_export_recorded_is_compared(imported: Path) -> None:
    def record(data: dict) -> None:
        (trt,) = [e for e in data["exports"] if e["format"] == "trt"]
        trt["extra"]["tensorrt_version"] = "10.3.0.26"

    _edit_manifest(imported, record)
    problems, skipped = _tensorrt_rows(imported)
    assert skipped == [] and len(problems) == 1
    assert "built with TensorRT 10.3.0.26" in problems[0] and "10.5.0.18" in problems[0]


@needs_no_tensorrt
def test_each_missing_link_is_named(imported: Path) -> None:
    _edit_manifest(imported, lambda data: data.update(exports=[]))
    (why,) = _tensorrt_rows(imported)[1]
    assert "has no record of the trt fp32 export" in why
    (imported / "builds" / "tiny" / "manifest.json").unlink()
    (why,) = _tensorrt_rows(imported)[1]
    assert "holds no manifest.json" in why
    index = imported / "repo" / "index.json"
    data = json.loads(index.read_text())
    data["variants"][0]["build"] = None
    index.write_text(json.dumps(data))
    (why,) = _tensorrt_rows(imported)[1]
    assert "names no build folder" in why
    index.unlink()
    (why,) = _tensorrt_rows(imported)[1]
    assert f"{VARIANT} is not listed in" in why


@pytest.mark.slow  # a real ONNX export
def test_a_python_served_onnx_is_not_checked_against_the_release_and_says_which_serving_is(tmp_path: Path) -> None:
    grid = VariantGrid(counts=(1,), queue_delays_us=(None,), max_batch_sizes=(4,))
    build(BuildOptions("tiny", formats=("onnx",), grid=grid, repository=tmp_path / "repo", build_dir=tmp_path / "b"))
    result = validate(tmp_path / "repo", target=release("24.05"))
    (row,) = [s for s in result.skipped if s.field.startswith("ONNX limits")]
    assert "python backend" in row.problem and "--serving native" in row.problem and "--serving native" in row.fix
    res = CliRunner().invoke(cli, ["validate", "-h"])
    assert "--serving native" in " ".join(res.output.split())  # -h says which repositories the release checks apply to
