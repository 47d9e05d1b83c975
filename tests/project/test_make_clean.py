"""``make clean`` deletes what builds made and keeps a user's sweep results; ``make clean-results``
deletes those; the README says so (a new user's sweep results were deleted without a word)."""

from __future__ import annotations

import json
import os
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


def _make(tree: Path, target: str) -> str:
    """``make -s TARGET`` in ``tree`` (a copy of the Makefile), with this checkout's code and venv."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    res = subprocess.run(
        ["make", "-s", target, f"VENV={ROOT / '.venv'}"], cwd=tree, check=True, capture_output=True, text=True, env=env
    )
    return res.stdout


def _index(tree: Path, *names: str) -> None:
    (tree / "model_repository/index.json").write_text(json.dumps({"schema": 2, "variants": [{"name": n} for n in names]}))


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_clean_keeps_results_and_clean_results_deletes_them(tmp_path: Path):
    tree = _tree(tmp_path)
    _index(tree, "mlp_onnx_cpu1_nodb_mbs64")
    _make(tree, "clean")
    assert not (tree / "builds").exists() and not (tree / "model_repository/index.json").exists()
    assert not (tree / "model_repository/mlp_onnx_cpu1_nodb_mbs64").exists()
    assert (tree / "results/run-1/results.json").is_file(), "make clean deleted the user's sweep results"
    assert (tree / "model_repository/README.md").is_file()
    _make(tree, "clean-results")
    assert not (tree / "results").exists()


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_clean_keeps_a_hand_written_model_folder_and_names_it(tmp_path: Path):
    """Trial 8 F14: `make clean` deleted every folder in model_repository/, a hand-written model too."""
    tree = _tree(tmp_path)
    _index(tree, "mlp_onnx_cpu1_nodb_mbs64", "../results")  # a name that is not a plain folder is never followed
    mine = tree / "model_repository/my_handwritten"
    (mine / "1").mkdir(parents=True)
    (mine / "config.pbtxt").write_text('name: "my_handwritten"\nbackend: "python"\nmax_batch_size: 0\n')
    (mine / "1/model.py").write_text("# my model\n")
    out = _make(tree, "clean")
    assert (mine / "1/model.py").read_text() == "# my model\n", "make clean deleted a folder no build made"
    assert not (tree / "model_repository/mlp_onnx_cpu1_nodb_mbs64").exists() and not (tree / "builds").exists()
    assert not (tree / "model_repository/index.json").exists() and (tree / "results/run-1/results.json").is_file()
    assert "kept (no build listed them in model_repository/index.json): model_repository/my_handwritten/" in out
    assert "model_repository/mlp_onnx_cpu1_nodb_mbs64/" in out.split("\n")[0]
    assert _make(tree, "clean").startswith("nothing a build made is left to delete")  # twice: nothing more goes


def test_an_unreadable_index_deletes_no_model_folder(tmp_path: Path):
    from builders.repository.clean import clean

    tree = _tree(tmp_path)
    (tree / "model_repository/index.json").write_text("{not json")
    done = clean(tree)
    assert (tree / "model_repository/mlp_onnx_cpu1_nodb_mbs64").is_dir() and (tree / "model_repository/index.json").is_file()
    assert done.deleted == ["builds/"] and "cannot be read" in (done.note or "")


def test_readme_says_what_make_clean_deletes():
    text = " ".join((ROOT / "README.md").read_text().split())
    assert "`make clean` deletes what builds made" in text and "keeps your sweep results in `results/`" in text
    assert "the variant folders `model_repository/index.json` lists" in text and "is kept and named" in text
    makefile = (ROOT / "Makefile").read_text()
    assert (
        "the variant folders model_repository/index.json lists" in makefile
        and "rm -rf builds model_repository/*/" not in makefile
    )
    assert "`make clean-results` deletes those" in text


@pytest.mark.parametrize("index", ['{"variants": ["a"]}', '{"variants": null}', '["a"]', '{"variants": [{"name": 3}]}'])
def test_an_index_of_another_form_deletes_no_model_folder_and_says_so(tmp_path: Path, index: str):
    """The reviewer's case: {"variants": ["a"]} crashed clean with an AttributeError after builds/ was gone."""
    from builders.repository.clean import clean

    (tmp_path / "builds").mkdir()
    (tmp_path / "model_repository" / "a" / "1").mkdir(parents=True)
    (tmp_path / "model_repository" / "index.json").write_text(index)
    done = clean(tmp_path)
    assert (tmp_path / "model_repository" / "a" / "1").is_dir() and (tmp_path / "model_repository" / "index.json").is_file()
    assert done.note and "cannot be read" in done.note and "no model folder deleted" in done.note


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_clean_deletes_nothing_while_a_build_is_at_work(tmp_path: Path):
    """Trial 17, T17-9: a build at work holds ``builds/<model>/.build.lock``; ``make clean`` then would
    delete its staged files under it: it deletes nothing, names the build's pid, and exits 1."""
    tree = _tree(tmp_path)
    _index(tree, "mlp_onnx_cpu1_nodb_mbs64")
    hold = (
        "import sys; from pathlib import Path; from builders.repository.build_lock import build_folder_lock\n"
        "with build_folder_lock(Path(sys.argv[1]), 'mlp'):\n    print('held', flush=True); sys.stdin.read()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    first = subprocess.Popen(
        [str(ROOT / ".venv/bin/python"), "-c", hold, str(tree / "builds/mlp")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert first.stdout is not None and first.stdout.readline().strip() == "held"
        res = subprocess.run(["make", "-s", "clean", f"VENV={ROOT / '.venv'}"], cwd=tree, capture_output=True, text=True, env=env)
        assert res.returncode != 0
        assert f"a build is at work in builds/mlp/ (pid {first.pid}): nothing deleted" in res.stdout
        assert (tree / "model_repository/index.json").is_file() and (tree / "model_repository/mlp_onnx_cpu1_nodb_mbs64").is_dir()
        assert (tree / "builds/mlp").is_dir()
    finally:
        first.communicate("")
    assert "deleted: builds/" in _make(tree, "clean")


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_clean_names_the_runs_that_measured_the_variants_it_deletes(tmp_path: Path):
    """Trial 24, T24-16: every line that removes a measured variant names the runs that measured it; ``make clean``'s
    said only ``deleted: ... model_repository/<variant>/``. It says what a build's removal line says."""
    tree = _tree(tmp_path)
    measured, other = "mlp_onnx_cpu1_nodb_mbs64", "mlp_ts_cpu1_nodb_mbs64"
    (tree / "model_repository" / other).mkdir()
    _index(tree, measured, other)
    run = {
        "run_id": "run-1",
        "settings": {"repository": str(tree / "model_repository")},
        "variants": [{"name": measured, "levels": [{"error": None, "throughput_infer_per_s": 10.0}]}],
    }
    (tree / "results/run-1/results.json").write_text(json.dumps(run))
    lines = _make(tree, "clean").splitlines()
    results = tree.resolve() / "results"
    assert (
        f"deleted model_repository/{measured}/: the run run-1 in {results} measured it: its export-deployment and --resume "
        "refuse it now"
    ) in lines, lines
    assert f"no run in {results} measured the other 1 variant deleted" in lines, lines
    assert not (tree / "model_repository" / measured).exists() and (tree / "results/run-1/results.json").is_file()
