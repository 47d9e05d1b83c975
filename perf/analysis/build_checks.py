"""The build's verdict on a run's variant, and the one wording every place that names a variant as a
pick, a tie-set member, a runner-up, a higher median or the conclusions' other named variants says it
with (trial 13, T13-10; issue 26: an fp32 pick beside two fp16 variants of its tie set, one of them
"the median is higher", with no word of their fp16 never checked).

The verdict is the one the run recorded when its sweep started (:mod:`perf.records.build_check`); a run
saved before it was recorded falls back to its repository as it is now (``settings.repository``), read
once per run (:func:`_read`).
"""

from __future__ import annotations

import functools

from builders.repository.build_verdict import BuildVerdict
from perf.records.build_check import BuildCheck, read_checks
from perf.records.results import RunResult
from perf.records.workloads import variant_name


def run_verdict(run: RunResult, name: str) -> BuildVerdict | None:
    """The build's verdict on the export of ``name`` (a variant of ``run``, or a series of one:
    :func:`perf.records.workloads.variant_name`) when it is not ``ok``: the run's record of it, else
    (a run saved before it was recorded) its repository's now; "not verified here" when neither could be
    read (:func:`builders.repository.build_verdict.not_verified_here`). ``None`` when it is ``ok``, the run
    has no such variant, or the toolkit never built it (:mod:`perf.records.build_check`)."""
    vr = run.variant(name)
    if vr is None:
        return None
    if vr.build_check is not None:
        return vr.build_check.verdict
    repository, own = run.settings.get("repository") or "", _own_models(run)
    checks, of = _read(run.run_id, run.created, repository, own), variant_name(vr)
    if of not in checks:  # the run's variants, read together the first time one is asked for
        names = {variant_name(v) for v in run.variants if v.build_check is None} - set(checks)
        checks.update(read_checks(repository or None, sorted(names | {of}), own))
    return checks[of].verdict


def notes(run: RunResult, name: str) -> list[str]:
    """What a console note beside ``name`` says of its build, ``["build: onnx fp16 not verified in fp16 on
    this host"]`` (:meth:`builders.repository.build_verdict.BuildVerdict.short`); ``[]`` when it is ``ok``."""
    verdict = run_verdict(run, name)
    return [verdict.short()] if verdict else []


def named(run: RunResult | None, name: str) -> str:
    """```name``` as a sentence names a variant beside a pick (a tie-set member, a runner-up, a higher
    median), with its build's verdict when it is not ``ok``: ```b` (build: onnx fp16 not verified in fp16
    on this host)``; without a run, the name alone."""
    said = notes(run, name) if run is not None else []
    return f"`{name}`" + "".join(f" ({w})" for w in said)


def _own_models(run: RunResult) -> bool:
    """The run measured the models a remote server already served (``--no-deploy``)."""
    server = run.settings.get("server") or {}
    return server.get("runtime") == "remote" and server.get("deploy") is False


@functools.lru_cache(maxsize=8)
def _read(run_id: str, created: str, repository: str, own_models: bool) -> dict[str, BuildCheck]:
    """The checks read from the repository of a run saved before they were recorded, by variant, filled
    as :func:`run_verdict` reads them: one read per run (its views, split by workload, share it)."""
    return {}
