"""Lint and types are part of the test suite: ruff (lint and format) and mypy over the
project's code, with the settings in pyproject.toml (``[tool.ruff]``, ``[tool.mypy]``).

A failure prints the tool's own output: fix the code, or run ``.venv/bin/ruff format .`` /
``.venv/bin/ruff check --fix .`` for what ruff can fix itself.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # ruff and mypy runs: `make test`, not `make test-unit`

ROOT = Path(__file__).resolve().parents[2]


def _tool(name: str) -> str:
    exe = Path(sys.executable).with_name(name)
    found = str(exe) if exe.is_file() else shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: run `make setup` (it installs the dev extra, which has {name})")
    return found


def _run(*command: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    print(result.stdout[-20000:], result.stderr[-5000:])
    return result


def test_ruff_lint_is_clean() -> None:
    result = _run(_tool("ruff"), "check", ".")
    assert result.returncode == 0, result.stdout[-5000:]


def test_ruff_format_is_clean() -> None:
    result = _run(_tool("ruff"), "format", "--check", ".")
    assert result.returncode == 0, result.stdout[-5000:]


@pytest.mark.timeout(600)  # mypy takes ~40 s without a cache
def test_mypy_is_clean() -> None:
    result = _run(_tool("mypy"), timeout=600)
    assert result.returncode == 0, result.stdout[-5000:]
