"""The build's verdict on each swept variant's export, as a run records it when its sweep starts
(``results.json``: :attr:`perf.records.results.VariantResult.build_check`; issue 26).

The report, the console, the conclusions and a deployment bundle say a variant's verdict beside
its name (:mod:`perf.analysis.build_checks`). Read from the repository when the report was written,
a rebuild between the sweep and the report changed the words beside numbers it never measured, and
a repository that could not be read, or no longer held the build, read as ``ok``. Recorded here,
the words are those of the build the sweep measured; a build whose record cannot be read is
"not verified here" (:func:`builders.repository.build_verdict.not_verified_here`), never ``ok``.

A model the toolkit never built has no build to check: a remote server's own model (``--runtime
remote --no-deploy``) that the repository does not list. Its verdict is ``None`` and nothing is
said of it (a run's report says elsewhere that such models are the server's).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pydantic import ConfigDict
from pydantic.dataclasses import dataclass

from builders.repository.build_verdict import BuildVerdict, not_verified_here
from builders.repository.view import Repository, RepositoryVariant
from core.errors import RecordError, RepositoryError


@dataclass(config=ConfigDict(extra="ignore"))
class BuildCheck:
    """The build's verdict on the export one swept variant serves, read when the sweep started.

    Attributes:
        verdict: The verdict when it is not ``ok`` (:class:`builders.repository.build_verdict.BuildVerdict`;
            status ``not_verified_here`` when the build's record could not be read); ``None`` when it is
            ``ok``, or when the toolkit never built the variant (module docstring).
    """

    verdict: BuildVerdict | None = None


def read_checks(
    repository: Repository | Path | str | None, names: Iterable[str], own_models: bool = False
) -> dict[str, BuildCheck]:
    """Each of ``names``' build check, read from ``repository`` (one read of its index and manifests).

    Args:
        repository: The repository the run swept (the sweep's, or ``settings.repository``); ``None``: it names none.
        names: Variant names (model folders).
        own_models: The server measured models it already served (``--runtime remote --no-deploy``): a
            variant the repository does not list is the server's own, with no build to check.
    """
    names = list(names)
    if not repository:
        return {n: BuildCheck(None if own_models else not_verified_here(n, "the run names no repository")) for n in names}
    repo = repository if isinstance(repository, Repository) else Repository(repository)
    return {n: BuildCheck(_verdict(repo, n, own_models)) for n in names}


def _verdict(repo: Repository, name: str, own_models: bool) -> BuildVerdict | None:
    """:func:`read_checks`' verdict on one variant of ``repo``."""
    try:
        rv: RepositoryVariant | None = repo.variant(name)
    except RepositoryError:
        rv = None
    except RecordError as e:
        return not_verified_here(name, f"the repository's index cannot be read ({e.message})")
    if rv is None or rv.entry is None or rv.params is None:
        where = f"{repo.path} holds no build of it" if repo.path.is_dir() else f"the repository {repo.path} is not there"
        return None if own_models else not_verified_here(name, where)
    export = f"{rv.params.format} {rv.params.precision}"
    try:
        if rv.export is None:
            return not_verified_here(export, f"{repo.path} no longer holds its build's record")
        return rv.build_verdict
    except RecordError as e:
        return not_verified_here(export, f"its build manifest cannot be read ({e.message})")
