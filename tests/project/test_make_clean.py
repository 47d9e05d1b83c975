"""``make clean`` deletes what builds made and keeps a user's sweep results; ``make clean-results``
deletes those; the README says so (a new user's sweep results were deleted without a word)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _tree(tmp_path: Path) -> Path:
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    for d in ("builds/mlp", "results/run-1", "model_repository/mlp_onnx_cpu1_nodb_mbs64"):
        (tmp_path / d).mkdir(parents=True)
    (tmp_path / "results/run-1/results.json").write_text("{}")
    (tmp_path / "model_repository/index.json").write_text("{}")
    (tmp_path / "model_repository/README.md").write_text("kept")
    return tmp_path


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_clean_keeps_results_and_clean_results_deletes_them(tmp_path: Path):
    tree = _tree(tmp_path)
    subprocess.run(["make", "-s", "clean"], cwd=tree, check=True, capture_output=True)
    assert not (tree / "builds").exists() and not (tree / "model_repository/index.json").exists()
    assert not (tree / "model_repository/mlp_onnx_cpu1_nodb_mbs64").exists()
    assert (tree / "results/run-1/results.json").is_file(), "make clean deleted the user's sweep results"
    assert (tree / "model_repository/README.md").is_file()
    subprocess.run(["make", "-s", "clean-results"], cwd=tree, check=True, capture_output=True)
    assert not (tree / "results").exists()


def test_readme_says_what_make_clean_deletes():
    text = " ".join((ROOT / "README.md").read_text().split())
    assert "`make clean` deletes what builds made" in text and "keeps your sweep results in `results/`" in text
    assert "`make clean-results` deletes those" in text
