"""Every error the toolkit raises to a user says what to do: a ``ToolkitError`` (``ClientError``,
``ServerError``, ``ModelSpecError``, ``PerfError``...) built in ``builders/``, ``clients/``, ``perf/``
or ``core/`` carries ``hint=`` (trial 9, F12: inputs that disagreed on the batch size were the one
error of their family with no ``->`` line; 47 such errors across the packages). Read from the
source, so an error added later without one fails here."""

from __future__ import annotations

import ast
from pathlib import Path

import core.errors

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("builders", "clients", "perf", "core")
ERRORS = {n for n, c in vars(core.errors).items() if isinstance(c, type) and issubclass(c, core.errors.ToolkitError)}


def _without_hint(path: Path, errors: set[str]) -> list[str]:
    src = path.read_text()
    out = []
    for node in ast.walk(ast.parse(src)):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
        keywords = {k.arg for k in node.keywords}
        if name in errors and "hint" not in keywords and None not in keywords and len(node.args) < 2:
            out.append(f"{path.relative_to(ROOT)}:{node.lineno}: {(ast.get_source_segment(src, node) or '')[:80]}")
    return out


def _subclasses(paths: list[Path], known: set[str]) -> set[str]:
    """``known`` and every class the packages derive from one of them (``UnknownAxisError``)."""
    classes = [n for p in paths for n in ast.walk(ast.parse(p.read_text())) if isinstance(n, ast.ClassDef)]
    while True:
        more = {c.name for c in classes if any(isinstance(b, ast.Name) and b.id in known for b in c.bases)} - known
        if not more:
            return known
        known = known | more


def _hinted_by_class(paths: list[Path], errors: set[str]) -> set[str]:
    """The error classes whose own ``__init__`` gives ``super().__init__`` a ``hint=`` of its own words, not a
    parameter passed on (``NotNameDims``): every instance carries one, so a call with no ``hint=`` is not missing it."""
    out = set()
    for p in paths:
        for c in ast.walk(ast.parse(p.read_text())):
            if not (isinstance(c, ast.ClassDef) and c.name in errors):
                continue
            inits = [f for f in c.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"]
            calls = [
                n for f in inits for n in ast.walk(f) if isinstance(n, ast.Call) and getattr(n.func, "attr", None) == "__init__"
            ]
            if any(k.arg == "hint" and not isinstance(k.value, ast.Name) for n in calls for k in n.keywords):  # its own words
                out.add(c.name)
    return out


def test_every_error_raised_in_the_packages_carries_a_hint() -> None:
    assert ERRORS >= {"ClientError", "ServerError", "ToolkitError", "ModelSpecError", "PerfError", "ConfigError"}
    paths = sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))
    assert len(paths) > 100  # the packages were found
    errors = _subclasses(paths, ERRORS)
    assert "UnknownAxisError" in errors
    errors -= _hinted_by_class(paths, errors)
    missing = [line for path in paths for line in _without_hint(path, errors)]
    assert not missing, "errors without hint= (say what to do):\n" + "\n".join(missing)
