"""The build folder as a build changes it: nothing replaced until the build succeeds, and
nothing of an earlier build dropped that this one did not redo.

- :class:`Staging`: every export and the reference data are written under ``<out>/.staging``
  and moved into place only when the build goes on to write its manifest
  (:meth:`Staging.commit`); a build that fails as a whole discards them
  (:meth:`Staging.discard`), so the artifacts, ``reference.npz`` and ``manifest.json`` stay
  as they were. What the failed build tried is written aside, to
  :data:`builders.repository.records.FAILED_MANIFEST_FILE` (:func:`write_failed`).
- :func:`earlier_records`: the records of the earlier build's exports that this build did not
  redo (or redid and failed) are kept, marked ``kept``, when the earlier build was of the
  same model, spec and settings and each export's files still have their recorded sha256;
  the others are dropped, each with a line saying why.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from builders.export.artifacts import ExportResult, file_sha256
from builders.model.spec import ModelSpec
from builders.repository.manifest import export_spec_json, write_manifest
from builders.repository.records import (
    FAILED_MANIFEST_FILE,
    INDEX_FILE,
    INDEX_KIND,
    BuildManifest,
    ExportRecord,
    FailedExport,
)
from builders.verify.verification import REFERENCE
from core import formats
from core.errors import RecordError
from core.records import load_record

#: The folder, inside the build folder, that a build writes its exports into before they are moved in.
STAGING = ".staging"
#: Manifest fields that must be equal for an earlier build's export records to be kept: the
#: model (source, weights, source fingerprint), its spec, the largest max_batch_size the exports
#: are verified up to, the tolerances and the library versions (every part of an export's reuse
#: key that is not the export's own).
IDENTITY_FIELDS = ("source", "weights_sha256_16", "source_sha256_16", "spec", "max_batch_size", "rtol", "versions")
#: The :data:`IDENTITY_FIELDS` that say what the model is (the others are build settings): an
#: earlier build that differs in one was of another model, and its exports' variants are stale.
MODEL_FIELDS = ("source", "weights_sha256_16", "source_sha256_16", "spec")

#: A (format, precision) pair.
Pair = tuple[str, str]


class Staging:
    """``<out>/.staging``: where this build writes its exports and reference data.

    Created empty (what an interrupted build left there is removed).

    Args:
        out: The build folder.
    """

    def __init__(self, out: Path) -> None:
        self.out = out
        self.root = out / STAGING
        shutil.rmtree(self.root, ignore_errors=True)
        self.root.mkdir(parents=True)

    def folder(self, precision: str) -> Path:
        """Where an export of ``precision`` is staged (``fp32`` at the root, others in ``<precision>/``,
        as in the build folder)."""
        return self.root if precision == "fp32" else self.root / precision

    def commit(self, results: Iterable[ExportResult]) -> None:
        """Move each staged export (its file and ONNX external data files) and the reference data
        into the build folder, replacing what is there; each result's ``path`` then points there.

        A file is moved with :func:`os.replace`: a repository variant that hard-links the earlier
        file keeps it (a variant folder serves what it was written with).
        """
        self._move(results, frozenset())
        if (self.root / REFERENCE).is_file():
            os.replace(self.root / REFERENCE, self.out / REFERENCE)
        self.discard()

    def keep_new(self, results: Iterable[ExportResult], old: BuildManifest | None) -> list[Path]:
        """After a build that failed as a whole: move in the exports that passed whose files
        replace nothing the earlier manifest records (the fp32 ONNX a plan is built from
        elsewhere, say), discard the rest; returns the files moved in.

        The manifest, the files it records and the reference data stay as they were.
        """
        moved = self._move(results, recorded_files(old, self.out))
        self.discard()
        return moved

    def _move(self, results: Iterable[ExportResult], keep: frozenset[Path]) -> list[Path]:
        moved = []
        for r in results:
            if not r.path.is_relative_to(self.root):
                continue  # reused: already in place
            dest = self.out / r.path.parent.relative_to(self.root)
            names = [r.path.name, *(d["file"] for d in r.extra.get("external_data", []))]
            if any(dest / n in keep for n in names):
                continue
            dest.mkdir(parents=True, exist_ok=True)
            for data in r.extra.get("external_data", []):
                os.replace(r.path.parent / data["file"], dest / data["file"])
            os.replace(r.path, dest / r.path.name)
            r.path = dest / r.path.name
            moved.append(r.path)
        return moved

    def discard(self) -> None:
        """Remove the staging folder and everything in it."""
        shutil.rmtree(self.root, ignore_errors=True)


def recorded_files(old: BuildManifest | None, out: Path) -> frozenset[Path]:
    """The files in build folder ``out`` that the manifest ``old`` records (artifacts and ONNX
    external data of its successful exports)."""
    files = set()
    for e in old.exports if old else []:
        if isinstance(e, ExportRecord):
            folder = out if e.precision == "fp32" else out / e.precision
            files |= {folder / e.file, *(folder / d["file"] for d in e.extra.get("external_data", []))}
    return frozenset(files)


def write_failed(out: Path, manifest: dict[str, Any]) -> Path:
    """Write what a build tried to ``<out>/manifest.failed.json`` (a manifest; ``manifest.json``
    is not touched); returns its path."""
    path = out / FAILED_MANIFEST_FILE
    write_manifest(path, manifest)
    return path


def remove_failed(out: Path) -> None:
    """Remove an earlier failed build's ``manifest.failed.json`` (a build that wrote its manifest
    supersedes it)."""
    (out / FAILED_MANIFEST_FILE).unlink(missing_ok=True)


def same_source(recorded: str, current: str) -> bool:
    """Whether a build folder's recorded ``source`` is the model being built now.

    A model file is recorded by its absolute path; a manifest written before that recorded
    the path as given, which is taken to be the same file when it resolves to it or has its
    name.
    """
    if recorded == current:
        return True
    cur = Path(current)
    if not cur.is_absolute():
        return False
    rec = Path(recorded)
    return rec.resolve() == cur or (not rec.is_absolute() and rec.name == cur.name)


def identity_differences(old: BuildManifest, new: dict[str, Any]) -> list[str]:
    """The :data:`IDENTITY_FIELDS` in which the earlier build ``old`` differs from the manifest
    ``new`` being written (``"weights_sha256_16"``...); empty when its exports may be kept. The spec is compared
    without its axes' steps (:func:`builders.repository.manifest.export_spec_json`)."""
    then: dict[str, Any] = {
        "source": old.source,
        "weights_sha256_16": old.weights_sha256_16,
        "source_sha256_16": old.source_sha256_16,
        "spec": export_spec_json(old.spec.to_spec()),
        "max_batch_size": old.max_batch_size,
        "rtol": dict(old.rtol),
        "versions": dict(old.versions),
    }
    now = {**{f: new.get(f) for f in IDENTITY_FIELDS}, "spec": export_spec_json(ModelSpec.from_json(new["spec"]))}
    out = [f for f in IDENTITY_FIELDS if f != "source" and then[f] != now[f]]
    if not same_source(old.source, str(new["source"])):
        out.insert(0, "source")
    return out


