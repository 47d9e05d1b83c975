"""The run ``perf/run_sweep.sh --resume RUN_ID`` continues, found or refused before anything starts."""

from __future__ import annotations

from pathlib import Path

from core.errors import PerfError
from perf.records import results
from perf.sweep.preflight import never_saved


def resumed_run(run_id: str | None, results_dir: Path) -> Path:
    """The folder of the run ``--resume`` names (``run_id``) in ``results_dir``, with a saved ``results.json``.

    Raises:
        PerfError: no id, a folder stopped before its first save (:func:`nothing_to_resume`), or no such run:
            each a usage error of ``--resume`` (exit 2, :mod:`core.cli`; trial 17, T17-15: it exited 1).
    """
    if not run_id:
        raise PerfError(
            "resuming needs the id of the run to continue", hint="pass --resume RUN_ID (a folder in results/)", flag="--resume"
        )
    run_dir = results_dir / run_id
    if not (run_dir / results.RESULTS_FILE).is_file():
        if (
            refusal := nothing_to_resume(run_dir, f"the sweep's command with --run-id {run_id} instead of --resume {run_id}")
        ) is not None:
            raise refusal
        have = sorted(p.parent.name for p in results_dir.glob(f"*/{results.RESULTS_FILE}"))
        raise PerfError(
            f"there is no run {run_id!r} to resume in {results_dir}",
            hint=f"runs there: {', '.join(have) or '(none)'}",
            flag="--resume",
        )
    return run_dir


def nothing_to_resume(run_dir: Path, again: str) -> PerfError | None:
    """The refusal of ``--resume`` of a folder stopped before its first save (:func:`never_saved`):
    it holds no measurement and no options to continue with, and ``again`` (the command without
    ``--resume``) takes it again; ``None`` for any other folder."""
    if not never_saved(run_dir):
        return None
    return PerfError(
        f"run {run_dir.name} in {run_dir.parent} was stopped before its first save: it holds no measurement and no "
        "record of its options, so there is nothing to resume",
        hint=f"start it again: {again} takes the folder again",
        flag="--resume",
    )
