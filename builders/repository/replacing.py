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

from collections.abc import Iterable
from pathlib import Path

from builders.config.variants import Variant
from builders.export.artifacts import ExportResult, file_sha256
from builders.export.content import same_content
from builders.repository.build_folder import OtherModel
from builders.repository.measured_runs import (
    RESULTS_DIR,
    measured_words,
    measuring_runs,
    where_runs,
)
from builders.repository.records import BuildManifest, ExportRecord, IndexEntry
from builders.repository.run_stamps import file_digests, runs_losing
from builders.repository.writer import VERSION, read_index_entries, stale_variants
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
        then = {k: x for k, x in old.params.items() if k not in ("build", "build_command")}
        now = {k: x for k, x in new.params.items() if k not in ("build", "build_command")}
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
    repo: Path,
    build: Path,
    exports: Iterable[ExportResult],
    written: Iterable[str],
    other: OtherModel | None = None,
    earlier: Path | None = None,
    results_dir: Path = RESULTS_DIR,
) -> None:
    """Refuse a build that would remove variants of ``repo`` a run in ``results_dir`` measured, or write over them
    with other content than the runs measured. Removed: variants of build folder ``build`` this build does not write
    (another grid: ``--max-batch-sizes``, counts, batching) whose export it redid into another file
    (:func:`builders.repository.writer.stale_variants`; re-check 19, NEW-3: a build for max batch size 16 removed four
    measured ``*_mbs8`` variants, and their runs could no longer be bundled), and, when the earlier build was of another
    model (``other``), those of an export it does not record (not redone, or redone and failed under another spec).
    Written over: variants it writes again from an export of other content (other weights or source, another plan:
    trial 24, T24-16), that a run measured as they are now (:func:`builders.repository.run_stamps.runs_losing`). The same of the repository the
    earlier build wrote (``earlier``, when another), whose variants of this build folder a build removes the same way
    (:func:`builders.repository.writer.drop_stale_variants`). Called once the exports are made and before anything is
    moved in or written: the build folder and the repositories stay as they were.

    Raises:
        ConfigError: one or more measured variants would be removed or written over; it names them and the runs, and
            ``--name``, what made them and ``--replace``.
    """
    exports, written = list(exports), list(written)
    folders = [(Path(repo), written)]
    if earlier is not None and Path(earlier).is_dir() and Path(earlier).resolve() != Path(repo).resolve():
        folders.append((Path(earlier), []))
    for folder, done in folders:
        _refuse_losing(folder, build, exports, done, other, results_dir)


def _refuse_losing(
    repo: Path, build: Path, exports: list[ExportResult], written: list[str], other: OtherModel | None, results_dir: Path
) -> None:
    """:func:`refuse_removing` of one repository."""
    lost = stale_variants(repo, build, exports, written)
    runs = measuring_runs(repo, lost, results_dir)
    grid = set(lost)  # the earlier grid's: the others would serve another model
    if other is not None:
        gone = stale_variants(repo, build, exports, written, other.recorded)
        dropped = {n: _dropped_why(repo, n, other) for n in gone if n not in lost}
        lost.update(dropped)
        runs.update(measuring_runs(repo, dropped, results_dir))
    over = _written_over(repo, build, exports, list(measuring_runs(repo, written, results_dir)))  # measured ones only
    lost.update({n: why for n, (why, _new) in over.items()})
    runs.update(runs_losing(repo, {n: new for n, (_why, new) in over.items()}, results_dir))
    if not runs:
        return
    hint = (
        _OTHER_MODEL_HINT
        if set(runs) - grid
        else "build with a grid that keeps them (their --max-batch-sizes, --instance-counts and --dynamic-batching values "
        "too), or build this one under another model name with --name OTHER (its own build folder: these stay); or "
        "pass --replace to remove them"
    )
    verb = "remove" if not set(runs) & set(over) else "write over" if set(runs) <= set(over) else "remove or write over"
    raise _refusal(repo, verb, {n: lost[n] for n in sorted(runs)}, runs, "nothing was written", hint, results_dir)


#: What a refusal of measured variants of another model's build says to do (:func:`refuse_removing`,
#: :func:`refuse_other_weights`).
_OTHER_MODEL_HINT = (
    "build the model they measured again (its weights, source and spec) to keep them, or build this one under another "
    "model name with --name OTHER (its own build folder: these stay; a build into another --repository from this build "
    "folder would remove them); or pass --replace to replace them (the build's lines name the runs again)"
)


