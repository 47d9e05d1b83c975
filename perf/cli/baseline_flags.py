"""The flags ``triton-perf baseline`` would pass over for its target, refused before anything is measured (issue
26, K1: "a flag accepted and ignored"): each case listed once for :func:`core.flag_refusals.refuse_unread`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from core.errors import ToolkitError
from core.flag_refusals import Unread, refuse_unread
from core.options import given


def refuse_unread_baseline(
    target: Path, is_run: bool, repository: Path | None, profile_only: bool, trace: bool, precisions: Sequence[str]
) -> None:
    """Refuse what ``baseline TARGET`` would not read: ``--profile-only`` with nothing to profile, ``-r`` for a
    repository (both usage errors of their own), and, one rule, ``--out`` for a run folder (its results.json and
    traces/ hold what it measures), and ``--batch-sizes``, ``--warmup`` and (without ``--precision``)
    ``--min-run-time`` with ``--profile-only``, which measures no baseline (a trace is of the batch size the
    server formed; only the baseline and the precision study time calls).

    Raises:
        click.UsageError: ``--profile-only`` without ``--trace``/``--precision``; ``-r`` for a repository.
        FlagError: a typed flag this target and these flags pass over (exit 2).
    """
    if profile_only and not (trace or precisions):
        raise click.UsageError("--profile-only keeps the baseline and adds only --trace / --precision: give one of them")
    if repository is not None and not is_run:
        raise click.UsageError(f"-r/--repository names a run's repository: {target} is a repository itself, not a run folder")
    no_baseline = "--profile-only measures no baseline, the only part that reads it"
    again = "drop --profile-only to measure the baseline too, or drop the flags it would ignore"
    refuse_unread(
        given(click.get_current_context()),
        [
            Unread(
                "out",
                "--out",
                is_run,
                f"{target} is a run folder: its results.json gets the baseline and its traces/ the traces",
                "drop --out (it is where a repository's baseline.json goes)",
            ),
            Unread("batch_sizes", "--batch-sizes", profile_only, no_baseline, again),
            Unread("warmup", "--warmup", profile_only, no_baseline, again),
            Unread(
                "min_run_time",
                "--min-run-time",
                profile_only and not precisions,
                "--profile-only measures no baseline, and without --precision nothing else is timed",
                "for --min-run-time alone: add --precision, whose study times calls with it",
            ),
        ],
    )


def refuse_unsendable_batch_sizes(opts: Any, batch_sizes: Sequence[int]) -> None:
    """Refuse ``--batch-sizes`` of which no variant the baseline measures takes one (above every max_batch_size), before
    anything is measured: the rule of the sweep and coldstart (:mod:`perf.measure.batch_limits`; trial 27, T27-8).
    ``opts``: the baseline's options as its estimate reads them (a run's repository); nothing is refused where its
    variants cannot be read (the baseline then refuses them in its own words)."""
    from builders.config.pbtxt import read_config
    from perf.measure.batch_limits import refuse_unsendable
    from perf.profile.plan import plan_targets

    if not batch_sizes or opts is None:
        return
    try:
        planned, _ = plan_targets(opts, shapes=False)
        limits = {t.variant: int(read_config(rv.folder / "config.pbtxt").max_batch_size) for t, rv, *_ in planned}
    except ToolkitError:
        return
    refuse_unsendable(limits, batch_sizes, "this baseline", "nothing was measured")
