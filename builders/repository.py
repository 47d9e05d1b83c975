"""Writing variants into a Triton model repository, and its index file.

Layout (Triton docs, "Model Repository"):
``<repo>/<variant>/config.pbtxt`` and ``<repo>/<variant>/<version>/<model file>`` with an
integer version folder (default ``1``); for python-backend serving also ``<version>/model.py``
(the python-backend model). The exported file is hard-linked from the build folder where
the filesystem allows (one file on disk shared by every variant), else copied.
``<repo>/index.json`` lists every variant, its parameters and the build it came from.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from pathlib import Path
from typing import Any

from core import formats
from builders.artifact_io import ArtifactIO, read_artifact_io
from builders.backends import LEGACY_SERVINGS
from builders.config import make_config, write_config
from core.errors import ConfigError
from builders.spec import ModelSpec
from builders.variants import Variant

log = logging.getLogger(__name__)

INDEX_FILE = "index.json"
VERSION = "1"
PYTHON_MODEL_TEMPLATE = Path(__file__).parent / "templates" / "triton_python_model.py"


def write_variant(
    repo: Path,
    variant: Variant,
    artifact: Path,
    spec: ModelSpec,
    serving: str,
    *,
    version: int = 1,
    io: ArtifactIO | None = None,
    server_gpu: bool | None = None,
    intra_op_threads: int | None = None,
) -> Path:
    """Write one variant folder; returns it. Existing content of that folder is replaced.

    Dtypes and dims come from the exported file (read with
    :func:`builders.artifact_io.read_artifact_io` unless ``io`` is given), names and order from
    ``spec``; the config is checked against Triton's rules before anything is written.

    Args:
        repo: The model repository folder (created).
        variant: The variant; its name is the folder name.
        artifact: The exported file (``model.pt`` / ``model.onnx`` / ``model.plan``).
        spec: The model's I/O signature.
        serving: ``"python"`` (python backend + ``model.py``) or ``"native"``.
        version: Version folder number, >= 1 (default 1).
        io: The artifact's I/O when already read (default: read it here).
        server_gpu: Passed to :func:`builders.config.make_config` (``False`` rejects KIND_GPU).
        intra_op_threads: Python-backend threads per instance (default: cores / instances).

    Raises:
        ConfigError: the variant breaks a Triton rule for this serving or artifact, or
            ``version`` is not >= 1.
    """
    if version < 1:
        raise ConfigError(f"version folder: {version} must be an integer >= 1 (Triton docs, 'Model Repository')")
    if io is None:
        io = read_artifact_io(variant.format, artifact)
    cfg = make_config(variant, spec, serving, intra_op_threads, io=io, server_gpu=server_gpu)  # before touching the disk
    vdir = repo / variant.name
    if vdir.exists():
        shutil.rmtree(vdir)
    (vdir / str(version)).mkdir(parents=True)
    write_config(cfg, vdir / "config.pbtxt")
    link_or_copy(Path(artifact), vdir / str(version) / formats.get(variant.format).file)
    if serving == "python":
        shutil.copyfile(PYTHON_MODEL_TEMPLATE, vdir / str(version) / "model.py")
    log.debug("wrote %s", vdir)
    return vdir


def link_or_copy(src: Path, dst: Path) -> None:
    """Hard-link ``src`` to ``dst`` (shared, not copied), replacing ``dst``; copy across filesystems."""
    dst.unlink(missing_ok=True)
    try:
        os.link(src, dst)
    except OSError as e:
        log.info("cannot hard-link %s (%s): copying it", src, e.strerror)
        shutil.copy2(src, dst)


def update_index(repo: Path, entries: list[dict[str, Any]], *, skipped: list[dict[str, str]] | None = None) -> Path:
    """Merge ``entries`` (each with a ``"name"``) into ``<repo>/index.json``; returns its path.

    Entries whose folder no longer exists are dropped, so the index lists exactly the
    variants in the repository, sorted by name: ``{"variants": [...], "skipped": [...]}``.

    Args:
        repo: The model repository.
        entries: One dict per written variant (``Variant.to_json()`` plus ``serving``,
            ``build``...).
        skipped: Grid points not written and why (``{"what", "reason"}``), replacing the
            previous list when given.
    """
    path = repo / INDEX_FILE
    repo.mkdir(parents=True, exist_ok=True)
    old = _read_raw(repo)
    index = {e["name"]: e for e in old.get("variants", [])}
    for e in entries:
        index[e["name"]] = e
    index = {k: v for k, v in sorted(index.items()) if (repo / k).is_dir()}
    doc: dict[str, Any] = {"variants": list(index.values())}
    skip = skipped if skipped is not None else old.get("skipped")
    if skip:
        doc["skipped"] = skip
    path.write_text(json.dumps(doc, indent=2) + "\n")
    return path


def _read_raw(repo: Path) -> dict[str, Any]:
    path = repo / INDEX_FILE
    if not path.is_file():
        return {}
    try:
        doc = json.loads(path.read_text())
    except json.JSONDecodeError:
        log.warning("%s is not valid JSON; it is rewritten", path)
        return {}
    doc["variants"] = [upgrade_entry(e) for e in doc.get("variants", [])]
    return doc


def upgrade_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """An index entry in today's vocabulary: an entry written before the rename of the build
    switch says ``"runtime": "bundled"|"native"``; it becomes ``"serving": "python"|"native"``
    (:data:`builders.backends.LEGACY_SERVINGS`). Other entries are returned unchanged."""
    if "runtime" not in entry or "serving" in entry:
        return entry
    out = {k: v for k, v in entry.items() if k != "runtime"}
    out["serving"] = LEGACY_SERVINGS.get(entry["runtime"], entry["runtime"])
    return out


def read_index(repo: Path) -> dict[str, dict[str, Any]]:
    """Variant name -> index entry (empty when the repository has no index).

    Entries of an index written before the ``runtime`` -> ``serving`` rename are read in the
    new vocabulary (:func:`upgrade_entry`)."""
    return {e["name"]: e for e in _read_raw(repo).get("variants", [])}
