"""Whether a run's variants are still the files it measured: the check every command that acts on
a measured variant by name runs first (``triton-perf export-deployment`` of a sweep or of a
co-location run, a resumed sweep or co-location run, the in-process baseline and traces of a run),
so that what is deployed or measured further is exactly what the run's numbers are filed under
("measure exactly what is named", issue 26).

The run's record of the files is the variant's stamp after its load
(:attr:`perf.records.results.VariantResult.served`; a co-location run's
:attr:`perf.records.colocation.ColocationRecord.artifacts`), an
:class:`clients.runtimes.identity.ArtifactIdentity`: each file by size, SHA-256 and content digest
(runs saved before the content digest: by SHA-256; before the hash: by size and mtime). A rebuild of
the model with other weights writes other files under the same variant names; these commands refuse
them with one error naming the files, measured vs now (:func:`refuse_changed`), instead of using a
model the run never measured. A rebuild of the same weights whose TorchScript archive differs in its
bytes only is the same content, and accepted (:func:`clients.runtimes.identity.compare_files`, break-it F10).

Each command checks the files **it** uses (:class:`FileSet`): a resumed run every file that
affects what the server measures (:data:`SERVED`, the toolkit's python-backend ``model.py``
included), a bundle the files it ships (:data:`SHIPPED`: NVIDIA's image serves the artifact with
its native backend, the ``model.py`` is dropped), the baseline and traces the artifact they load in
this process (:data:`LOADED`). An edit of a file a command does not use never refuses it.

Before any of that, a command refuses variants whose model folders are not in the repository at all
(:func:`refuse_missing`: ``make clean`` deleted them, or the run swept another repository): it would
measure or ship nothing the run's numbers are filed under, and must not store an empty result over
what the run holds (trial 8, F21).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from builders.repository.remove import built_words, rebuild_words, restore_words
from builders.repository.view import Repository
from builders.repository.writer import PYTHON_MODEL_FILE
from clients.runtimes.identity import ArtifactIdentity, compare_files, found_artifact
from core.errors import PerfError, ToolkitError
from core.wording import agree
from perf.records.colocation import ColocationRecord
from perf.records.removed_variant import removed_by_build, restore_blocked
from perf.records.results import RunResult, VariantResult
from perf.records.unfinished import resume_hint

#: A record of what a run measured: a sweep's results or a co-location run's record.
Measured = RunResult | ColocationRecord


@dataclasses.dataclass(frozen=True)
class FileSet:
    """Which files of a variant's version folders a command uses: the only ones it compares with
    what the run measured.

    Attributes:
        what: The files in words (``"the files the bundle ships"``), for its messages.
        wrapper: Whether the toolkit's python-backend model (``<version>/model.py`` of a variant
            the index says is python-served) is among them.
        why_not: Why the wrapper is not, in words (said when it is left out of a comparison).
    """

    what: str
    wrapper: bool
    why_not: str = ""

    def uses(self, path: str, serving: str | None) -> bool:
        """Whether the file at ``path`` (in the model folder: ``1/model.py``) of a variant served
        ``serving`` (``"python"``, ``"native"``, ``None``: not indexed) is one of these."""
        return self.wrapper or serving != "python" or path.partition("/")[2] != PYTHON_MODEL_FILE


#: A resumed sweep or co-location run: every file that affects what the server measures.
SERVED = FileSet("every file the server loads", wrapper=True)
#: ``export-deployment``: what the bundle ships (a python-served variant is written for its native backend).
SHIPPED = FileSet(
    "the files the bundle ships",
    wrapper=False,
    why_not="the toolkit's python-backend model, which the bundle does not ship (NVIDIA's image serves the artifact "
    "with its native backend)",
)
#: ``triton-perf baseline`` and traces of a run: the artifact they load in this process.
LOADED = FileSet(
    "the artifact files it loads in-process",
    wrapper=False,
    why_not="the toolkit's python-backend model, which the in-process measurement does not run",
)


@dataclasses.dataclass(frozen=True)
class FilesCheck:
    """How a variant's folder now stands to what a run measured.

    Attributes:
        variant: The variant.
        verdict: ``"same"`` (every file compared has the measured content), ``"changed"``, or ``"not
            verified"`` (the run recorded no content hash, or no files at all).
        lines: The differing files (``changed``), or why it is not verified.
        left_out: Files the run measured that were not compared (the command does not use them), with why.
    """

    variant: str
    verdict: Literal["same", "changed", "not verified"]
    lines: tuple[str, ...] = ()
    left_out: str = ""

    def text(self) -> str:
        """The verdict in one sentence, for a console line or a bundle's README."""
        if self.verdict == "same":
            said = f"the model files of {self.variant} are the ones the run measured (same content)"
        elif self.verdict == "changed":
            said = f"the model files of {self.variant} are not the ones the run measured: {'; '.join(self.lines)}"
        else:
            said = f"the model files of {self.variant} are not verified here: {'; '.join(self.lines)}"
        return said + (f"; not compared: {self.left_out}" if self.left_out else "")


