"""``clients infer --shared-memory`` says only the toolkit's words (trial 12, F16): importing tritonclient's
shared-memory module imported setuptools' ``pkg_resources``, whose deprecation UserWarning was printed with
its source line; the import filters that one warning, and no other."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-W", "default", "-c", code], capture_output=True, text=True, env=env, timeout=120)


def test_the_shared_memory_module_imports_without_a_third_party_warning() -> None:
    res = _run("from clients.shared_memory import shared_memory_module; shared_memory_module()")
    assert res.returncode == 0, res.stderr
    assert "pkg_resources" not in res.stderr and "Warning" not in res.stderr, res.stderr


def test_the_filter_is_narrow_other_warnings_still_show() -> None:
    res = _run(
        "import warnings; from clients.shared_memory import shared_memory_module; shared_memory_module(); "
        "warnings.warn('pkg_resources is deprecated as an API', UserWarning); warnings.warn('another', UserWarning)"
    )
    assert res.returncode == 0, res.stderr
    assert "UserWarning: pkg_resources is deprecated" in res.stderr and "UserWarning: another" in res.stderr
