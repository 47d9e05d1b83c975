"""A wrapper script's usage lines and errors name the script the user typed, never the module it
runs (trial 8 F16: `scripts/launch_tritonserver.sh --runtime bundle` said "Try 'python -m
clients.cli.launch --help'"). perf/run_sweep.sh already named itself (perf.cli.main.sweep_script:
an entry point with click's prog_name); every wrapper in scripts/ and perf/ does the same."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WRAPPERS = sorted([*ROOT.glob("scripts/*.sh"), *ROOT.glob("perf/*.sh")])


def test_no_wrapper_hands_its_arguments_to_a_module_run_by_name():
    """``python -m pkg.mod "$@"`` makes click/argparse name ``python -m pkg.mod`` in usage lines."""
    offenders = [
        f"{p.relative_to(ROOT)}: {line.strip()}"
        for p in WRAPPERS
        for line in p.read_text().splitlines()
        if re.match(r"\s*(\w+=\S+\s+)*exec\s.*\s-m\s+[\w.]+", line)  # the script's arguments go on to a module
    ]
    assert offenders == []


@pytest.mark.parametrize("script", ["scripts/launch_tritonserver.sh", "perf/run_sweep.sh"])
def test_a_wrapper_s_usage_error_names_the_script(script):
    res = subprocess.run([str(ROOT / script), "--runtime", "bundle"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert res.returncode == 2, res.stderr
    assert res.stderr.startswith(f"Usage: {script} [OPTIONS]") and f"Try '{script} --help' for help." in res.stderr
    assert "python -m" not in res.stderr and "clients.cli" not in res.stderr


def test_gpu_check_s_usage_errors_name_the_script(monkeypatch, capsys):
    """scripts/gpu_check.sh passes its other options to gpu_check.py run (GPU_CHECK_SCRIPT names the script)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import gpu_check
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    assert "GPU_CHECK_SCRIPT=scripts/gpu_check.sh" in (ROOT / "scripts/gpu_check.sh").read_text()
    monkeypatch.setenv("GPU_CHECK_SCRIPT", "scripts/gpu_check.sh")
    for argv in (["run", "--no-such-flag"], ["run", "--kind", "tpu"]):
        with pytest.raises(SystemExit) as e:
            gpu_check.main(argv)
        err = capsys.readouterr().err
        assert e.value.code == 2 and err.startswith("usage: scripts/gpu_check.sh ") and "gpu_check.py" not in err


def _console_scripts() -> dict[str, str]:
    """``[project.scripts]`` of pyproject.toml: the command a user types -> the module its ``main`` lives in."""
    import tomllib

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    return {name: target.split(":")[0] for name, target in scripts.items()}


def _usage_error(argv: list[str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)


@pytest.mark.parametrize(
    "module, sub, prog",
    [
        *((module, [], name) for name, module in _console_scripts().items()),
        ("perf", [], "triton-perf"),
        ("builders.cli.main", ["build"], "builders build"),  # make demo's build: DEMO_BUILD_FLAGS='--rtl x'
        ("clients.cli.main", ["check"], "clients check"),
        ("perf.cli.main", ["report"], "triton-perf report"),
        ("clients.cli.launch", [], "scripts/launch_tritonserver.sh"),
    ],
)
def test_a_command_run_as_a_module_names_the_command_a_user_types(module, sub, prog):
    """``make demo`` runs ``$PY -m builders.cli.main build``: a refused flag said ``Usage: python -m
    builders.cli.main build`` (re-check 18, NEW-6); a user types ``builders build``."""
    res = _usage_error([sys.executable, "-m", module, *sub, "--rtl", "x"])
    assert res.returncode == 2, res.stderr
    assert res.stderr.startswith(f"Usage: {prog} [OPTIONS]") and f"Try '{prog} " in res.stderr, res.stderr
    assert "python -m" not in res.stderr and f" {module} " not in res.stderr, res.stderr


def test_every_console_script_is_a_module_s_main():
    """The names above come from pyproject.toml: each script's target is ``main`` of a module run above."""
    assert _console_scripts() == {"builders": "builders.cli.main", "clients": "clients.cli.main", "triton-perf": "perf.cli.main"}
