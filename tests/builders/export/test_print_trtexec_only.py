"""``builders build --format trt --print-trtexec`` asks for the commands that build the plans on a GPU host: with the
model's verified fp32 ONNX export already in the build folder it prints them from it and builds nothing (issue 26, K1:
it ran a whole build with the default grid, which removed the repository's variants three runs had measured)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def _build(tmp_path: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "builders.cli.main", "build", "--model", "tiny", *flags]
    cmd += ["--build-dir", str(tmp_path / "builds"), "--repository", str(tmp_path / "repo")]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "250"}
    return subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)


def _tree(repo: Path) -> dict[str, float]:
    return {str(p.relative_to(repo)): p.stat().st_mtime_ns for p in sorted(repo.rglob("*"))}


@pytest.mark.slow  # two real `builders build` processes (torch, an ONNX export and its verification)
def test_print_trtexec_prints_from_the_recorded_onnx_and_leaves_the_repository_alone(tmp_path: Path) -> None:
    grid = ["--max-batch-sizes", "8", "--instance-counts", "1", "--dynamic-batching", "off"]
    first = _build(tmp_path, "--format", "onnx", *grid)
    assert first.returncode == 0, first.stdout + first.stderr
    repo, folder = tmp_path / "repo", tmp_path / "builds" / "tiny"
    before, manifest = _tree(repo), (folder / "manifest.json").read_bytes()
    assert "tiny_onnx_cpu1_nodb_mbs8" in before

    res = _build(tmp_path, "--format", "trt", "--print-trtexec")  # the default grid: max batch sizes up to 64
    out = " ".join(res.stdout.split())
    assert res.returncode == 0, res.stdout + res.stderr
    assert (
        f"--print-trtexec: the plans are built from the verified fp32 ONNX export {folder / 'manifest.json'} records; "
        "nothing is built and the repository is left as it is"
    ) in out
    assert "--maxShapes=INPUT__0:8x16" in out and "the plans take batches up to 8 (the ONNX export's max batch size)" in out
    assert "--plan=fp32=" in out and "exporting" not in res.stdout + res.stderr
    assert _tree(repo) == before and (folder / "manifest.json").read_bytes() == manifest  # nothing replaced or removed

    other = _build(tmp_path, "--format", "trt", "--print-trtexec", "--max-batch-sizes", "16", "--instance-counts", "1")
    said = " ".join((other.stdout + other.stderr).split())  # a typed max batch size the export was not made for
    assert other.returncode == 2, said  # neither ignored nor a build in its place (re-check 19: that removed variants)
    assert "--max-batch-sizes asks for plans of max batch size 16" in said and "verified for max batch size 8" in said
    assert "docker" not in said and "exporting" not in said
    assert _tree(repo) == before and (folder / "manifest.json").read_bytes() == manifest


@pytest.mark.slow
def test_print_trtexec_without_an_onnx_export_says_it_builds_one_first(tmp_path: Path) -> None:
    res = _build(tmp_path, "--format", "trt", "--print-trtexec", "--max-batch-sizes", "4", "--instance-counts", "1")
    out = res.stdout + res.stderr
    assert res.returncode == 0, out
    said = " ".join(res.stdout.split())
    first = f"--print-trtexec: {tmp_path / 'builds' / 'tiny'} holds no build, so the fp32 ONNX export the plans are built"
    assert first in said and f"a build, whose variants are written to {tmp_path / 'repo'}" in said
    assert out.index("--print-trtexec: ") < out.index("onnx fp32: exporting")  # said before the build starts
    assert "--maxShapes=INPUT__0:4x16" in said


@pytest.mark.slow  # four real `builders build` processes
def test_print_trtexec_reads_force_and_opset_and_refuses_replace(tmp_path: Path) -> None:
    """s19 (the kind above): on the recorded export --force was ignored (no export again), --opset 17 printed plans
    from the opset 18 export, and --replace and the grid's flags (nothing is built or written) were accepted; each is
    read or refused now."""
    grid = ["--max-batch-sizes", "8", "--instance-counts", "1", "--dynamic-batching", "off"]
    first = _build(tmp_path, "--format", "onnx", *grid)
    assert first.returncode == 0, first.stdout + first.stderr
    repo, folder = tmp_path / "repo", tmp_path / "builds" / "tiny"
    before, manifest = _tree(repo), (folder / "manifest.json").read_bytes()

    replace = _build(tmp_path, "--format", "trt", "--print-trtexec", "--replace", "--instance-counts", "2", "--no-server-gpu")
    said = " ".join((replace.stdout + replace.stderr).split())
    assert replace.returncode == 2, said
    assert (
        "--replace and --instance-counts and --no-server-gpu would be ignored: --print-trtexec prints the plans' commands "
        "from the recorded ONNX export, and builds, verifies and writes nothing"
    ) in said
    assert "give them to the printed --plan command" in said and "docker" not in said

    opset = _build(tmp_path, "--format", "trt", "--print-trtexec", "--opset", "17")
    said = " ".join((opset.stdout + opset.stderr).split())
    assert opset.returncode == 2, said
    assert "--opset 17 asks for plans built from an ONNX export of opset 17" in said and "is opset 18" in said
    assert "docker" not in said and "exporting" not in said
    assert _tree(repo) == before and (folder / "manifest.json").read_bytes() == manifest

    force = _build(tmp_path, "--format", "trt", "--print-trtexec", "--force", *grid)
    said = " ".join(force.stdout.split())
    assert force.returncode == 0, force.stdout + force.stderr
    assert "--print-trtexec: --force exports the model again, so the fp32 ONNX export the plans are built from" in said
    assert "onnx fp32: exporting" in force.stdout + force.stderr and "--plan=fp32=" in said
