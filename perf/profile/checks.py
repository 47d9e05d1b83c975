"""Checks the in-process baseline and its traces run on a run's variants before they store anything
(trial 8, F21: after ``make clean`` the baseline of a run measured nothing, exited 0 and stored an
empty record over the run's note): which repository and variants they act on, and a refusal of a
result that measured nothing. :func:`perf.records.measured_files.refuse_missing` refuses variants
that are not in the repository at all, and :func:`refuse_unusable` those and rebuilt ones together, before anything
is said of what would be measured (trial 26, T26-15)."""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from pathlib import Path

from core.errors import PerfError
from core.names import require_known
from perf.profile.timing import cut_for_time
from perf.records.baseline import BaselineResult
from perf.records.measured_files import LOADED, refuse_changed, refuse_missing
from perf.records.results import RunResult


def run_repository(run: RunResult, repository: Path | None = None) -> Path:
    """The repository a command on ``run``'s variants reads: ``repository``, else the one the run swept.

    Raises:
        PerfError: neither is known.
    """
    if repository is not None:
        return Path(repository)
    if not run.settings.get("repository"):
        raise PerfError(f"run {run.run_id} does not record its repository", hint="pass -r/--repository", flag="--repository")
    return Path(run.settings["repository"])


def acted_on(run: RunResult, patterns: Sequence[str] = (), repository: Path | None = None) -> list[str]:
    """The variants of ``run`` a baseline (or its traces) of it measures: its measured ones, or
    those of them ``patterns`` (``--variants``) match; a plain name matching none of them is kept
    as given (the repository is then asked for it).

    Args:
        run: The sweep.
        patterns: ``--variants``: names or fnmatch patterns.
        repository: The repository the command reads; a plain name that is neither a variant of
            the run nor a model folder there is a typo (:func:`core.names.require_known`).

    Raises:
        FlagError: a plain name of ``patterns`` is neither the run's nor in ``repository`` (the
            close name and the run's variants named; it was told to rebuild it, trial 8).
    """
    ok = [v.name for v in run.variants if v.status == "ok"]
    if not patterns:
        return ok
    hits = [n for n in ok if any(fnmatch.fnmatchcase(n, p) for p in patterns)]
    plain = [p for p in patterns if not any(c in p for c in "*?[") and p not in hits]
    if repository is not None:
        known = [v.name for v in run.variants]
        require_known(
            "--variants",
            [p for p in plain if p not in known and not (Path(repository) / p / "config.pbtxt").is_file()],
            known,
            kind="variant",
            owner=f"run {run.run_id}",
        )
    return hits + plain


#: What the baseline and the traces of a run do with its artifacts, in :func:`refuse_unusable`'s refusals.
BASELINE_DOING = ("the in-process baseline", "baseline filed under the run")
TRACES_DOING = ("the traces and the precision study", "trace filed under the run")


def refuse_unusable(run: RunResult, patterns: Sequence[str], repository: Path, doing: tuple[str, str]) -> None:
    """Refuse an in-process measurement of ``run`` (``doing``: :data:`BASELINE_DOING` or :data:`TRACES_DOING`) whose
    variants are gone from ``repository`` (:func:`perf.records.measured_files.refuse_missing`) or whose artifacts a
    rebuild replaced (:func:`~perf.records.measured_files.refuse_changed`): the one check, made by the command before
    it says an estimate, and again where it measures (trial 26, T26-15: a promise said before the refusal).

    Raises:
        PerfError: naming the variants missing, or the files changed (measured vs now).
    """
    refuse_missing(run, acted_on(run, patterns, repository), repository, doing[0])
    refuse_changed(run, [v.name for v in run.variants], repository, doing[1], LOADED)


#: What a baseline its time budget cut before any point is told to do.
OUT_OF_TIME_HINT = "the time budget ran out before a point was timed: a --time-budget of at least its estimate (said first), or none, measures it"


def refuse_nothing_measured(result: BaselineResult, kept: str, none: str = "no variant to measure") -> BaselineResult:
    """Refuse a baseline in which no point was measured (every variant left out, failed or not
    runnable here): one error with the reasons, instead of an empty table stored as a result.

    Args:
        result: The baseline just measured.
        kept: What stays as it was, in words (``"run r1's results.json keeps what it held"``).
        none: Why, when it planned no variant at all.

    Returns:
        ``result``, when a point of it was measured.

    Raises:
        PerfError: no point of ``result`` was measured.
    """
    if any(p.ok for p in result.points):
        return result
    reasons = list(
        dict.fromkeys([*result.notes, *(f"{p.key.model} {p.key.format}: {p.status}: {p.reason}" for p in result.points)])
    )
    timed_out = [r for r in reasons if cut_for_time(r)]
    hints = [OUT_OF_TIME_HINT] if timed_out else []  # re-check 14, NEW-5: a time cut was told of build records and GPUs
    if len(timed_out) < len(reasons) or not reasons:
        hints.append(
            "fix what the reasons name (a variant without its build record: rebuild it; a GPU variant: run it on a host "
            "with a GPU), or choose variants this host can run with --variants"
        )
    raise PerfError(f"the in-process baseline measured nothing ({'; '.join(reasons) or none}); {kept}", hint="; ".join(hints))