def files_unchanged(record: ExportRecord, out: Path) -> str | None:
    """Why an earlier export's files in build folder ``out`` are not the ones it recorded, or
    ``None`` when the artifact and each external data file have their recorded sha256."""
    folder = out if record.precision == "fp32" else out / record.precision
    files = [(folder / record.file, record.sha256)]
    files += [(folder / d["file"], d.get("sha256")) for d in record.extra.get("external_data", [])]
    for path, sha in files:
        if not path.is_file():
            return f"{path.name} is gone"
        if file_sha256(path) != sha:
            return f"{path.name} changed since it was recorded (sha256 differs)"
    return None


def earlier_records(
    old: BuildManifest | None, new: dict[str, Any], redone: Iterable[Pair], failed: Iterable[Pair], out: Path
) -> tuple[list[dict[str, Any]], list[str]]:
    """The earlier build's export records this build keeps, and one line per decision.

    Kept (marked ``kept``): the record of an export this build did not redo, or redid and
    failed (the earlier export is still in the folder: a failed export is staged and
    discarded), when the earlier build was of the same model, spec and settings
    (:func:`identity_differences`) and, for a successful export, its files are unchanged
    (:func:`files_unchanged`). A failed earlier export this build did not redo is kept as a
    failure. Everything else of the earlier build is dropped, and the lines say why.

    Args:
        old: The manifest found in the build folder (``None``: none).
        new: The manifest being written (its identity fields filled in).
        redone: The (format, precision) exports this build attempted.
        failed: Those of them that failed.
        out: The build folder.

    Returns:
        The kept records (JSON form, in the earlier manifest's order) and the lines.
    """
    if old is None:
        return [], []
    redone, failed = set(redone), set(failed)
    candidates = [
        e
        for e in old.exports
        if (e.format, e.precision) not in redone or (isinstance(e, ExportRecord) and (e.format, e.precision) in failed)
    ]
    if not candidates:
        return [], []
    differs = identity_differences(old, new)
    if differs:
        kept, lines = _failed_of_other_model(old, differs, candidates, failed, out)
        candidates = [e for e in candidates if not any((k["format"], k["precision"]) == (e.format, e.precision) for k in kept)]
        if not candidates:
            return kept, lines
        what = ", ".join(dict.fromkeys(f"{e.format} {e.precision}" for e in candidates))
        again = f"build --format {','.join(dict.fromkeys(e.format for e in candidates))} again"
        if set(differs) & set(MODEL_FIELDS):
            return kept, [
                *lines,
                f"earlier records dropped ({what}): the earlier build differs in {', '.join(differs)}, so those exports "
                f"are of another model; their variants in the repository are removed (below); {again} to serve this "
                "model in them",
            ]
        return [], [
            f"earlier records dropped ({what}): the earlier build differs in {', '.join(differs)} (build settings, "
            f"not the model), so they are not this build's; their variants in the repository are kept (below), "
            f"serving the earlier export; {again} to verify and record it under these settings"
        ]
    kept, lines = [], []
    for e in candidates:
        pair = f"{e.format} {e.precision}"
        if isinstance(e, FailedExport):
            kept.append({**e.model_dump(mode="json"), "kept": True})
            continue
        why = files_unchanged(e, out)
        if why:
            lines.append(f"{pair}: the earlier record is dropped: {why}")
            continue
        kept.append({**e.model_dump(mode="json"), "kept": True})
        again = " (this build's attempt failed; its variants serve the earlier one)" if (e.format, e.precision) in failed else ""
        lines.append(f"{pair}: kept from the earlier build ({formats.get(e.format).file} unchanged){again}")
    return kept, lines


