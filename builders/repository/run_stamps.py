"""Which runs of ``triton-perf sweep`` measured which content of a variant: read from the stamps a run records of the
files each variant served after its load (``perf.records.measured_files``), and compared with an export's files.
Moved from :mod:`builders.repository.replacing` (a rebuild's lines and refusals read them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

from builders.export.artifacts import file_sha256
from builders.export.content import content_sha256
from builders.repository.measured_runs import RESULTS_DIR, has_numbers, measuring_runs, run_files
from builders.repository.writer import VERSION, read_index_entries
from core import formats
from core.errors import RecordError


class ContentRuns(NamedTuple):
    """The runs that measured an export's variants (:func:`runs_of_content`): ``match`` (this content), ``differ``
    (other content), and ``replaced``: each variant a ``differ`` run measured -> those runs (trial 30, F6: the
    rebuild named the export, not the variants whose runs no longer match)."""

    match: list[str]
    differ: list[str]
    replaced: dict[str, list[str]]


def runs_of_content(
    repo: Path,
    build: Path,
    fmt: str,
    precision: str,
    sha256: str,
    content_sha256: str | None = None,
    results_dir: Path = RESULTS_DIR,
) -> ContentRuns:
    """The runs in ``results_dir`` that measured the variants build folder ``build`` writes from its ``fmt``
    ``precision`` export, split by what their loads were stamped with (``served``: each file's content digest, or its
    SHA-256 in runs saved before content digests): ``(match, differ)``, those that measured a file of the export just
    made (bytes ``sha256``, content ``content_sha256``: :func:`builders.export.content.content_sha256`; a re-export of
    the same weights in other bytes matches, break-it F10) and those that measured other content (a run recorded
    without a content hash among them), each sorted. Said when a rebuild replaces that export (trial 22,
    F-rebuild-runs: the runs were not named; F-rebuild-msg: rebuilding the weights the runs measured said they "no
    longer match", when they matched again)."""
    try:
        entries = read_index_entries(repo)
    except RecordError:
        return ContentRuns([], [], {})
    here = Path(build).resolve()
    names = {
        name
        for name, e in entries.items()
        if e.build and Path(e.build).resolve() == here and (e.variant.format, e.variant.precision) == (fmt, precision)
    }
    match: set[str] = set()
    differ: set[str] = set()
    replaced: dict[str, set[str]] = {}
    for path in run_files(repo, results_dir) if names else []:
        try:
            run = json.loads(path.read_text())
            if Path(run["settings"]["repository"]).resolve() != Path(repo).resolve():
                continue
            measured = [v for v in run.get("variants", []) if v.get("name") in names and has_numbers(v)]
            shas = [_measured_shas(v) for v in measured]
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
        if measured:
            ours = {sha256, content_sha256} - {None}
            run_id = str(run.get("run_id") or path.parent.name)
            (match if all(ours & s for s in shas) else differ).add(run_id)
            for v, s in zip(measured, shas):
                if not ours & s:
                    replaced.setdefault(str(v["name"]), set()).add(run_id)
    return ContentRuns(sorted(match), sorted(differ), {n: sorted(r) for n, r in sorted(replaced.items())})


def file_digests(path: Path) -> set[str]:
    """The digests a run's stamp may hold of the file at ``path``: its SHA-256 and its content digest
    (:func:`builders.export.content.content_sha256`); empty when it is not there."""
    if not path.is_file():
        return set()
    sha = file_sha256(path)
    return {sha, content_sha256(path, sha)}


def runs_losing(repo: Path, new: dict[str, set[str]], results_dir: Path = RESULTS_DIR) -> dict[str, list[str]]:
    """The runs in ``results_dir`` that measured a variant of ``repo`` named in ``new`` as it is now, and that would
    no longer match it once it serves a file of digests ``new[variant]`` (empty: removed, or content not known yet):
    ``{variant: [run id, ...]}``. A run matches a variant as it is when its stamp after load names the digest of the
    file the variant serves (:func:`file_digests`), or has no stamp (a run saved before stamps: taken to have
    measured it as it is); a run that measured an even earlier file is not named (this build takes nothing from it)."""
    try:
        entries = read_index_entries(repo)
    except RecordError:
        return {}
    measured = measuring_runs(repo, new, results_dir)  # first: a model's files are hashed only where a run measured them
    now = _digests(
        {n: repo / n / VERSION / formats.get(entries[n].variant.format).file for n in new if n in entries and n in measured}
    )
    out: dict[str, list[str]] = {}
    for path in run_files(repo, results_dir) if now else []:
        try:
            run = json.loads(path.read_text())
            if Path(run["settings"]["repository"]).resolve() != Path(repo).resolve():
                continue
            shas = {v["name"]: _measured_shas(v) for v in run.get("variants", []) if v.get("name") in now and has_numbers(v)}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
        for name, s in sorted(shas.items()):
            if (not s or s & now[name]) and not s & new[name]:
                out.setdefault(name, []).append(str(run.get("run_id") or path.parent.name))
    return out


def _digests(files: dict[str, Path]) -> dict[str, set[str]]:
    """:func:`file_digests` of each variant's file, each file read once (the variants of an export hard-link it)."""
    seen: dict[tuple[int, int], set[str]] = {}
    out: dict[str, set[str]] = {}
    for name, path in files.items():
        try:
            st = path.stat()
        except OSError:
            out[name] = set()
            continue
        key = (st.st_dev, st.st_ino)
        if key not in seen:
            seen[key] = file_digests(path)
        out[name] = seen[key]
    return out


def _measured_shas(variant: dict) -> set[str]:
    """The digests of the files a sweep's ``results.json`` variant record measured, each file by the one it is compared
    by (``clients.runtimes.identity.compare_files``): its content digest, else (a run saved before them) its SHA-256;
    from its last stamp after a load (``perf.records.measured_files.measured_artifact``, read from the file's fields);
    empty without one."""
    stamps = [s.get("artifact") for s in variant.get("served") or [] if s.get("moment", "after load") == "after load"]
    files = [s for s in stamps if s][-1:]
    return {d for a in files for f in a.get("files") or [] for d in [f.get("content_sha256") or f.get("sha256")] if d}
