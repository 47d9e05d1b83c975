"""The build manifest (``manifest.json``): written, read back, and the reuse of unchanged exports.

An export is reused when the hash of everything it depends on (:func:`export_key`) equals
the one recorded with it, and its files still have their recorded sha256.
"""

from __future__ import annotations

import hashlib
import json
import logging
import platform
from pathlib import Path
from typing import Any

from builders.export.artifacts import file_sha256
from builders.model.spec import ModelSpec
from builders.repository.records import MANIFEST_FILE, MANIFEST_KIND, BuildManifest, ExportRecord
from core.errors import RecordError, RepositoryError
from core.gpu import gpu_names
from core.records import SCHEMA_KEY, dropped_keys, load_record, write_record
from core.versions import package_versions

log = logging.getLogger(__name__)

#: The manifest's file name in the build folder.
MANIFEST = MANIFEST_FILE


def weights_hash(module: Any) -> str:
    """sha256 (first 16 hex digits) of every parameter and buffer, by name, as raw bytes."""
    import torch

    h = hashlib.sha256()
    for k, v in module.state_dict().items():
        h.update(k.encode())
        if isinstance(v, torch.Tensor):
            t = v.detach().cpu().contiguous()
            h.update(str(t.dtype).encode())
            h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b"")
    return h.hexdigest()[:16]


def library_versions() -> dict[str, str | None]:
    """Installed versions of Python and the libraries an export depends on (None = absent)."""
    return {
        "python": platform.python_version(),
        **package_versions(("torch", "onnx", "onnxruntime", "onnxscript", "tensorrt", "tritonclient")),
    }


def export_spec_json(spec: ModelSpec) -> dict[str, Any]:
    """The part of ``spec``'s JSON an export and its verification depend on: all of it but the axes' steps
    (``multiple_of``). A step restricts the sizes sent, not what is exported or verified (min, opt and max, the only
    sizes a build uses, are multiples of it either way), so adding or changing one alone neither exports again nor
    makes the earlier build "another model"; the manifest still records it (s21k)."""
    return {k: v for k, v in spec.to_json().items() if k != "multiple_of"}


def export_key(
    fmt: str,
    precision: str,
    spec: ModelSpec,
    model_hash: str,
    versions: dict[str, Any],
    mbs: int,
    *,
    rtol: dict[str, float],
    opset: int,
    external_data_threshold_bytes: int,
    workspace_bytes: int,
    verification: dict[str, Any] | None = None,
) -> str:
    """Hash (16 hex digits) of everything an export and its verification depend on.

    Args:
        fmt: Export format.
        precision: Export precision.
        spec: The I/O signature, outputs filled in (:func:`export_spec_json`: its steps left out).
        model_hash: Weights hash and model source fingerprint, joined.
        versions: :func:`library_versions`.
        mbs: The largest max_batch_size of the grid (verified and profiled up to it).
        rtol: Per-output tolerance overrides.
        opset: ONNX opset (ONNX and TensorRT only).
        external_data_threshold_bytes: ONNX external-data threshold (ONNX and TensorRT only).
        workspace_bytes: TensorRT workspace limit (TensorRT only, with this host's GPU names).
        verification: What the verification depends on besides the export (policy version,
            devices, the user's sample hash), when given.
    """
    parts: list[Any] = [fmt, precision, export_spec_json(spec), model_hash, versions, mbs, sorted(rtol.items())]
    if verification is not None:
        parts.append(verification)
    if fmt in ("onnx", "trt"):
        parts += [opset, external_data_threshold_bytes]
    if fmt == "trt":
        parts += [workspace_bytes, list(gpu_names())]
    blob = json.dumps(parts, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def read_manifest(out: Path) -> BuildManifest | None:
    """The manifest in build folder ``out`` (:class:`builders.repository.records.BuildManifest`);
    ``None`` when there is none, or when it cannot be read (logged: its exports are then
    made again instead of reused)."""
    path = out / MANIFEST
    if not path.is_file():
        return None
    try:
        return load_record(path, MANIFEST_KIND)
    except RecordError as e:
        log.warning("%s; nothing of it is reused", e.message)
        return None


def build_spec(folder: Path) -> ModelSpec:
    """The input spec a build was made with, read from its manifest: what ``builders spec --build``
    prints, in the form ``builders build --spec`` (and the demo's ``DEMO_SPEC``) reads.

    Args:
        folder: A build folder (``BUILD_DIR/<name>``, e.g. ``builds/forecaster``).

    Raises:
        RepositoryError: ``folder`` holds no ``manifest.json`` (when its subfolders are builds, they are named).
        RecordError: the manifest cannot be read (the message names the field).
    """
    path = folder / MANIFEST
    if not path.is_file():
        builds = sorted(p.parent for p in folder.glob(f"*/{MANIFEST}")) if folder.is_dir() else []
        where = f"{folder} holds no {MANIFEST}" if folder.is_dir() else f"there is no folder {folder}"
        hint = (
            f"pass one of the builds in it: {', '.join(str(b) for b in builds)}"
            if builds
            else "pass a build folder: BUILD_DIR/<name> of `builders build` (default builds/<name>, e.g. builds/mlp)"
        )
        raise RepositoryError(f"{where}: not a build folder", hint=hint)
    manifest: BuildManifest = load_record(path, MANIFEST_KIND)
    return manifest.spec.to_spec()


def reusable_export(old: BuildManifest | None, key: str, path: Path) -> ExportRecord | None:
    """The old export record with ``key`` when it was verified and its file (and external
    data files) still have the recorded sha256; ``None`` otherwise."""
    for rec in old.exports if old else []:
        if not isinstance(rec, ExportRecord) or rec.key != key or not rec.verification:
            continue
        if not path.is_file() or file_sha256(path) != rec.sha256:
            return None
        for data in rec.extra.get("external_data", []):
            f = path.parent / data["file"]
            if not f.is_file() or file_sha256(f) != data["sha256"]:
                return None
        return rec
    return None


def write_manifest(path: Path, manifest: dict[str, Any]) -> dict[str, Any]:
    """Validate ``manifest`` as a :class:`builders.repository.records.BuildManifest` and write it.

    The file is written atomically, with its schema version.

    Args:
        path: The manifest file (``<build_dir>/<model>/manifest.json``).
        manifest: The manifest as a dict (the build fills it in step by step).

    Returns:
        The manifest as saved (its JSON form).

    Raises:
        RecordError: a field has the wrong type (:meth:`core.records.RecordKind.parse`).
        RuntimeError: a key of ``manifest`` is not a field of ``BuildManifest`` (a bug: it
            would vanish from the file).
    """
    # the build's own dict is this version's: without its schema key it was read as version 1 and migrated,
    # which rebuilt ``rtol`` from the verification records (a failed export has none) and dropped the build's --rtol
    # (re-check of trial 18: every failing build given --rtol ended in a RuntimeError traceback here)
    current = {SCHEMA_KEY: MANIFEST_KIND.version, **manifest}
    record = MANIFEST_KIND.parse(current, f"the manifest being written to {path}")
    saved = MANIFEST_KIND.dump(record)
    lost = dropped_keys(current, saved)
    if lost:  # a bug: a field written here but missing from BuildManifest would vanish from the file
        raise RuntimeError(f"build manifest fields {lost} are not in builders.repository.records.BuildManifest; add them there")
    write_record(path, MANIFEST_KIND, record)
    return saved