def refuse_other_weights(repo: Path, build: Path, old: BuildManifest, weights: str, results_dir: Path = RESULTS_DIR) -> None:
    """Refuse, before any export, a build of other weights (``weights``: this build's ``weights_sha256_16``) than the
    earlier build ``old`` of build folder ``build``, when a run in ``results_dir`` measured a variant of ``repo`` that
    build wrote as it is now (:func:`builders.repository.run_stamps.runs_losing`): every one of them is written over with an export of the new weights
    or removed (an earlier record of another model is dropped), and those runs would describe a model no longer there
    (trial 24, T24-16: a retrained model, built again the same way, replaced and removed the variants four runs had
    measured). The words and ``--replace`` of :func:`refuse_removing`, which refuses the same after the exports for a
    change found only then (another source file, spec or plan of the same weights).

    Raises:
        ConfigError: one or more measured variants would be written over or removed; nothing was exported or written.
    """
    if old.weights_sha256_16 == weights:
        return
    folders = [Path(repo)] + ([Path(old.repository)] if old.repository and Path(old.repository).is_dir() else [])
    for folder in dict.fromkeys(f.resolve() for f in folders):
        _refuse_other_weights(Path(repo) if folder == Path(repo).resolve() else folder, build, old, weights, results_dir)


def _refuse_other_weights(repo: Path, build: Path, old: BuildManifest, weights: str, results_dir: Path) -> None:
    """:func:`refuse_other_weights` of one repository (this build's, or the one the earlier build wrote)."""
    try:
        entries = read_index_entries(repo)
    except RecordError:
        return
    here = Path(build).resolve()
    names = [n for n, e in entries.items() if e.build and Path(e.build).resolve() == here and (repo / n).is_dir()]
    runs = runs_losing(repo, {n: set() for n in names}, results_dir)
    if not runs:
        return
    served = {(e.format, e.precision): e for e in old.exports if isinstance(e, ExportRecord)}
    lost = {}
    for name in sorted(runs):
        pair = (entries[name].variant.format, entries[name].variant.precision)
        record = served.get(pair)
        was = (record.other_model or {}).get("weights_sha256_16") if record else None
        lost[name] = (
            f"it serves the earlier build's {' '.join(pair)} export, of weights_sha256_16 {was or old.weights_sha256_16}; "
            f"this build's weights are {weights}"
        )
    verb = "write over or remove"
    raise _refusal(repo, verb, lost, runs, "nothing was exported or written", _OTHER_MODEL_HINT, results_dir)


def build_runs(repo: Path, build: Path, results_dir: Path = RESULTS_DIR) -> list[str]:
    """The runs in ``results_dir`` that measured a variant of ``repo`` written from build folder ``build``, sorted: a
    build of another source into it (``--force``) writes over or removes them all, refused then unless ``--replace``."""
    try:
        entries = read_index_entries(repo)
    except RecordError:
        return []
    here = Path(build).resolve()
    names = [n for n, e in entries.items() if e.build and Path(e.build).resolve() == here and (repo / n).is_dir()]
    return sorted({r for ids in measuring_runs(repo, names, results_dir).values() for r in ids})


def _refusal(
    repo: Path, verb: str, lost: dict[str, str], runs: dict[str, list[str]], tail: str, hint: str, results_dir: Path
) -> ConfigError:
    """The one error of a build refused because it would ``verb`` measured variants (``lost``: why each, ``runs``: the
    runs that measured each)."""
    shown = "; ".join(f"{name} ({why}; measured by run {', '.join(runs[name])})" for name, why in lost.items())
    measured = sorted({r for ids in runs.values() for r in ids})
    return ConfigError(
        f"this build would {verb} {count(len(lost), 'variant')} of {repo} that runs measured: {shown}; "
        f"{agree(len(measured), 'the run', 'the runs')} {', '.join(measured)} in {where_runs(repo, results_dir)} could no "
        f"longer be bundled or compared with what was measured; {tail}",
        hint=hint,
    )


def _dropped_why(repo: Path, name: str, other: OtherModel) -> str:
    """Why variant ``name`` of ``repo`` would be removed by a build whose earlier build was of another model."""
    try:
        v = read_index_entries(repo)[name].variant
    except (RecordError, KeyError):
        return f"the earlier build was of another model (it differs in {', '.join(other.differs)})"
    done = "failed to export" if (v.format, v.precision) in other.failed else "does not export"
    return (
        f"the earlier build was of another model (it differs in {', '.join(other.differs)}) and this build {done} its "
        f"{v.format} {v.precision} again: no record would describe what it serves, so it would be removed"
    )


def _written_over(repo: Path, build: Path, exports: list[ExportResult], written: list[str]) -> dict[str, tuple[str, set[str]]]:
    """The variants of ``repo`` of build folder ``build`` that this build writes again (``written``) from an export of
    other content than the file they serve: ``{variant: (why, the new file's digests)}``."""
    try:
        entries = read_index_entries(repo)
    except RecordError:
        return {}
    by_pair = {(r.format, r.precision): r for r in exports}
    here, out = Path(build).resolve(), {}
    for name in written:
        e = entries.get(name)
        new = by_pair.get((e.variant.format, e.variant.precision)) if e and e.build and Path(e.build).resolve() == here else None
        served = repo / name / VERSION / new.path.name if new else None
        if new is None or served is None or not served.is_file() or same_content(served, new.path):
            continue
        digests = file_digests(new.path)
        out[name] = (
            f"this build writes it again from its {new.format} {new.precision} export, of other content ({new.path.name} "
            f"sha256 {file_sha256(served)[:12]} -> {new.sha256()[:12]})",
            digests,
        )
    return out


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
