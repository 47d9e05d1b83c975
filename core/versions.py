"""Installed package versions, recorded in build manifests and sweep results."""

from __future__ import annotations

import importlib.metadata as md
from collections.abc import Iterable


def package_versions(names: Iterable[str]) -> dict[str, str | None]:
    """``{package: version}`` for each distribution name; ``None`` where it is not installed."""
    out: dict[str, str | None] = {}
    for name in names:
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            out[name] = None
    return out
