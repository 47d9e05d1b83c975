"""Each console script's ``--help`` (and each subcommand's) imports none of the heavy libraries.

``builders -h`` or ``triton-perf sweep -h`` on a laptop without a GPU answers at once: torch,
ONNX, ONNX Runtime, TensorRT and matplotlib are imported inside the functions that use them, not
at the top of a CLI module (tritonclient's protobuf module for configs is fine). Each script runs
in a fresh interpreter: its module is imported, then the entry point is called with ``--help``
for the script and for every subcommand click lists, and the heavy modules in ``sys.modules``
are read after each.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "onnx", "onnxruntime", "tensorrt", "matplotlib")


def _console_scripts() -> dict[str, str]:
    """``[project.scripts]`` of pyproject.toml: script name -> ``module:function``."""
    text = (ROOT / "pyproject.toml").read_text()
    section = re.search(r"^\[project\.scripts\]\n(.*?)(?=^\[|\Z)", text, re.S | re.M)
    assert section, "pyproject.toml has no [project.scripts]"
    return dict(re.findall(r'^([\w-]+)\s*=\s*"([\w.]+:\w+)"', section.group(1), re.M))


#: what is run -> (``module:function``, program name)
ENTRY_POINTS = {name: (target, name) for name, target in _console_scripts().items()}
ENTRY_POINTS["python -m clients.cli.launch"] = ("clients.cli.launch:main", "launch_tritonserver")

# Runs in a fresh interpreter: argv = module, function, program name, heavy module names (comma-separated).
PROBE = r"""
import contextlib, importlib, io, json, sys
import click

module, function, prog, heavy = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(",")
entry = getattr(importlib.import_module(module), function)
roots = []
click_main = click.Command.main


def spy(self, *args, **kwargs):  # the first command whose main runs is the script's root command
    roots.append(self)
    return click_main(self, *args, **kwargs)


click.Command.main = spy
seen, rows = set(), []


def help_of(words):
    sys.argv = [prog, *words, "--help"]
    out = io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            entry()
        except SystemExit as e:
            code = e.code or 0
    now = {m for m in heavy if m in sys.modules}
    rows.append({"command": " ".join([prog, *words]), "exit_code": code, "chars": len(out.getvalue()), "imported": sorted(now - seen)})
    seen.update(now)


def walk(command, words):
    help_of(words)
    if isinstance(command, click.Group):
        for name in sorted(command.commands):
            walk(command.commands[name], [*words, name])


help_of([])  # the module's import and the script's own help
root = roots[0]
if isinstance(root, click.Group):
    for name in sorted(root.commands):
        walk(root.commands[name], [name])
print(json.dumps(rows))
"""


def help_imports(entry_point: str, prog: str, path: tuple[Path, ...] = (ROOT,)) -> list[dict]:
    """One row per ``--help`` run of ``entry_point`` (``module:function``, importable from
    ``path``): command, exit code, length of the help text, heavy modules it imported first."""
    module, function = entry_point.split(":")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*map(str, path), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run(
        [sys.executable, "-c", PROBE, module, function, prog, ",".join(HEAVY)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_help_imports_no_torch_onnx_tensorrt_or_matplotlib(name: str) -> None:
    rows = help_imports(*ENTRY_POINTS[name])
    if not name.startswith("python -m"):  # the three scripts are groups
        assert len(rows) > 1, f"{name}: no subcommand found: {rows}"
    for row in rows:
        assert row["exit_code"] == 0 and row["chars"] > 100, row
        assert not row["imported"], (
            f"`{row['command']} --help` imports {', '.join(row['imported'])}: import it inside the function that uses it"
        )


def test_the_probe_sees_a_top_level_heavy_import(tmp_path: Path) -> None:
    """The same check on a CLI module that imports torch at its top fails, naming torch."""
    (tmp_path / "heavy_cli.py").write_text("import click\nimport torch\n\n\n@click.command()\ndef main():\n    'A command.'\n")
    rows = help_imports("heavy_cli:main", "heavy", path=(tmp_path, ROOT))
    assert [(r["command"], r["exit_code"], r["imported"]) for r in rows] == [("heavy", 0, ["torch"])]
