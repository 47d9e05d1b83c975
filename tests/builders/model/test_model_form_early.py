"""Trial 21, T21-11: `builders build --model detector.py` (no :factory) was refused after 21 s, the torch
import, though the check reads only the file's text. Every --model form check now runs before torch is
imported: the refusal exits 2 and leaves torch out of sys.modules (a fresh interpreter each case)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from builders.build_options import BuildOptions
from core.errors import ModelSpecError

ROOT = Path(__file__).resolve().parents[3]
PROBE = """
import json, sys
from builders.cli.main import main
try:
    main()
except SystemExit as e:
    print(json.dumps({"code": e.code, "torch": "torch" in sys.modules}))
"""


@pytest.fixture()
def detector(tmp_path: Path) -> Path:
    (tmp_path / "models").mkdir()
    for where in (tmp_path, tmp_path / "models"):
        (where / "detector.py").write_text("import torch\n\n\ndef detector():\n    return torch.nn.Linear(2, 2)\n")
    return tmp_path


@pytest.mark.parametrize(
    "source, words",
    [
        ("detector.py", "is a Python file without the factory to call in it"),
        ("models/", "is a folder (its Python files: detector.py) without the factory"),
        ("detector", "names ./detector.py without the factory"),
        ("nosuch.py:make", "nosuch.py does not exist"),
        ("models/notpy.txt:make", "does not exist"),
        ("detector.py:", "is not path/to/file.py:factory or package.module:factory"),
        ("weights/detector.pt", "model file weights/detector.pt does not exist"),
    ],
)
def test_a_wrong_model_form_is_refused_before_torch_is_imported(detector: Path, source: str, words: str) -> None:
    args = ["build", "--model", source, "--input", "x:float32:2", "--build-dir", "b", "-r", "r"]
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(detector)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], cwd=detector, env=env, capture_output=True, text=True, timeout=120
    )
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said == {"code": 2, "torch": False}, done.stderr
    assert words in " ".join(done.stderr.split())
    assert not (detector / "b").exists() and not (detector / "r").exists()


def test_the_python_api_refuses_it_when_the_options_are_made(detector: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(detector)
    with pytest.raises(ModelSpecError, match="is a Python file without the factory"):
        BuildOptions(model="detector.py")
    assert BuildOptions(model="detector.py:detector").model == "detector.py:detector"  # imported later, by the build