def measured_artifact(vr: VariantResult | None) -> ArtifactIdentity | None:
    """The files the run measured ``vr`` with: the artifact of its last stamp after a load
    (``None``: nothing recorded — a run saved before schema 3, a model the toolkit did not load)."""
    stamps = [s.artifact for s in (vr.served if vr else []) if s.moment == "after load" and s.artifact is not None]
    return stamps[-1] if stamps else None


def stamped(record: Measured) -> dict[str, ArtifactIdentity | None]:
    """Every variant ``record`` loaded, with the files it measured (``None``: none recorded).
    A variant it never loaded is not in it (the commands say so themselves)."""
    if isinstance(record, ColocationRecord):
        return dict(record.artifacts)
    return {v.name: measured_artifact(v) for v in record.variants if v.served}


def _serving(repository: Path, variant: str) -> str | None:
    """How the repository's index says ``variant`` is served (``None``: not indexed)."""
    try:
        return Repository(repository).variant(variant).serving
    except ToolkitError:
        return None


def _only(identity: ArtifactIdentity | None, files: FileSet, serving: str | None) -> ArtifactIdentity | None:
    if identity is None:
        return None
    return dataclasses.replace(identity, files=[f for f in identity.files if files.uses(f.path, serving)])


def check_files(record: Measured, variant: str, repository: Path, files: FileSet) -> FilesCheck:
    """Compare ``files`` of ``repository/variant``'s version folders now with what ``record`` measured.

    Args:
        record: The run (a sweep's results or a co-location record).
        variant: The variant.
        repository: The repository folder the command reads it from.
        files: The files the command uses (:data:`SERVED`, :data:`SHIPPED`, :data:`LOADED`).
    """
    recorded = stamped(record).get(variant)
    if recorded is None:
        return FilesCheck(variant, "not verified", ("the run recorded no identity of the files it measured",))
    serving = _serving(Path(repository), variant)
    kept = _only(recorded, files, serving)
    assert kept is not None
    skipped = sorted({f.path for f in recorded.files} - {f.path for f in kept.files})
    left_out = f"{', '.join(skipped)}, {files.why_not}" if skipped else ""
    now = compare_files(kept, _only(found_artifact(Path(repository) / variant), files, serving))
    if now.changed:
        return FilesCheck(variant, "changed", now.changed, left_out)
    if now.unverified:
        return FilesCheck(
            variant,
            "not verified",
            (
                f"the run recorded {', '.join(now.unverified)} by size and modification time only (no content hash), both unchanged",
            ),
            left_out,
        )
    return FilesCheck(variant, "same", left_out=left_out)


def refuse_changed(
    record: Measured, variants: Iterable[str], repository: Path, doing: str, files: FileSet, allow: str | None = None
) -> list[FilesCheck]:
    """:func:`check_files` of each measured variant; raises when one changed.

    Args:
        record: The run (a sweep's results or a co-location record).
        variants: The variants the command acts on (those the run never loaded, or whose folder
            is gone, are not checked: the command says so itself).
        repository: The repository folder the command reads them from.
        doing: What the command would do with them, for the message (``"bundle"``).
        files: The files the command uses (:class:`FileSet`): the only ones compared.
        allow: The flag that accepts changed files on purpose, named in the hint (``None``: none).

    Returns:
        The checks of the variants the run measured.

    Raises:
        PerfError: a variant's files differ from the measured ones (each file named, measured vs now).
    """
    have = stamped(record)
    checks = [check_files(record, v, repository, files) for v in variants if v in have and (Path(repository) / v).is_dir()]
    changed = [c for c in checks if c.verdict == "changed"]
    if changed:
        what = "; ".join(f"{c.variant}: {'; '.join(c.lines)}" for c in changed)
        restore = restore_words([_params(record, c.variant) for c in changed], agree(len(changed), "it", "them"))
        if blocked := [w for c in changed if (w := restore_blocked(_params(record, c.variant), c.variant, repository))]:
            restore = f"{'; '.join(blocked)}; put back the model files the run measured and run it with --replace"  # F12
        raise PerfError(
            f"the model files in {repository} are not the ones run {record.run_id} measured ({what}): a {doing} of them "
            "would not be what the run's numbers are filed under",
            hint="a rebuild replaced them: "
            + (f"{restore}, then run this command again; or measure" if restore else "measure")
            + " the rebuilt variants in a new run (another --run-id)"
            + ("" if restore else ", or rebuild the model the run measured")
            + (f"; {allow} uses the files as they are now, said in what it writes" if allow else ""),
        )
    return checks


