"""Rewriting a wheel smaller (used by ``scripts/prepare_gpu_bundle.sh`` through
``scripts/gpu_check.py slim-wheel`` to fit the offline GPU bundle into 64 MiB).

Standard library only, so it runs anywhere.
"""

from __future__ import annotations

import fnmatch
import os
import zipfile
from collections.abc import Sequence
from pathlib import Path


def slim_wheel(src: Path, out_dir: Path, drop: Sequence[str] = (), build_tag: str | None = None, lzma: bool = True) -> Path:
    """Write a copy of wheel ``src`` into ``out_dir`` without the members matching the
    ``drop`` shell patterns, its ``RECORD`` rewritten to match, compressed with LZMA
    (pip reads any compression Python's zipfile reads). Hashes in ``RECORD`` are of the
    uncompressed files, so kept files keep their entries.

    Args:
        src: The wheel.
        out_dir: Where the new wheel goes.
        drop: Shell patterns of member names to leave out.
        build_tag: A wheel build tag (``"1slim"``; must start with a digit) marking the copy.
        lzma: LZMA (smaller) instead of deflate.

    Returns:
        The new wheel's path.
    """
    parts = src.name[: -len(".whl")].split("-")
    if build_tag:
        if len(parts) == 6:
            parts[2] = build_tag
        else:
            parts.insert(2, build_tag)
    out = out_dir / ("-".join(parts) + ".whl")
    out_dir.mkdir(parents=True, exist_ok=True)
    dropped = lambda n: any(fnmatch.fnmatch(n, p) for p in drop)  # noqa: E731
    method = zipfile.ZIP_LZMA if lzma else zipfile.ZIP_DEFLATED
    tmp = out.with_suffix(".tmp")
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(tmp, "w", method) as zout:
        for info in zin.infolist():
            if dropped(info.filename):
                continue
            data = zin.read(info.filename)
            if info.filename.endswith(".dist-info/RECORD"):
                data = "".join(ln for ln in data.decode().splitlines(True) if not dropped(ln.split(",", 1)[0])).encode()
            new = zipfile.ZipInfo(info.filename, info.date_time)
            new.external_attr = info.external_attr
            new.compress_type = method
            zout.writestr(new, data)
    os.replace(tmp, out)
    return out
