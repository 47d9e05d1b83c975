"""The layout stays readable: small modules, folders a newcomer can scan.

The house rules (issue 23, "Smaller units"): no module of the library packages (core,
builders, clients, perf) is over 400 lines, and no package folder holds more than 20 modules
directly (``__init__.py`` not counted): a folder that grows past that is split by capability.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("core", "builders", "clients", "perf")
MAX_MODULE_LINES = 400
MAX_MODULES_PER_FOLDER = 20


def _modules() -> list[Path]:
    """Every Python module of the library packages, sorted."""
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py") if "__pycache__" not in p.parts)


def _package_folders() -> list[Path]:
    """Every folder of the library packages that holds Python modules, sorted."""
    return sorted({p.parent for p in _modules()})


def test_the_library_is_found() -> None:
    """The checks below look at real files (a wrong root would pass them vacuously)."""
    modules = _modules()
    assert len(modules) > 50 and (ROOT / "builders" / "build.py") in modules


def test_no_module_is_over_400_lines() -> None:
    lines = {p: len(p.read_text().splitlines()) for p in _modules()}
    over = {str(p.relative_to(ROOT)): n for p, n in lines.items() if n > MAX_MODULE_LINES}
    assert not over, (
        f"modules over {MAX_MODULE_LINES} lines (split each into modules named for what they hold, "
        f"in the same subpackage): {', '.join(f'{m} ({n})' for m, n in sorted(over.items(), key=lambda kv: -kv[1]))}"
    )


def test_no_package_folder_holds_more_than_20_modules() -> None:
    counts = {d: sum(1 for p in d.glob("*.py") if p.name != "__init__.py") for d in _package_folders()}
    crowded = {str(d.relative_to(ROOT)): n for d, n in counts.items() if n > MAX_MODULES_PER_FOLDER}
    assert not crowded, (
        f"package folders with more than {MAX_MODULES_PER_FOLDER} modules (split them by capability into "
        f"subpackages): {', '.join(f'{d}/ ({n})' for d, n in sorted(crowded.items()))}"
    )