def _failed_of_other_model(
    old: BuildManifest, differs: list[str], candidates: list[ExportRecord | FailedExport], failed: set[Pair], out: Path
) -> tuple[list[dict[str, Any]], list[str]]:
    """The earlier exports of another model (``differs``: :func:`identity_differences`, a :data:`MODEL_FIELDS` among
    them, the spec not) whose export this build redid and failed, their files unchanged: kept, marked ``kept`` and
    ``other_model`` (what that build recorded of the fields that differ), with one line each. A failed export replaces
    nothing, as a build that fails as a whole does: its variants serve the earlier export still (trial 24, T24-16: a
    retrained model's failed ONNX export removed the ONNX variants four runs had measured). With another spec they are
    not kept: their configs would not be this manifest's inputs and outputs."""
    model = [f for f in differs if f in MODEL_FIELDS]
    if not model or "spec" in model:
        return [], []
    kept: list[dict[str, Any]] = []
    lines: list[str] = []
    for e in candidates:
        if not isinstance(e, ExportRecord) or (e.format, e.precision) not in failed or files_unchanged(e, out):
            continue
        was = e.other_model or {f: getattr(old, f) for f in model}  # kept twice: the model it was made of
        kept.append({**e.model_dump(mode="json"), "kept": True, "other_model": was})
        lines.append(
            f"{e.format} {e.precision}: kept from the earlier build, an export of another model (the earlier build differs "
            f"in {', '.join(model)}): this build's {e.format} {e.precision} export failed, and a failed export replaces "
            f"nothing, so its variants keep serving the earlier {formats.get(e.format).file} (listed below); build "
            f"--format {e.format} again once it passes to serve this model in them (with --replace where a run measured "
            "them: it writes over what the run measured)"
        )
    return kept, lines


