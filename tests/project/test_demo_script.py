"""``scripts/demo.sh`` run with a fake Python that records each command (no build, no server):
what ``DEMO_*`` passes (issue 26: ``DEMO_MODEL=kwspot.py:kwspot make demo`` failed at step 1
with "pass --spec", which make demo could not pass, and would have checked ``kwspot.py:kwspot_*``)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _demo(tmp_path: Path, **env: str) -> list[str]:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    log = tmp_path / "calls.txt"
    (venv / "bin" / "python").write_text(f'#!/bin/sh\necho "$*" >> {log}\n')
    (venv / "bin" / "python").chmod(0o755)
    subprocess.run(
        ["bash", str(ROOT / "scripts" / "demo.sh")],
        env={**os.environ, "VENV": str(venv), **env},
        check=True,
        capture_output=True,
        timeout=60,
    )
    return log.read_text().splitlines()


def test_a_factory_model_gets_its_spec_and_its_variants_are_named_after_the_factory(tmp_path: Path) -> None:
    build, check, sweep, *_ = _demo(tmp_path, DEMO_MODEL="kwspot.py:kwspot", DEMO_SPEC="spec.json")
    assert build.startswith("-m builders.cli.main build --model kwspot.py:kwspot --spec spec.json --format torchscript")
    assert check.endswith("--variant kwspot_*") and "--variants kwspot_* " in sweep


def test_the_default_demo_passes_no_spec(tmp_path: Path) -> None:
    build, check, sweep, *_ = _demo(tmp_path)
    assert "--spec" not in build and check.endswith("--variant mlp_*") and "--variants mlp_* " in sweep
