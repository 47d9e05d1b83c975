"""Refusing a build that would replace variants of another serving or model under the same names.

A variant's name says its format, precision and grid point, not its serving (python backend or
native) nor the build folder (the model) it came from: a ``--serving native`` build after a
default one, or a build of another model under the same ``--name``, would write over the
earlier variants in place, and a sweep in ``results/`` that measured them would describe a
variant that no longer exists (trial 16, T16-15). :func:`refuse_replacing` stops such a build
before anything is exported or written, naming the variants, the runs that measured them and
what to do; ``--replace`` (:attr:`builders.build_options.BuildOptions.replace`) lets it go on.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from builders.config.variants import Variant
from builders.export.artifacts import ExportResult
from builders.repository.measured_runs import (
    RESULTS_DIR,
    has_numbers,
    measured_words,
    measuring_runs,
    run_files,
    where_runs,
)
from builders.repository.records import IndexEntry
from builders.repository.writer import read_index_entries, stale_variants
from core.errors import ConfigError, RecordError
from core.wording import agree, count


def replaced_variants(repo: Path, variants: Iterable[Variant], serving: str, build: Path) -> dict[str, str]:
    """The variants of ``repo`` that writing ``variants`` would replace with something else:
    same name, but another serving, other parameters (those both index entries have), or another
    build folder (model).

    Args:
        repo: The model repository.
        variants: The variants the build plans to write.
        serving: The build's serving.
        build: The build folder.

    Returns:
        ``{variant: what differs}``, in the order given; empty without an index (or one that
        cannot be read: the build rewrites it).
    """
    try:
        entries = read_index_entries(repo)
    except RecordError:
        return {}
    out: dict[str, str] = {}
    for v in variants:
        old = entries.get(v.name)
        if old is None or not (repo / v.name).is_dir():
            continue
        new = IndexEntry.of(v, serving, str(Path(build).resolve()))
        then = {k: x for k, x in old.params.items() if k != "build"}
        now = {k: x for k, x in new.params.items() if k != "build"}
        diffs = [f"{k}: {then[k]!r} now {now[k]!r}" for k in sorted(set(then) & set(now)) if then[k] != now[k]]
        if old.build and Path(old.build).resolve() != Path(build).resolve():
            diffs.append(f"build folder: {old.build} now {Path(build).resolve()}")
        if diffs:
            out[v.name] = ", ".join(diffs)
    return out


def refuse_replacing(repo: Path, variants: Iterable[Variant], serving: str, build: Path, results_dir: Path = RESULTS_DIR) -> None:
    """Refuse a build that would replace variants of ``repo`` with others of the same name
    (:func:`replaced_variants`), before anything is exported or written.

    Raises:
        ConfigError: one or more would be replaced; it names them, what differs, the runs in
            ``results_dir`` that measured them, and ``--name``, ``--repository`` and ``--replace``.
    """
    replaced = replaced_variants(repo, variants, serving, build)
    if not replaced:
        return
    runs = measuring_runs(repo, replaced, results_dir)
    shown = "; ".join(
        f"{name} ({why}{'; measured by run ' + ', '.join(runs[name]) if name in runs else ''})" for name, why in replaced.items()
    )
    measured = sorted({r for rs in runs.values() for r in rs})
    lost = (
        f"; {'the run' if len(measured) == 1 else 'the runs'} {', '.join(measured)} in {where_runs(repo, results_dir)} could "
        "no longer be "
        "bundled or compared with what was measured"
        if measured
        else ""
    )
    raise ConfigError(
        f"this build would replace {count(len(replaced), 'variant')} of {repo} with others of the same name: {shown}{lost}",
        hint=f"write it beside them with --repository OTHER (e.g. {repo}_{serving}), or under another model name with "
        "--name OTHER; or pass --replace to replace them",
    )


def replacing_lines(repo: Path, variants: Iterable[Variant], serving: str, build: Path) -> list[str]:
    """One line per variant of ``repo`` that a ``--replace`` build writes over with another of the same name
    (:func:`replaced_variants`): what differs and the runs that measured it, the words of the refusal ``--replace``
    overrode (trial 24, T24-16: every line that replaces a measured variant names its runs). Said once the build
    commits its exports (a refused build replaces nothing)."""
    replaced = replaced_variants(repo, variants, serving, build)
    runs = measuring_runs(repo, replaced) if replaced else {}
    return [
        f"replaced {repo / name} ({why}): --replace writes this build's variant over it; "
        f"{measured_words(repo, runs.get(name, []))}"
        + (" (the earlier variant: export-deployment says so and prints the build that restores it)" if name in runs else "")
        for name, why in replaced.items()
    ]


def refuse_removing(
    repo: Path, build: Path, exports: Iterable[ExportResult], written: Iterable[str], results_dir: Path = RESULTS_DIR
) -> None:
    """Refuse a build that would remove variants of ``repo`` a run in ``results_dir`` measured: variants of build folder
    ``build`` this build does not write (another grid: ``--max-batch-sizes``, counts, batching) whose export it redid
    into another file (:func:`builders.repository.writer.stale_variants`; re-check 19, NEW-3: a build for max batch
    size 16 removed four measured ``*_mbs8`` variants, and their runs could no longer be bundled). Called once the
    exports are made and before anything is moved in or written: the build folder and the repository stay as they were.

    Raises:
        ConfigError: one or more measured variants would be removed; it names them and the runs, and
            ``--repository``, the grid that made them and ``--replace``.
    """
    stale = stale_variants(repo, build, exports, written)
    runs = measuring_runs(repo, stale, results_dir)
    if not runs:
        return
    shown = "; ".join(f"{name} ({stale[name]}; measured by run {', '.join(ids)})" for name, ids in runs.items())
    measured = sorted({r for ids in runs.values() for r in ids})
    raise ConfigError(
        f"this build would remove {count(len(runs), 'variant')} of {repo} that runs measured: {shown}; "
        f"{agree(len(measured), 'the run', 'the runs')} {', '.join(measured)} in {where_runs(repo, results_dir)} could no "
        "longer be bundled or compared with what was measured; nothing was written",
        hint=f"write it beside them with --repository OTHER (e.g. {repo}_new), or build with a grid that keeps them "
        "(their --max-batch-sizes, --instance-counts and --dynamic-batching values too); or pass --replace to remove them",
    )


def at_risk(
    repo: Path, build: Path, fmt: str, precision: str, planned: Iterable[str], results_dir: Path = RESULTS_DIR
) -> dict[str, list[str]]:
    """The variants of ``repo`` that build folder ``build`` wrote from its ``fmt`` ``precision`` export, that this
    build's grid does not write (``planned``: its variant names) and that a run in ``results_dir`` measured:
    ``{variant: [run id, ...]}``. Said when that export is about to be made again, before it is: should the new file
    differ, :func:`refuse_removing` refuses the build after its exports, and a long export (a TensorRT plan) would
    otherwise be learned of late (note_s16, NEW-3). Empty when the index cannot be read."""
    try:
        entries = read_index_entries(repo)
    except RecordError:
        return {}
    here, grid = Path(build).resolve(), set(planned)
    names = [
        name
        for name, e in entries.items()
        if name not in grid
        and e.build
        and Path(e.build).resolve() == here
        and (e.variant.format, e.variant.precision) == (fmt, precision)
        and (repo / name).is_dir()
    ]
    return measuring_runs(repo, names, results_dir) if names else {}


def runs_of_content(
    repo: Path,
    build: Path,
    fmt: str,
    precision: str,
    sha256: str,
    content_sha256: str | None = None,
    results_dir: Path = RESULTS_DIR,
) -> tuple[list[str], list[str]]:
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
        return [], []
    here = Path(build).resolve()
    names = {
        name
        for name, e in entries.items()
        if e.build and Path(e.build).resolve() == here and (e.variant.format, e.variant.precision) == (fmt, precision)
    }
    match: set[str] = set()
    differ: set[str] = set()
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
            (match if all(ours & s for s in shas) else differ).add(str(run.get("run_id") or path.parent.name))
    return sorted(match), sorted(differ)


def _measured_shas(variant: dict) -> set[str]:
    """The digests of the files a sweep's ``results.json`` variant record measured, each file by the one it is compared
    by (``clients.runtimes.identity.compare_files``): its content digest, else (a run saved before them) its SHA-256;
    from its last stamp after a load (``perf.records.measured_files.measured_artifact``, read from the file's fields);
    empty without one."""
    stamps = [s.get("artifact") for s in variant.get("served") or [] if s.get("moment", "after load") == "after load"]
    files = [s for s in stamps if s][-1:]
    return {d for a in files for f in a.get("files") or [] for d in [f.get("content_sha256") or f.get("sha256")] if d}