@dataclasses.dataclass(frozen=True)
class OtherModel:
    """An earlier build of another model than this one, as a refusal of measured variants reads it
    (:func:`builders.repository.replacing.refuse_removing`), before the build writes anything.

    Attributes:
        differs: The :data:`MODEL_FIELDS` it differs in.
        recorded: The (format, precision) of every export the manifest will record as built: this build's that
            passed and those kept (:func:`earlier_records`); the earlier build's variants of any other are removed.
        failed: This build's exports that failed.
    """

    differs: list[str]
    recorded: frozenset[Pair]
    failed: frozenset[Pair]


def other_model(
    old: BuildManifest | None, new: dict[str, Any], redone: Iterable[Pair], failed: Iterable[Pair], out: Path
) -> OtherModel | None:
    """What the manifest being written (``new``, this build's exports in it) will record when the earlier build
    ``old`` was of another model (:data:`MODEL_FIELDS` differ); ``None`` when it was of this model, or none."""
    differs = [f for f in identity_differences(old, new) if f in MODEL_FIELDS] if old is not None else []
    if not differs:
        return None
    failed = frozenset(failed)
    kept, _ = earlier_records(old, new, redone, failed, out)
    recorded = frozenset((e["format"], e["precision"]) for e in [*new["exports"], *kept] if not e.get("failed"))
    return OtherModel(differs, recorded, failed)


def earlier_variants(
    old: BuildManifest | None, kept: list[dict[str, Any]], written: Iterable[str], repository: Path
) -> list[str]:
    """The earlier build's variants that serve a kept export and are still in ``repository``
    (the same repository, listed in its index, not rewritten by this build): the manifest's ``kept_variants``."""
    if old is None or not old.repository or Path(old.repository) != repository.resolve():
        return []
    pairs = {(e["format"], e["precision"]) for e in kept if not e.get("failed")}
    try:
        entries = load_record(repository / INDEX_FILE, INDEX_KIND).entries() if (repository / INDEX_FILE).is_file() else {}
    except RecordError:
        return []
    done = set(written)
    out = []
    for name in old.variants:
        entry = entries.get(name)
        if name in done or entry is None or not (repository / name).is_dir():
            continue
        v = entry.variant
        if (v.format, v.precision) in pairs:
            out.append(name)
    return out


def built_into(old: BuildManifest | None, repository: Path, manifest: Path) -> dict[str, Any]:
    """The manifest's ``repositories`` and ``repositories_complete``: every repository a build of this folder wrote
    into, oldest first, ``repository`` (this build's) last; an earlier manifest without the list gives its
    ``repository`` (s23r, M2: only the latest was recorded, so ``builders remove`` from it deleted the folder an earlier
    repository's variants still use). The list is complete only from the folder's first build on: ``old`` is complete,
    or there was none and no ``manifest`` file (the path of the earlier one, read before this build's is written) that
    could not be read; a list begun from a manifest written before it, or one unreadable, is not (s24c: it looked
    complete, and ``builders remove`` deleted the folder a repository older than its first entry still used)."""
    before = (old.repositories or [old.repository or ""]) if old else []
    complete = old.repositories_complete if old else not manifest.is_file()
    return {
        "repositories": [r for r in dict.fromkeys([*before, str(repository.resolve())]) if r],
        "repositories_complete": complete,
    }
