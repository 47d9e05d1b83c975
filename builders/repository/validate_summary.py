"""What ``builders validate`` says about a repository as a whole: which folders are its models
(:func:`model_folders`), paths as its tables show them (:func:`relative`) and its one-line
verdict (:func:`summary`)."""

from __future__ import annotations

import os
from pathlib import Path

from builders.triton.rules import Problem
from core.wording import count, of

CONFIG = "config.pbtxt"
#: Folders Triton's repository scan never treats as models or versions.
IGNORED = {"__pycache__"}


def model_folders(root: Path) -> list[Path]:
    """The model folders of repository ``root`` in name order (``[root]`` for one model folder,
    one that holds ``config.pbtxt``; ``[]`` when ``root`` is no folder)."""
    if (root / CONFIG).is_file():
        return [root]
    if not root.is_dir():
        return []
    return [d for d in sorted(root.iterdir()) if d.is_dir() and not d.name.startswith(".") and d.name not in IGNORED]


def relative(path: str, root: str | Path) -> str:
    """``path`` relative to ``root`` when inside it (for tables), else unchanged."""
    try:
        return os.path.relpath(path, root) if Path(path).resolve().is_relative_to(Path(root).resolve()) else path
    except ValueError:
        return path


def summary(problems: list[Problem], root: str | Path) -> str:
    """One line: how many problems (a row each in the table above it) in how many model folders
    (:mod:`core.wording`'s rule on counts)."""
    rootp = Path(root)
    total = len(model_folders(rootp))
    if not problems:
        return f"{count(total, 'model')} checked, no problems"
    n = count(len(problems), "problem")
    if (rootp / CONFIG).is_file():
        return f"{n} in {of(1, 1, 'model')}"
    # a problem of the repository itself (it does not exist, holds no model folder, its index.json)
    # is in none of its models: counted apart, never as "1 of 0 models" (trial 8)
    firsts = [relative(p.file, root).split(os.sep)[0] for p in problems]
    in_models = [f for f in firsts if f not in (".", "") and (rootp / f).is_dir()]
    own = len(problems) - len(in_models)
    models = of(len(set(in_models)), total, "model")
    itself = "the repository itself" + ("" if total else " (no model checked)")
    if not own:
        return f"{n} in {models}"
    if not in_models:
        return f"{n} in {itself}"
    return f"{n}: {len(in_models)} in {models}, {own} in {itself}"