def refuse_missing(
    record: Measured, variants: Iterable[str], repository: Path, doing: str, flag: str = "-r/--repository"
) -> None:
    """Refuse a command on variants of ``record`` whose model folders (a ``config.pbtxt``) are not in
    ``repository``: nothing of what the run measured could be used, and nothing is written.

    Args:
        record: The run (a sweep's results or a co-location record).
        variants: The variants the command acts on.
        repository: The repository folder the command reads them from.
        doing: What the command would do, for the message (``"the in-process baseline"``, ``"a bundle"``).
        flag: The command's flag naming another repository, for the hint.

    Raises:
        PerfError: naming the missing variants, the folder looked in, and what to do.
    """
    repo = Path(repository)
    names = list(dict.fromkeys(variants))
    missing = [v for v in names if not (repo / v / "config.pbtxt").is_file()]
    if not missing:
        return
    listed = ", ".join(missing)
    if len(names) == 1:
        which = f"its variant {listed} is not"
    elif len(missing) == len(names):
        which = f"none of its {len(names)} variants ({listed}) is"
    else:
        which = f"{len(missing)} of its {len(names)} variants ({listed}) {agree(len(missing), 'is', 'are')} not"
    if repo.is_dir():
        where = f"{which} in {repo} (no model folder with a config.pbtxt)"
    else:
        where = f"{which} there: its repository {repo} does not exist"
    swept = _swept(record)
    if swept is not None and swept.resolve() != repo.resolve() and all((swept / v / "config.pbtxt").is_file() for v in missing):
        # the wrong repository was named (coldstart --into -r elsewhere): not a rebuild, the run's own one
        hint = f"pass {flag} {swept} (the repository the run swept, which holds {agree(len(missing), 'it', 'them')})"
    else:
        it, made = agree(len(missing), "it", "them"), [_params(record, v) for v in missing]
        hint = f"{rebuild_words(made, it, _built(record, missing))} (`make clean` deletes variant folders), or pass {flag} with the repository that holds them"
    removed = _removed(record, missing)
    if removed:  # the build folder's manifest tells why: never "make clean", nor a rebuild of other weights (T24-16)
        where += f" ({'; '.join(w for w, _ in removed)})"
        sure = any(s for _, s in removed)
        hint = (
            f"the weights the run measured are needed: `builders build` ({_built(record, missing)}) now builds "
            + ("other weights" if sure else "the model as it is now, which is what the run measured only with its weights")
            + f"; put back the weights (model source) the run measured and build again, or pass {flag} with a repository "
            "that holds the variants as measured"
        )
    raise PerfError(
        f"run {record.run_id}: {where}: "
        + (
            f"nothing the run measured is there for {doing}"
            if len(missing) == len(names)
            else f"{doing} would leave {agree(len(missing), 'it', 'them')} out"
        )
        + "; nothing in the run was changed",
        hint=hint,
    )


def _removed(record: Measured, missing: list[str]) -> list[tuple[str, bool]]:
    """Why the build folders' manifests say ``missing`` are gone, for those they tell it of
    (:func:`perf.records.removed_variant.removed_by_build`); empty for a co-location run."""
    if isinstance(record, ColocationRecord):
        return []
    out = []
    for name in missing:
        vr = record.variant(name)
        art = measured_artifact(vr)
        digests = {Path(f.path).name: (f.sha256, f.content_sha256) for f in (art.files if art else [])}
        why = removed_by_build(vr, digests)
        if why:
            out.append((f"{name}: {why[0]}" if len(missing) > 1 else why[0], why[1]))
    return out


def _swept(record: Measured) -> Path | None:
    """The repository ``record`` says it measured, when it says one."""
    if isinstance(record, ColocationRecord):
        return Path(record.repository) if record.repository else None
    given = record.settings.get("repository")
    return Path(given) if given else None


