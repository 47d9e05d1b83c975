"""Writing a Triton model repository: one folder per variant, and its index.

Layout (Triton docs, "Model Repository"):
``<repo>/<variant>/config.pbtxt`` and ``<repo>/<variant>/<version>/<model file>`` with an
integer version folder (default ``1``); for python-backend serving also ``<version>/model.py``
(the python-backend model), and ``<repo>/<variant>/warmup/`` with the warmup's input data
files when it has any (:func:`builders.config.warmup.write_warmup_files`). The exported file
is hard-linked from the build folder where the filesystem allows (one file on disk shared by
every variant), else copied.
``<repo>/index.json`` lists every variant, its parameters and the build it came from
(:class:`builders.repository.records.RepositoryIndex`); :mod:`builders.repository.view` reads
them back.
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from builders.config.pbtxt import make_config, write_config
from builders.config.variants import Skipped, Variant
from builders.config.warmup import DEFAULT_WARMUP_COUNT, write_warmup_files
from builders.export.artifacts import ExportResult
from builders.export.content import same_content
from builders.model.artifact_io import read_artifact_io
from builders.model.artifact_signature import ArtifactIO
from builders.model.spec import ModelSpec
from builders.repository.build_folder import MODEL_FIELDS, identity_differences
from builders.repository.build_lock import repository_lock
from builders.repository.measured_runs import measured_words, measuring_runs, removal_lines, removed_words
from builders.repository.records import INDEX_FILE, INDEX_KIND, BuildManifest, IndexEntry, RepositoryIndex
from core import formats
from core.errors import ConfigError, RecordError
from core.records import load_record, write_record
from core.wording import agree, count

log = logging.getLogger(__name__)

#: The version folder variants are written to.
VERSION = "1"
#: The python-backend model copied into every variant served by the python backend.
PYTHON_MODEL_TEMPLATE = Path(__file__).resolve().parents[1] / "templates" / "triton_python_model.py"
#: Its file name in each version folder (the python backend's default model file); a bundle for
#: NVIDIA's image drops it (the native backend serves the artifact itself).
PYTHON_MODEL_FILE = "model.py"


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
    warmup_count: int = DEFAULT_WARMUP_COUNT,
) -> Path:
    """Write one variant folder; returns it. Existing content of that folder is replaced.

    Dtypes and dims come from the exported file (read with
    :func:`builders.model.artifact_io.read_artifact_io` unless ``io`` is given), names and order from
    ``spec``; the config is checked against Triton's rules before anything is written.

    Args:
        repo: The model repository folder (created).
        variant: The variant; its name is the folder name.
        artifact: The exported file (``model.pt`` / ``model.onnx`` / ``model.plan``).
        spec: The model's I/O signature.
        serving: ``"python"`` (python backend + ``model.py``) or ``"native"``.
        version: Version folder number, >= 1 (default 1).
        io: The artifact's I/O when already read (default: read it here).
        server_gpu: Passed to :func:`builders.config.pbtxt.make_config` (``False`` rejects KIND_GPU).
        intra_op_threads: Python-backend threads per instance (default: cores / instances).
        warmup_count: Runs of each ``model_warmup`` sample (:func:`builders.config.warmup.add_warmup`).

    Raises:
        ConfigError: the variant breaks a Triton rule for this serving or artifact, or
            ``version`` is not >= 1.
    """
    if version < 1:
        raise ConfigError(
            f"version folder: {version} must be an integer >= 1 (Triton docs, 'Model Repository')",
            hint="pass a version of 1 or more (the default is 1)",
        )
    if io is None:
        io = read_artifact_io(variant.format, artifact)
    cfg = make_config(
        variant, spec, serving, intra_op_threads, io=io, server_gpu=server_gpu, warmup_count=warmup_count
    )  # before touching the disk
    vdir = repo / variant.name
    if vdir.exists():
        shutil.rmtree(vdir)
    (vdir / str(version)).mkdir(parents=True)
    write_config(cfg, vdir / "config.pbtxt")
    write_warmup_files(cfg, spec, variant.warmup, vdir)  # warmup data within each input's domain
    link_or_copy(Path(artifact), vdir / str(version) / formats.get(variant.format).file)
    if serving == "python":
        shutil.copyfile(PYTHON_MODEL_TEMPLATE, vdir / str(version) / PYTHON_MODEL_FILE)
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


def update_index(repo: Path, entries: Sequence[IndexEntry | dict[str, Any]], *, skipped: list[Skipped] | None = None) -> Path:
    """Merge ``entries`` into ``<repo>/index.json``; returns its path.

    Entries whose folder no longer exists are dropped, so the index lists exactly the
    variants in the repository, sorted by name (:class:`builders.repository.records.RepositoryIndex`).
    An index that cannot be read (not JSON, another schema) is logged and rewritten.

    Args:
        repo: The model repository.
        entries: One per written variant (:meth:`IndexEntry.of`, or its JSON form:
            ``Variant.to_json()`` plus ``serving``, ``build``).
        skipped: Grid points not written and why, replacing the previous list when given.

    Two processes updating one index at once (builds of two models into one repository) each
    wait for the other's update (:func:`builders.repository.build_lock.repository_lock`): neither's
    entries are lost.
    """
    repo.mkdir(parents=True, exist_ok=True)
    with repository_lock(repo):  # two builds of different models read-modify-write one index
        return _merge_index(repo, entries, skipped)


def _merge_index(repo: Path, entries: Sequence[IndexEntry | dict[str, Any]], skipped: list[Skipped] | None) -> Path:
    """:func:`update_index`'s read-modify-write, under the repository's lock."""
    path = repo / INDEX_FILE
    old = RepositoryIndex()
    if path.is_file():
        try:
            old = load_record(path, INDEX_KIND)
        except RecordError as e:
            log.warning("%s; it is rewritten", e.message)
    index = old.entries()
    for item in entries:
        entry = item if isinstance(item, IndexEntry) else IndexEntry.model_validate(item)
        index[entry.name] = entry
    kept = [v for k, v in sorted(index.items()) if (repo / k).is_dir()]
    return write_record(
        path, INDEX_KIND, RepositoryIndex(variants=kept, skipped=list(skipped if skipped is not None else old.skipped))
    )


def stale_variants(
    repo: Path,
    build: Path,
    exports: Iterable[ExportResult],
    written: Iterable[str],
    recorded: Iterable[tuple[str, str]] | None = None,
) -> dict[str, str]:
    """The variants of ``repo``'s index that build folder ``build`` wrote from an export this
    build redid, that this build did not rewrite, and whose folder serves another file than the
    redone export (the earlier one: an export is moved in with :func:`os.replace`, so a variant
    keeps the file it was written with). No record describes what they serve any more: the
    manifest now records the redone export. With ``recorded``, a variant of this build folder
    whose (format, precision) the manifest no longer records at all (an earlier export whose
    record this build dropped: another model, spec or settings, or changed files) is stale too.
    Entries of other builds, of exports kept or not redone, and of a redone export that gave
    the same files (reused, or re-exported with the same content: :func:`builders.export.content.same_content`,
    a TorchScript archive of the same weights in other bytes among them, break-it F10) are not stale.

    Args:
        repo: The model repository.
        build: The build folder (the index entries' ``build``).
        exports: The exports this build made or reused (the new files, in the build folder).
        written: The variants this build wrote.
        recorded: The (format, precision) of every export the saved manifest records as built
            (``None``: not checked).

    Returns:
        ``{variant: why}``, sorted by name; empty when the index cannot be read.
    """
    path = repo / INDEX_FILE
    try:
        entries = load_record(path, INDEX_KIND).entries() if path.is_file() else {}
    except RecordError:
        return {}
    here = Path(build).resolve()
    by_pair = {(r.format, r.precision): r for r in exports}
    done = set(written)
    out: dict[str, str] = {}
    for name, entry in sorted(entries.items()):
        if name in done or not entry.build or Path(entry.build).resolve() != here or not (repo / name).is_dir():
            continue
        v = entry.variant
        new = by_pair.get((v.format, v.precision))
        if new is None:
            if recorded is not None and (v.format, v.precision) not in set(recorded):
                out[name] = (
                    f"the build's manifest no longer records its {v.format} {v.precision} export (its earlier record "
                    "was dropped, above): it served the earlier build"
                )
            continue
        files = [new.path.name, *(d["file"] for d in new.extra.get("external_data", []))]
        differ = [f for f in files if not same_content(repo / name / VERSION / f, new.path.parent / f)]
        if differ:
            out[name] = (
                f"its {v.format} {v.precision} export was redone and it was not rewritten: its {differ[0]} is the earlier one"
            )
    return out


def _kept_unrecorded(
    repo: Path, build: Path, recorded: set[tuple[str, str]], written: list[str], differs: list[str]
) -> list[str]:
    """One line per variant of build folder ``build`` kept in ``repo`` although the manifest no
    longer records its export (the earlier build differs only in build settings)."""
    try:
        entries = read_index_entries(repo)
    except RecordError:
        return []
    here, done = Path(build).resolve(), set(written)
    out = []
    for name, entry in sorted(entries.items()):
        v = entry.variant
        if name in done or not entry.build or Path(entry.build).resolve() != here or (v.format, v.precision) in recorded:
            continue
        why = f"the build differs in {', '.join(differs)}" if differs else "its earlier record was dropped, above"
        out.append(
            f"kept {repo / name}: it serves the earlier build's {v.format} {v.precision} export of this model, no longer "
            f"recorded ({why}); build --format {v.format} again to record it"
        )
    return out


def _kept_of_other_model(repo: Path, manifest: dict[str, Any]) -> list[str]:
    """One line per variant of ``repo`` that serves an export the manifest kept from an earlier build of another
    model (its ``other_model``: this build's export failed, and a failed export replaces nothing): what it serves,
    of which weights, and the runs that measured it (trial 24, T24-16)."""
    other = {
        (e["format"], e["precision"]): e["other_model"]
        for e in manifest.get("exports", [])
        if e.get("kept") and e.get("other_model") and not e.get("failed")
    }
    try:
        entries = read_index_entries(repo) if other else {}
    except RecordError:
        return []
    names = [n for n in manifest.get("kept_variants", []) if n in entries and _pair(entries[n]) in other]
    runs = measuring_runs(repo, names)
    out = []
    for name in names:
        fmt, precision = _pair(entries[name])
        was = ", ".join(f"{f} {v}" for f, v in other[(fmt, precision)].items())
        now = ", ".join(f"{f} {manifest.get(f)}" for f in other[(fmt, precision)])
        ids = runs.get(name, [])
        measured = measured_words(repo, ids) + (f" and still {agree(len(ids), 'matches', 'match')} it" if ids else "")
        out.append(
            f"kept {repo / name}: it serves the earlier build's {fmt} {precision} export, of other weights than this "
            f"build's ({was}; this build: {now}), since this build's {fmt} {precision} export failed; {measured}; "
            "`clients check` compares it with this build's reference data (its weights), where its outputs differ"
        )
    return out


def _pair(entry: IndexEntry) -> tuple[str, str]:
    """An index entry's (format, precision)."""
    return entry.variant.format, entry.variant.precision


def read_index_entries(repo: Path) -> dict[str, IndexEntry]:
    """``repo``'s index entries by variant name (empty without an index).

    Raises:
        RecordError: the index cannot be read.
    """
    path = repo / INDEX_FILE
    return load_record(path, INDEX_KIND).entries() if path.is_file() else {}


def drop_stale_variants(
    repo: Path,
    build: Path,
    exports: Iterable[ExportResult],
    written: Iterable[str],
    old: BuildManifest | None = None,
    manifest: dict[str, Any] | None = None,
) -> list[str]:
    """Remove the :func:`stale_variants` of ``repo`` (folder and index entry), and those of the
    repository the build folder's earlier build ``old`` wrote (when another one that still
    exists): their index entries name this build folder, whose manifest (``manifest``, as saved)
    no longer records what they serve. A variant of an export whose earlier record was dropped
    is removed when ``old`` was of another model (:data:`~builders.repository.build_folder.MODEL_FIELDS`
    differ), and kept, said in a line, when only build settings differ. Returns one line per
    variant removed or kept that way, so the build's words match what the repository holds after it.
    """
    lines: list[str] = []
    exports = list(exports)  # read once per repository
    earlier_repo = old.repository if old else None
    recorded: set[tuple[str, str]] | None = None
    other_model = False
    if manifest is not None and old is not None:
        recorded = {(e["format"], e["precision"]) for e in manifest.get("exports", []) if not e.get("failed")}
        differs = identity_differences(old, manifest)
        other_model = bool(set(differs) & set(MODEL_FIELDS))
        if not other_model:
            lines += _kept_unrecorded(Path(repo), build, recorded, list(written), differs)
    if manifest is not None:
        lines += _kept_of_other_model(Path(repo), manifest)
    repos = [(Path(repo), list(written))]
    if earlier_repo and Path(earlier_repo).is_dir() and Path(earlier_repo).resolve() != Path(repo).resolve():
        repos.append((Path(earlier_repo), []))
    for i, folder_done in enumerate(repos):
        folder, done = folder_done
        stale = stale_variants(folder, build, exports, done, recorded if other_model else None)
        if i == 0 or stale:  # the index update below (or the build's) drops them: each named (s22z, Z-17)
            lines += gone_lines(folder)
        runs = measuring_runs(folder, stale)  # each removal names the runs that measured it (trial 24, T24-16)
        for name, why in stale.items():
            shutil.rmtree(folder / name)
            ids = runs.get(name, [])
            lines.append(f"removed {folder / name}: {why}; {removed_words(folder, ids)}")
        if stale:
            update_index(folder, [])
    return lines


def gone_lines(repo: Path) -> list[str]:
    """One line per entry of ``repo``'s index whose variant folder is gone (removed by hand), which the next index
    update drops, with the runs that measured it (:func:`~builders.repository.measured_runs.removal_lines`, the words
    of ``builders prune``); none when the index cannot be read (s22z, Z-17: a build dropped them without a word)."""
    try:
        gone = sorted(n for n in read_index_entries(repo) if not (repo / n).is_dir())
    except RecordError:
        return []
    return dropped_lines(repo, gone)


def dropped_lines(repo: Path, gone: list[str]) -> list[str]:
    """What dropping the index entries ``gone`` of ``repo`` (their folders removed by hand) is said in: one line naming
    them, then the runs that measured each (``builders prune``'s words, and a build's); none for none."""
    if not gone:
        return []
    lead = f"dropped from {repo / INDEX_FILE} ({count(len(gone), 'variant')} whose folder is gone): {', '.join(gone)}"
    return [lead] + [f"  {n}: {w}" if n else f"  {w}" for n, w in removal_lines(repo, gone)]


def prune_index(repo: Path) -> list[str]:
    """``builders prune``: drop the entries of ``repo``'s index whose variant folder is gone (removed by hand), under
    the repository's lock (:func:`update_index`, which drops them at every build); no file but the index is touched.

    Returns:
        The names dropped, sorted (none: the index is left as it was).

    Raises:
        RecordError: the index cannot be read (it is not rewritten).
    """
    with repository_lock(repo):
        gone = sorted(n for n in read_index_entries(repo) if not (repo / n).is_dir())
        if gone:
            _merge_index(repo, [], None)
    return gone
