"""What the fast tier (``make test-unit``: ``-m "not integration and not slow"``) never runs.

Real exports (``torch.jit.script``/``trace``, ``torch.onnx.export``, ``torch.export.export``) and
the tools run in a subprocess (pip, ruff, mypy, lint-imports) take seconds each; tests that do
them are marked ``slow`` and run in ``make test``. :func:`guard` makes each of them fail the test
that calls it, saying to mark it ``slow``; tests/conftest.py turns it on for a run that deselects
``slow``.
"""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

#: ``torch`` attribute -> what calling it does.
REFUSED_CALLS = {
    "jit.script": "a real TorchScript export",
    "jit.trace": "a real TorchScript export",
    "onnx.export": "a real ONNX export",
    "export.export": "a real torch.export",
}
#: Executables (or ``python -m`` modules) a fast test does not start.
REFUSED_TOOLS = frozenset({"pip", "pip3", "ruff", "mypy", "lint-imports"})


def refuse(what: str) -> None:
    """Fail the running test: ``what`` does not belong in the fast tier."""
    pytest.fail(
        f"{what} in the fast tier (`make test-unit`): mark the test `@pytest.mark.slow` "
        "(real exports, the session's tiny build, pip, ruff, mypy and lint-imports run in `make test` only)",
        pytrace=False,
    )


def refused_tool(args: Any) -> str | None:
    """The refused tool a subprocess command line starts (``ruff check .``, ``python -m pip ...``), or None."""
    argv = [str(a) for a in args] if isinstance(args, (list, tuple)) else str(args).split()
    names = [Path(a).name for a in argv[:1]] + [b for a, b in zip(argv, argv[1:]) if a == "-m"]
    return next((n for n in names if n in REFUSED_TOOLS), None)


def _refuser(what: str):
    def refused(*args: Any, **kwargs: Any) -> None:
        refuse(what)

    return refused


@contextlib.contextmanager
def guard() -> Iterator[None]:
    """While open, each :data:`REFUSED_CALLS` call and each :data:`REFUSED_TOOLS` subprocess fails the test."""
    import torch
    import torch.export
    import torch.onnx

    popen_init = subprocess.Popen.__init__

    def guarded_init(self: subprocess.Popen, args: Any, *rest: Any, **kwargs: Any) -> None:
        tool = refused_tool(args)
        if tool:
            refuse(f"a {tool} run")
        popen_init(self, args, *rest, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        for attr, what in REFUSED_CALLS.items():
            owner, name = attr.rsplit(".", 1)
            mp.setattr(getattr(torch, owner), name, _refuser(what))
        mp.setattr(subprocess.Popen, "__init__", guarded_init)
        yield