def _params(record: Measured, variant: str) -> dict | None:
    """The run's record of ``variant``'s build parameters (``None``: a colocation run, or none recorded)."""
    return getattr(record.variant(variant), "params", None) if isinstance(record, RunResult) else None


def _built(record: Measured, variants: list[str]) -> str:
    """How the run's variants were built, in words (the model and build folder of each, as recorded)."""
    if isinstance(record, ColocationRecord):
        return "the models the run served"
    return built_words([_params(record, v) for v in variants], "the model the run measured")


def refuse_reloaded(variant: str, earlier: ArtifactIdentity | None, now: ArtifactIdentity | None, run: str) -> None:
    """Refuse a load of ``variant`` whose files are not the ones an earlier load of the same run
    measured (a rebuild while the run went on, or between its sessions): numbers of two models
    would be filed under one variant.

    Args:
        variant: The variant loaded again.
        earlier: The files its earlier load recorded (``None``: none, nothing to compare).
        now: The files this load sent or found (``None``: not readable here).
        run: What stops, in words (``"the sweep"``).

    Raises:
        PerfError: a file differs (each named, measured vs now).
    """
    changed = compare_files(earlier, now).changed if earlier is not None and now is not None else ()
    if changed:
        raise PerfError(
            f"the model files of {variant} are not the ones an earlier load of this run measured ({'; '.join(changed)}): "
            f"numbers of two models would be filed under one variant, so {run} stops here (what it measured is kept)",
            hint="measure the rebuilt variants in a new run (--run-id NEW)",
        )


def rebuilt_text(run: RunResult) -> str | None:
    """The line a report of ``run`` says when a rebuild replaced the files of variants it measured (:func:`check_files`
    of every file the server loads, in the repository the run swept): which variants, that its numbers stand for the
    files it measured, and that no ``--resume`` of it measures them (trial 22, F-rebuild-runs: ``triton-perf report
    results/kws1`` advised ``--resume kws1 --time-budget 2m``, which was then refused; break-it F11: "a --resume of it is
    refused" of a finished run, whose resume measures nothing and is taken); ``None`` when none changed or the
    repository is not here."""
    repo = Path(str((run.settings or {}).get("repository") or ""))
    if not str(repo) or not repo.is_dir():
        return None
    # every line of a report that would advise a --resume asks (resume_refused): the files are hashed once a state
    seen = (id(run), tuple((f, f.stat().st_mtime_ns) for v in run.variants for f in sorted((repo / v.name).rglob("*"))))
    if _LAST[0] is run and _LAST[1] == seen:
        return _LAST[2]
    said = _rebuilt_text(run, repo)
    _LAST[:] = [run, seen, said]
    return said


#: The last :func:`rebuilt_text`: the run, its files' state, what it said.
_LAST: list = [None, None, None]


def resume_refused(run: RunResult) -> bool:
    """Whether a ``--resume`` of ``run`` is refused since a rebuild replaced files it measured (:func:`rebuilt_text`):
    every line that would advise one asks (break-it F18: a group line of report.md said "`--resume` continues it"
    under the note that the resume is refused)."""
    return rebuilt_text(run) is not None


def finish_words(run: RunResult, results_dir: Path | None) -> str:
    """How an unfinished run is finished, as a hint says it: its resume (:func:`perf.records.unfinished.resume_hint`),
    or a new run where a rebuild replaced files it measured, which refuses a resume (:func:`resume_refused`)."""
    if resume_refused(run):
        return "measure the rebuilt variants in a new run (another --run-id): a --resume of it is refused (a rebuild replaced files it measured)"
    return "finish it first with " + (
        resume_hint(run, results_dir) if results_dir is not None else f"the sweep's `--resume {run.run_id}`"
    )


def _rebuilt_text(run: RunResult, repo: Path) -> str | None:
    have = stamped(run)
    changed = [
        v.name
        for v in run.variants
        if v.name in have and (repo / v.name).is_dir() and check_files(run, v.name, repo, SERVED).verdict == "changed"
    ]
    if not changed:
        return None
    return (
        f"the model files of {', '.join(changed)} in {repo} are not the ones run {run.run_id} measured (a rebuild "
        f"replaced them): its numbers stand for the files it measured, and no --resume of it measures them (one that "
        "would is refused), so no resume is advised here; measure the rebuilt variants in a new run (another --run-id)"
    )
