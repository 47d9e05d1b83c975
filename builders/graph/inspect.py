"""``builders inspect PATH``: the graph health of every export a path holds, and of a build's exports.

A path is an ``.onnx`` file, a TorchScript ``.pt`` file, or a folder (a build folder, a
model repository, one model folder): every ``*.onnx`` and ``*.pt`` under it is inspected,
identical files (the same export linked into several variants) once.

Safety (the rule of ``builders validate``, :mod:`builders.model.artifact_io`): ONNX files are parsed
as protobuf and handed to ONNX Runtime, nothing in them runs. A TorchScript archive can run
code when loaded, so it is loaded only when the user named the file, or named a folder and
asked for it (``load_artifacts``, ``--load-artifacts``), and then in a separate process.
Where it is not loaded, the graph health the build that wrote the file recorded in its
manifest (found through the folder's ``manifest.json`` or the repository's ``index.json``,
matched by sha256 or by content digest) is shown instead.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import Any

from builders.export.artifacts import file_sha256
from builders.export.content import content_sha256
from builders.graph.onnx_health import onnx_health
from builders.graph.torchscript import torchscript_file_health, torchscript_health
from builders.model.torchscript_archive import read_archive
from builders.repository.graph_records import OnnxHealth, TorchScriptHealth
from builders.repository.manifest import MANIFEST, read_manifest
from builders.repository.records import ExportRecord
from builders.repository.view import read_index
from core.errors import ConfigError, RecordError

log = logging.getLogger(__name__)

#: File suffix -> export format inspected.
SUFFIXES = {".onnx": "onnx", ".pt": "torchscript"}


@dataclasses.dataclass
class Inspected:
    """One export file inspected (or not, and why).

    Attributes:
        path: The file.
        format: ``"onnx"`` or ``"torchscript"``.
        health: Its graph facts; ``None`` when it was not read.
        how: Where the facts come from: ``"parsed here"`` (ONNX), ``"loaded in a separate
            process"`` (TorchScript) or ``"recorded by its build"`` (the manifest's record).
        skipped: Why it was not read (a TorchScript archive not asked to be loaded).
        error: Why reading it failed (not a valid file of its format).
        copies: Other paths under the folder holding the same bytes (variants sharing it).
    """

    path: Path
    format: str
    health: OnnxHealth | TorchScriptHealth | None = None
    how: str = ""
    skipped: str | None = None
    error: str | None = None
    copies: list[Path] = dataclasses.field(default_factory=list)


def inspect_path(path: str | Path, *, load_artifacts: bool = False, optimize: bool = True) -> list[Inspected]:
    """The graph health of the export file ``path``, or of every export under folder ``path``.

    Args:
        path: An ``.onnx`` or ``.pt`` file, or a folder (build folder, model repository).
        load_artifacts: Load TorchScript archives found under a folder (in a separate
            process). A ``.pt`` file named as ``path`` is always loaded (in a separate process).
        optimize: Let ONNX Runtime optimise each ONNX graph and count the result (default on).

    Returns:
        One entry per distinct file, in path order.

    Raises:
        ConfigError: ``path`` does not exist, is a file of another kind, or is a folder
            holding no export.
    """
    root = Path(path)
    if root.is_file():
        fmt = SUFFIXES.get(root.suffix)
        if fmt is None:
            raise ConfigError(
                f"{root.name}: expected an .onnx or TorchScript .pt file, found {root.suffix or 'no suffix'}",
                hint="pass an export file, a build folder (builds/<model>) or a model repository",
            )
        return [_inspect(root, fmt, load=True, optimize=optimize)]
    if not root.is_dir():
        raise ConfigError(f"{root} does not exist", hint="pass an export file, a build folder or a model repository")
    files = sorted(p for p in root.rglob("*") if p.suffix in SUFFIXES and p.is_file() and not _hidden(p, root))
    if not files:
        raise ConfigError(
            f"{root} holds no .onnx or .pt file",
            hint="pass a build folder (builds/<model>), a model repository or an export file",
        )
    recorded = _recorded_health(root)
    by_hash: dict[str, Inspected] = {}
    for f in files:
        digest = file_sha256(f)
        if digest in by_hash:
            by_hash[digest].copies.append(f)
            continue
        found = _inspect(f, SUFFIXES[f.suffix], load=load_artifacts, optimize=optimize)
        if found.health is None and found.error is None:
            health = recorded.get(digest) or recorded.get(content_sha256(f, digest))
            if health is not None:
                found = Inspected(f, found.format, health, how="recorded by its build, not loaded")
        by_hash[digest] = found
    return list(by_hash.values())


def _recorded_health(root: Path) -> dict[str, OnnxHealth | TorchScriptHealth]:
    """sha256 (and content digest: :func:`builders.export.content.content_sha256`, which a re-export of the
    same weights in other bytes shares, break-it F10) -> the graph health a build recorded for that file, from the manifests of
    ``root`` (a build folder), its subfolders (a build dir) and the builds its repository
    index names (``root`` or its parent, for a model folder)."""
    folders = [root, *(d for d in root.iterdir() if d.is_dir())]
    for repo in (root, root.parent):
        try:
            folders += [Path(entry.build) for entry in read_index(repo).values() if entry.build]
        except RecordError as err:
            log.info("%s; recorded graph health not used", err.message)
    out: dict[str, OnnxHealth | TorchScriptHealth] = {}
    for folder in dict.fromkeys(folders):
        manifest = read_manifest(folder) if (folder / MANIFEST).is_file() else None
        for export in manifest.exports if manifest else []:
            if isinstance(export, ExportRecord) and export.graph_health is not None:
                out[export.sha256] = export.graph_health
                if export.content_sha256 is not None:
                    out[export.content_sha256] = export.graph_health
    return out


def _hidden(p: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in p.relative_to(root).parts)


def _inspect(path: Path, fmt: str, *, load: bool, optimize: bool) -> Inspected:
    try:
        if fmt == "onnx":
            return Inspected(path, fmt, onnx_health(path, optimize=optimize), how="parsed here")
        if not load:
            read_archive(path)  # its structure, nothing unpickled: a torch.save pickle is an error here already
            return Inspected(
                path,
                fmt,
                skipped="TorchScript archive not loaded: loading it can run code from the file; "
                "pass --load-artifacts to load it in a separate process (or name the file itself)",
            )
        return Inspected(path, fmt, torchscript_file_health(path), how="loaded in a separate process")
    except ConfigError as e:
        return Inspected(path, fmt, error=e.message)


def export_health(fmt: str, path: Path) -> dict[str, Any] | None:
    """The graph health of an export the build just wrote, as JSON (the manifest's
    ``exports[].graph_health``); ``None`` for a format without one (TensorRT plans) or when
    it cannot be read (logged; the build goes on).

    The TorchScript archive is the build's own export, so it is loaded in this process.
    """
    try:
        if fmt == "onnx":
            return onnx_health(path).model_dump(mode="json")
        if fmt == "torchscript":
            import torch

            return torchscript_health(torch.jit.load(str(path), map_location="cpu")).model_dump(mode="json")
    except (ConfigError, RuntimeError) as e:  # graph health is a report; an unreadable graph never fails a build
        log.warning("graph health of %s not recorded: %s: %s", path, type(e).__name__, e)
    return None
