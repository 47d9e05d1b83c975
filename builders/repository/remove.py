"""``builders remove NAME``: remove one model from a repository — its variant folders, its build folder and its index
entries — by what the repository's ``index.json`` records, never by a shell glob (s22z, Z-12: the README's
``rm -rf model_repository/NAME_{ts,onnx,trt}[_-]* builds/NAME`` is bash-only; under ``sh`` it removed the build
folder and no variant folder, under zsh nothing).

A variant is the model's when its index entry's ``model`` is ``NAME`` exactly (``net`` never takes ``net_v2``'s
variants); only folders the index lists are deleted, and a build folder only when the index entries of ``NAME`` name
it, its ``manifest.json`` is of ``NAME``, no other repository it records (every one a build of it wrote into) still
lists variants built from it (trial 29, T29-10; s23r, M2), it records every one since the folder's first build (s24c: a
list begun from a manifest written before it, or an unreadable one, keeps it, naming a repository beside them that uses
it if one does), no other model's entry names it and no build is at work in it. Nothing is removed while a run still being written measures one of the variants
(:func:`builders.repository.measured_runs.live_runs`; T29-7). The runs that measured each removed variant are named in
the words of ``builders prune`` and ``make clean`` (:func:`builders.repository.measured_runs.removal_lines`).

How to rebuild variants removed, in the one wording every command uses (:func:`rebuild_words`): the command that built
them, as typed and recorded (``build_command``: each index entry holds it, and a run copies it into its variants'
params), else ``builders build`` with what is known and what the user must give (trial 27, T27-12: "rebuild it with
`builders build`" could not be followed once the build folder and its spec were gone; s22z, Z-5: ``builders validate``
and ``clients check`` said it although the index held the command).
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from builders.repository.build_lock import build_folder_lock, holder, repository_lock
from builders.repository.measured_runs import live_runs, live_words, removal_lines
from builders.repository.missing import empty_repository, repository_not_found
from builders.repository.records import INDEX_FILE, INDEX_KIND, MANIFEST_FILE, MANIFEST_KIND, IndexEntry, RepositoryIndex
from core.errors import BuildBusyError, RecordError, RepositoryError
from core.names import close_names
from core.records import load_record, write_record
from core.wording import agree, count


@dataclasses.dataclass
class Removal:
    """What :func:`remove_model` deletes (or, with ``dry_run``, would delete).

    Attributes:
        model: The model removed.
        repository: Its repository.
        folders: The variant folders deleted (those of its index entries that are there).
        entries: The index entries dropped: every one of the model (those whose folder was gone too).
        builds: The build folders deleted.
        kept: The build folders its entries name that are kept, each with why.
        runs: The runs that measured the variants removed, one line each (``builders prune``'s words).
    """

    model: str
    repository: Path
    folders: list[Path] = dataclasses.field(default_factory=list)
    entries: list[str] = dataclasses.field(default_factory=list)
    builds: list[Path] = dataclasses.field(default_factory=list)
    kept: list[str] = dataclasses.field(default_factory=list)
    runs: list[str] = dataclasses.field(default_factory=list)


def plan_removal(repo: Path, model: str, flag: str = "NAME", *, dry_run: bool = False) -> Removal:
    """What removing ``model`` from ``repo`` deletes, deleting nothing (``builders remove --dry-run``: ``dry_run``, its
    runs lines say what the removal would cost, :func:`builders.repository.measured_runs.removal_lines`).

    Raises:
        RepositoryError: ``repo`` is not there or has no index, the index cannot be read, ``model`` is none of its
            models (they are named, with the closest), or a build is at work in its build folder.
    """
    repo = Path(repo)
    if not repo.is_dir():
        raise repository_not_found(repo)
    if not (repo / INDEX_FILE).is_file():
        raise empty_repository(repo, f"has no {INDEX_FILE}: no `builders build` wrote into it, so no model is recorded")
    index: RepositoryIndex = load_record(repo / INDEX_FILE, INDEX_KIND)
    entries = index.entries()
    mine = {n: e for n, e in entries.items() if e.variant.model == model}
    if not mine:
        raise _unknown(repo, model, entries, flag)
    out = Removal(model, repo, entries=sorted(mine))
    if live := live_runs(repo, out.entries):  # before any build folder is judged: nothing of a run at work goes
        raise RepositoryError(
            live_words(live, "nothing removed"),
            hint=f"wait for {agree(len(live), 'it', 'them')} to end, or stop {agree(len(live), 'it', 'them')} (Ctrl-C: "
            f"a run keeps what it measured), then run `builders remove {model}` again",
        )
    out.folders = [repo / n for n in sorted(mine) if Path(n).name == n and (repo / n).is_dir()]
    others = {Path(e.build).resolve() for n, e in entries.items() if n not in mine and e.build}
    for build in sorted({Path(e.build) for e in mine.values() if e.build}):
        why = _keep_build(build, model, others, repo)
        if why:
            out.kept.append(f"{build}: {why}")
        else:
            out.builds.append(build)
    out.runs = [f"{n}: {w}" if n else w for n, w in removal_lines(repo, out.entries, dry_run=dry_run)]
    return out


def remove_model(repo: Path, model: str, *, dry_run: bool = False, flag: str = "NAME") -> Removal:
    """Remove ``model`` from ``repo``: its variant folders, its index entries and its build folder
    (:func:`plan_removal`); ``dry_run``: delete nothing, return what would go.

    Raises:
        RepositoryError: as :func:`plan_removal`.
    """
    if not Path(repo).is_dir():  # before the lock, which opens it (trial 29, T29-9: a traceback, not this error)
        raise repository_not_found(Path(repo))
    with repository_lock(Path(repo)):  # a build's index update waits: neither loses the other's change
        out = plan_removal(repo, model, flag, dry_run=dry_run)
        if dry_run:
            return out
        for folder in out.folders:
            shutil.rmtree(folder)
        path = Path(repo) / INDEX_FILE
        index: RepositoryIndex = load_record(path, INDEX_KIND)
        kept = [e for e in index.variants if e.name not in set(out.entries)]
        write_record(path, INDEX_KIND, RepositoryIndex(variants=kept, skipped=index.skipped))
    for build in list(out.builds):  # each under its build lock; one not deleted is said kept, with why (s23r, m4)
        if why := _delete_build(build, model):
            out.builds.remove(build)
            out.kept.append(f"{build}: {why}")
    return out


def _delete_build(build: Path, model: str) -> str | None:
    """Delete build folder ``build`` of ``model`` under its build lock; ``None`` when done, else why it is (partly) left:
    a build of it started since the plan, or a file that could not be deleted (s23r, m4: ``ignore_errors`` hid it while
    ``builders remove`` said "deleted")."""
    try:
        with build_folder_lock(build, model):
            shutil.rmtree(build)
    except BuildBusyError:
        return f"a build started in it after the check (pid {holder(build) or 'unknown'}); it is that build's now"
    except OSError as e:
        return f"could not be deleted ({e.strerror or e}: {e.filename}), what is left stays; delete it by hand (`rm -r {build}`)"
    return None


def _keep_build(build: Path, model: str, others: set[Path], repo: Path) -> str | None:
    """Why build folder ``build`` of ``model``'s index entries in ``repo`` is kept (``None``: it is deleted): also while
    another repository its manifest records (every one a build of it wrote into) lists variants built from it, and
    when that record is not complete (``repositories_complete``: a repository beside them that lists variants built
    from it is named then) (trial 29, T29-10, and s23r, M2: removing the model from one repository
    deleted the build folder whose exports and reference data another repository's variants use)."""
    if not build.is_dir():
        return "already gone"
    if build.resolve() in others:
        return "another model's index entries name it too"
    if pid := holder(build):
        raise RepositoryError(
            f"a build is at work in {build} (pid {pid}): nothing removed",
            hint=f"run `builders remove {model}` again when it ends",
        )
    try:
        manifest = load_record(build / MANIFEST_FILE, MANIFEST_KIND) if (build / MANIFEST_FILE).is_file() else None
    except RecordError as e:
        return f"its {MANIFEST_FILE} cannot be read ({e.message}); delete it yourself if it is {model}'s"
    if manifest is None:
        return f"it holds no {MANIFEST_FILE}, so no build of {model} is recorded there; delete it yourself if it is {model}'s"
    if manifest.model != model:
        return f"its {MANIFEST_FILE} is of model {manifest.model!r}, not {model!r}"
    here = Path(repo).resolve()
    recorded = [Path(r).resolve() for r in manifest.repositories or [manifest.repository or ""] if r]
    known = manifest.repositories_complete
    for other in recorded if known else [*recorded, *_beside([here, *recorded])]:
        if other != here and (why := _used_by(build, model, other, known, other in recorded)):
            return why
    if not known:  # s24c: a list begun from a manifest that had none looked complete, and the folder was deleted
        return _not_known(build, manifest.repository, recorded)
    return None


def _beside(repositories: list[Path]) -> list[Path]:
    """The repositories (folders holding an ``index.json``) beside ``repositories``, in their parent folders, not among
    them: where an earlier repository of a build folder whose manifest does not record them all is looked for (a parent
    folder that cannot be listed is passed over: the folder is kept anyway)."""
    found: set[Path] = set()
    for parent in dict.fromkeys(r.parent for r in repositories):
        try:
            found |= {p.resolve() for p in parent.iterdir() if (p / INDEX_FILE).is_file()}
        except OSError:
            continue
    return sorted(found - set(repositories))


def _not_known(build: Path, latest: str | None, recorded: list[Path]) -> str:
    """Why ``build`` is kept when its manifest does not record every repository built from it (none looked in names it)."""
    which = (
        f"the repositories built from it only since a build made from a {MANIFEST_FILE} that did not record them "
        f"({', '.join(str(r) for r in recorded)})"
        if len(recorded) > 1
        else f"only the latest repository built from it ({latest or 'none'})"
    )
    return (
        f"its {MANIFEST_FILE} records {which}, not the earlier ones, so another repository may still use it (none beside "
        f"{agree(len(recorded), 'it', 'them')} lists variants built from it); delete it by hand (`rm -r {build}`) if none does"
    )


def _used_by(build: Path, model: str, other: Path, known: bool, recorded: bool) -> str | None:
    """Why ``build`` is kept while repository ``other`` (one its manifest records, ``recorded``, or one beside them) has
    index entries naming it; ``None`` when it has none (or no index, or an unreadable one beside). ``known``: the
    manifest records every repository built from it, so removing the model from ``other`` deletes the folder when no
    other one names it."""
    try:
        index: RepositoryIndex | None = load_record(other / INDEX_FILE, INDEX_KIND) if (other / INDEX_FILE).is_file() else None
    except RecordError as e:
        if not recorded:  # one beside, perhaps never built from it: the folder is kept anyway (not known)
            return None
        return f"{other}, which a build of it wrote into, has an {INDEX_FILE} that cannot be read ({e.message})"
    named = [n for n, e in (index.entries() if index else {}).items() if e.build and Path(e.build).resolve() == build.resolve()]
    if not named:
        return None
    then = " and then this folder" if known else ""
    return (
        f"the {INDEX_FILE} of another repository, {other}, lists {count(len(named), 'variant')} built from it; "
        f"`builders remove {model} -r {other}` removes them from that repository too{then}, or "
        f"delete it by hand (`rm -r {build}`) if that repository no longer needs it"
    )


def _unknown(repo: Path, model: str, entries: dict[str, IndexEntry], flag: str) -> RepositoryError:
    """The error for ``model``, which no entry of ``repo``'s index is of: its models named, and the closest."""
    models = sorted({e.variant.model for e in entries.values()})
    close = [entries[model].variant.model] if model in entries else close_names(model, models, n=1)  # a variant's name
    mean = f" (did you mean {close[0]!r}?)" if close else ""
    listed = ", ".join(models) if models else "none"
    return RepositoryError(
        f"no model {model!r} in {repo / INDEX_FILE}{mean}",
        hint=f"give a model name it records: {listed} (a model's name, not a variant's: `net`, not `net_onnx_*`)",
        flag=flag,
    )


def rebuild_words(params: Iterable[Mapping[str, Any] | None], it: str, built: str, recorder: str = "the run") -> str:
    """How to rebuild variants whose records are ``params`` (a run's variants' params, or index entries'): the
    commands that built them as ``recorder`` recorded them, else ``builders build`` with ``built`` (the model and
    build folder) and what the user must give; ``it``: ``"it"`` or ``"them"``."""
    commands = list(dict.fromkeys(str(p["build_command"]) for p in params if p and p.get("build_command")))
    if commands:
        return f"rebuild {it} with the command that built {it}, as {recorder} recorded it: " + " and ".join(
            f"`{c}`" for c in commands
        )
    return (
        f"rebuild {it} with `builders build` ({built}; {recorder} recorded no build command: give the model source and "
        "the spec it was built with, `builders spec --build FOLDER` prints the spec while its build folder is there)"
    )


def restore_words(params: Iterable[Mapping[str, Any] | None], it: str) -> str | None:
    """The builds that restore variants a rebuild replaced since a run measured them (``params``: the run's record of
    each): each command as the run recorded it, with ``--serving`` as measured and ``--replace`` (README: "prints the
    build ... that restores it"; trial 30, F6: only a removed variant's refusal printed it); ``None`` when the run
    recorded no command."""
    commands = []
    for p in params:
        if not p or not p.get("build_command"):
            continue
        words = str(p["build_command"]).split()
        if p.get("serving") and not any(w == "--serving" or w.startswith("--serving=") for w in words):
            words += ["--serving", str(p["serving"])]
        commands.append(" ".join(words + ([] if "--replace" in words else ["--replace"])))
    if not commands:
        return None
    return f"restore {it} as the run measured {it} with " + " and ".join(f"`{c}`" for c in dict.fromkeys(commands))


def built_words(params: Iterable[Mapping[str, Any] | None], none: str = "the model they were built from") -> str:
    """How variants were built, in words: the model and build folder of each, as recorded (``"model `net`, built into
    /p/builds/net"``); ``none`` when no record names a model."""
    built: dict[str, str | None] = {}
    for p in params:
        if p and p.get("model"):
            built.setdefault(str(p["model"]), p.get("build"))
    if not built:
        return none
    return "; ".join(f"model `{m}`, built into {b}" if b else f"model `{m}`" for m, b in built.items())


def entries_rebuild_words(repo: Path, entries: Iterable[IndexEntry]) -> str:
    """:func:`rebuild_words` of index entries of ``repo``: the commands its ``index.json`` recorded."""
    params = [e.params for e in entries]
    it = "it" if len(params) == 1 else "them"
    return rebuild_words(params, it, built_words(params), f"{Path(repo) / INDEX_FILE}")
