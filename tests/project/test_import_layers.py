"""The import layering in pyproject's ``[tool.importlinter]`` holds, checked by ``lint-imports``.

core < builders < clients < perf (a package imports only the ones below it), and no import
cycle among the modules of any package, imports inside functions included.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # lint-imports runs (seconds each): `make test`, not `make test-unit`

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("core", "builders", "clients", "perf")


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` over the packages under ``root`` with ``root``'s pyproject.toml."""
    exe = Path(sys.executable).with_name("lint-imports")
    command = [str(exe) if exe.is_file() else shutil.which("lint-imports") or "lint-imports", "--no-cache"]
    env = {**os.environ, "PYTHONPATH": str(root)}  # ahead of the editable install's finder
    return subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=120)


def test_the_import_layering_holds() -> None:
    result = lint_imports(ROOT)
    print(result.stdout, result.stderr)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    "module, line, contract",
    [
        ("builders/model/spec.py", "from builders import build", "no import cycles among the modules of each package"),
        ("core/errors.py", "import builders.model.spec", "core < builders < clients < perf"),
        ("builders/model/spec.py", "from clients import infer", "core < builders < clients < perf"),
        ("perf/analysis/stats/points.py", "from perf import report", "no import cycles among the modules of each package"),
    ],
)
def test_a_cycle_or_an_upward_import_breaks_the_check(tmp_path: Path, module: str, line: str, contract: str) -> None:
    """The same check on a copy of the packages with one bad import added inside a function."""
    for pkg in PACKAGES:
        shutil.copytree(ROOT / pkg, tmp_path / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    with open(tmp_path / module, "a") as f:
        f.write(f"\n\ndef _injected() -> None:\n    {line}  # noqa\n")
    result = lint_imports(tmp_path)
    print(result.stdout, result.stderr)
    assert result.returncode == 1
    assert f"{contract} BROKEN" in result.stdout
