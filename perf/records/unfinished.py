"""What a run that did not finish holds, in words: one sentence for every place that uses a run
(report.md's opening and Recommendation, ``triton-perf compare``, ``export-deployment`` and its
bundle's README), so that an interrupted run is never read as a finished one.

A run has not finished when its ``results.json`` has no ``finished`` time: it was interrupted
(Ctrl-C, a killed process, a lost server) or is still running. Its numbers are what was measured
before it stopped; :func:`resume_command` goes on from there (README, "Resume").
"""

from __future__ import annotations

import shlex
from pathlib import Path

from core.wording import count, of, some_of
from perf.records.results import RunResult
from perf.records.resumed import resumed_budget

#: How many names a sentence lists before counting the rest.
NAMED = 4


def _names(names: list[str]) -> str:
    return some_of([f"`{n}`" for n in names], NAMED)


def holds_text(run: RunResult) -> str:
    """What the run measured: ``"1 visit in 1 round; numbers for 1 of 4 variants (1 of them
    part-measured: `a`), 2 not measured (`b`, `c`), 1 cut for time (`d`)"`` (a sequential run
    counts its measured levels instead of visits). Every variant is in one group, so the counts add
    up to the run's (trial 19, T19-13: a variant cut for time was in none): numbers, not measured
    yet, cut for time, skipped for another reason (its record says why), failed."""
    if run.rounds is not None:
        visits = sum(len(r.order) for r in run.rounds.rounds)
        done = f"{count(visits, 'visit')} in {count(len(run.rounds.measured()), 'round')}"
    else:
        done = count(sum(1 for v in run.variants for lv in v.levels if lv.ok), "measured level")
    have = [v.name for v in run.variants if any(lv.ok for lv in v.levels)]
    text = f"{done}; numbers for {of(len(have), len(run.variants), 'variant')}"
    part = [v.name for v in run.variants if v.status == "pending" and v.name in have]
    if part:
        text += f" ({len(part)} of them part-measured: {_names(part)})"
    groups: dict[str, list[str]] = {}
    for v in run.variants:
        if v.name not in have:
            groups.setdefault(_without_numbers(v.status, v.error), []).append(v.name)
    for label in _GROUPS:
        if groups.get(label):
            text += f", {len(groups[label])} {label} ({_names(groups[label])})"
    return text


#: The groups of variants without numbers, in the order :func:`holds_text` says them.
_GROUPS = ("not measured", "cut for time", "skipped", "failed")


def _without_numbers(status: str, error: str | None) -> str:
    """The group of :data:`_GROUPS` a variant without numbers is in, by its status and reason."""
    if status == "pending":
        return "not measured"
    if status == "skipped":
        timed = (error or "").startswith("cut for time") or "--time-budget" in (error or "")
        return "cut for time" if timed else "skipped"
    return "failed"  # failed, or an ok without a level with numbers (no such record is written)


#: The sweep's entry point (README), by its absolute path: the command works pasted in any folder.
SWEEP_SCRIPT = Path(__file__).resolve().parents[1] / "run_sweep.sh"


def resume_command(run_id: str, results_dir: Path | str) -> str:
    """The command that continues sweep ``run_id``, spelled one way wherever it is said (the
    sweep's Ctrl-C line, report.md, ``compare``, ``export-deployment``'s refusal; issue 26 found
    two): ``/abs/perf/run_sweep.sh --resume RUN_ID --results-dir /abs/DIR``, both paths absolute
    (a relative script or folder named a run elsewhere when pasted in another folder), the
    results folder always given (its default, ``results``, is not where every run is)."""
    args = [str(SWEEP_SCRIPT), "--resume", run_id, "--results-dir", str(Path(results_dir).resolve())]
    return shlex.join(args)


def resume_hint(run: RunResult, results_dir: Path | str) -> str:
    """:func:`resume_command` of ``run``, quoted as code, with the time budget it goes on with (:func:`resume_budget_words`)."""
    return f"`{resume_command(run.run_id, results_dir)}`{resume_budget_words(run)}"


def resume_budget_words(run: RunResult) -> str:
    """The time budget :func:`resume_command` (no ``--time-budget``) goes on with, said beside it wherever it is said
    (the sweep's Ctrl-C line, report.md, ``compare``, ``export-deployment``): ``", within what is left of the run's own
    120 s time budget: 71 s after the 49 s it spent (--time-budget gives a new one)"``, by the rule the resume follows
    (:func:`perf.records.resumed.resumed_budget`); ``""`` for a sequential run (its budget times only the in-process
    baseline) or one that recorded none."""
    if run.rounds is None or (run.rounds.budget is None and "time_budget_s" not in run.settings):
        return ""
    return f", within {resumed_budget(None, False, run.rounds.budget, run.settings)[2]}"


def unfinished_text(run: RunResult, subject: str | None = None, results_dir: Path | str | None = None) -> str | None:
    """``None`` for a finished run; else the sentence every use of the run says first: that it did
    not finish, what it holds (:func:`holds_text`) and how to go on (:func:`resume_hint`).

    Args:
        run: The run.
        subject: Who did not finish [default: ``run `RUN_ID```].
        results_dir: The run's parent folder (named in :func:`resume_command`); ``None``: not
            known here, and no command is said (one without it would name another run or none).

    Example: ``"run `th` did not finish (interrupted, or still running): it holds 1 visit in
    1 round; numbers for 1 of 4 variants, 3 not measured (...); its ranking and pick are of
    that only; continue it with `/abs/perf/run_sweep.sh --resume th --results-dir /abs/results`"``.
    """
    if run.finished is not None:
        return None
    go_on = f"; continue it with {resume_hint(run, results_dir)}" if results_dir is not None else ""
    return (
        f"{subject or f'run `{run.run_id}`'} did not finish (interrupted, or still running): it holds {holds_text(run)}; "
        f"its ranking and pick are of that only{go_on}"
    )
