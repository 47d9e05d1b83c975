"""Where in the user's own code an exception was raised, for errors that blame the user's model.

A failure inside ``forward()`` or a factory surfaces as a torch error deep in torch's frames; the
line that caused it is the deepest frame of the user's file, not torch's nor the toolkit's. Every
error that says "your model failed" names that line (``file:line in function: code``), so a bug in
the model is not mistaken for a wrong spec.
"""

from __future__ import annotations

import sys
import sysconfig
import traceback
from pathlib import Path

#: Folders whose frames are never the user's: the toolkit's packages, the standard library and
#: installed packages (torch among them).
_NOT_USERS = tuple(
    Path(p).resolve()
    for p in (
        Path(__file__).resolve().parents[2],  # the toolkit's checkout (builders/, core/, ...)
        sysconfig.get_paths()["stdlib"],
        sysconfig.get_paths()["purelib"],
        sysconfig.get_paths()["platlib"],
        sys.prefix,
        sys.base_prefix,
    )
)
_TOOLKIT_PACKAGES = ("builders", "clients", "core", "perf")


def _is_users(filename: str) -> bool:
    if filename.startswith("<"):  # <frozen ...>, <string>: not a file the user can open
        return False
    path = Path(filename).resolve()
    if {"site-packages", "dist-packages"} & set(path.parts):  # an installed package (torch...), wherever its venv is
        return False
    root = _NOT_USERS[0]
    if path.is_relative_to(root):  # the checkout: its packages are the toolkit's, a model file beside them is the user's
        rel = path.relative_to(root).parts
        return bool(rel) and rel[0] not in (*_TOOLKIT_PACKAGES, ".venv")
    return not any(path.is_relative_to(p) for p in _NOT_USERS[1:])


def user_frame(exc: BaseException) -> str | None:
    """``"model.py:42 in forward: x = torch.cat((a, b), dim=0)"`` for the deepest frame of
    ``exc``'s traceback (and its causes') in the user's own code; ``None`` when none is."""
    seen: set[int] = set()
    e: BaseException | None = exc
    found: str | None = None
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        frames = [f for f in traceback.extract_tb(e.__traceback__) if _is_users(f.filename)]
        if frames:
            f = frames[-1]
            code = f": {f.line.strip()}" if f.line else ""
            found = f"{f.filename}:{f.lineno} in {f.name}{code}"
            break
        e = e.__cause__ or e.__context__
    return found
