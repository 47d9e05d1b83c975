"""The build's verdict on a pick's export, read from the repository a run swept (trial 13, T13-10):
the one function every place that names a variant as the pick or the bundle reads it through
(:attr:`perf.analysis.recommendation.choice.Choice.build_verdict`)."""

from __future__ import annotations

from builders.repository.build_verdict import BuildVerdict
from builders.repository.view import Repository
from core.errors import RecordError, RepositoryError
from perf.records.results import RunResult
from perf.records.workloads import variant_name


def pick_verdict(run: RunResult, name: str) -> BuildVerdict | None:
    """The build's verdict on the export of ``name`` (a variant of ``run``, or a series of one:
    :func:`perf.records.workloads.variant_name`) when it is not ``ok``, from the build manifest of
    the repository the run swept (``settings.repository``):
    :attr:`builders.repository.view.RepositoryVariant.build_verdict`. ``None`` when it is ``ok``,
    or the run names no repository, or the repository no longer holds the variant or its build."""
    vr, repository = run.variant(name), run.settings.get("repository")
    if vr is None or not repository:
        return None
    try:
        return Repository(repository).variant(variant_name(vr)).build_verdict
    except (RepositoryError, RecordError):
        return None
