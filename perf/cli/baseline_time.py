"""``triton-perf baseline --time-budget``: its value (the sweep's parser), and the estimates of the
baseline and of the traces and precision study, said before they start (:mod:`perf.cli.baseline`)."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from core.errors import PerfError, ToolkitError
from core.wording import count
from perf.markdown import fmt


def duration(text: str | None) -> float | None:
    """``--time-budget``'s value in seconds: the sweep's one parser (:func:`perf.search.budget.parse_duration`)."""
    from perf.search.budget import parse_duration

    try:
        return parse_duration(text)
    except PerfError as e:
        raise click.BadParameter(f"{e.message}; {e.hint}" if e.hint else e.message) from None


def _left(budget: float | None, opts: Any, need_s: float) -> str:
    """The time left of ``--time-budget`` beside an estimate of ``need_s`` seconds: "within" it only where the
    estimate fits what is left, else said as the cut it is (trial 17, T17-13: "at most about 32 s; within the time
    budget, 25 s left of 30 s")."""
    if budget is None or opts.deadline is None:
        return ""
    left = max(opts.deadline - time.monotonic(), 0.0)
    of = f"{fmt(left, 0)} s left of {fmt(budget, 0)} s"
    if round(need_s) <= round(left):  # as the two numbers are said
        return f"; within the time budget, {of}"
    return f"; more than the time budget's {of}: what does not fit in them is cut at its end"


def estimate_options(target: Path, opts: Any, repository: Path | None) -> Any | None:
    """``opts`` as the estimates read them: for a run folder ``target``, with its run (its repository, or
    ``repository``, and its measured levels), read once for both estimates; ``None`` where the run cannot be
    read (what the command then refuses, in its own words)."""
    import dataclasses

    from perf.profile.checks import run_repository
    from perf.records import results

    if not (target / results.RESULTS_FILE).is_file():
        return opts
    try:
        run = results.load(target)
        return dataclasses.replace(opts, repository=run_repository(run, repository), run=run)
    except ToolkitError:
        return None


def estimate_words(opts: Any | None, budget: float | None) -> str:
    """The in-process baseline's estimate, said before it starts (:func:`perf.profile.estimate.estimate`;
    ``opts``: :func:`estimate_options`)."""
    from perf.profile.estimate import estimate

    if opts is None:
        return ""
    try:
        e = estimate(opts)
    except ToolkitError:  # what the baseline itself then refuses, in its own words
        return ""
    if not e.points:  # nothing to estimate: what the baseline then says of it, not "an estimated 0 s (0 variants, 0 points)"
        return ""
    said = f"an estimated {fmt(e.seconds, 0)} s ({count(e.variants, 'variant')}, {count(e.points, 'point')})"
    _refuse_unfitting(said, e.seconds, budget, opts)
    return f"in-process baseline: {said}{_left(budget, opts, e.seconds)}"


def _refuse_unfitting(said: str, need_s: float, budget: float | None, opts: Any) -> None:
    """Refuse a baseline whose estimate ``need_s`` the ``--time-budget`` left does not fit, before it starts,
    by the sweep's rule (:func:`perf.sweep.baseline_words.baseline_fits`: it starts with
    :func:`~perf.sweep.baseline_words.baseline_start_s` of its estimate and stops at the budget's end).
    Re-check 14, NEW-5: ``--time-budget 5`` started an estimated 34 s, measured nothing, and was told of
    build records and GPUs.

    Raises:
        PerfError: it does not fit; the estimate, the budget and the smallest budget it starts with named.
    """
    from perf.sweep.baseline_words import BASELINE_START_SHARE, baseline_fits, baseline_start_s

    if budget is None or opts.deadline is None:
        return
    start_s = baseline_start_s(need_s)
    if baseline_fits(opts.deadline - time.monotonic(), start_s):
        return
    raise PerfError(
        f"in-process baseline not started: {said} does not fit --time-budget {fmt(budget, 0)}s: it starts with "
        f"{start_s} s or more ({fmt(100 * BASELINE_START_SHARE, 0)} % of its estimate, as a sweep's baseline does) "
        "and stops at the budget's end",
        hint=f"--time-budget {start_s}s is the smallest it starts with (cut at its end); "
        f"{math.ceil(need_s)}s or more, or none, gives it its whole estimate",
    )


def profile_words(opts: Any | None, trace: bool, precisions: Sequence[str], budget: float | None) -> str:
    """The traces' and the precision study's estimate, said before they start
    (:func:`perf.profile.estimate.profile_estimate`; ``opts``: :func:`estimate_options`)."""
    from perf.profile.estimate import profile_estimate

    if opts is None:
        return ""
    try:
        e = profile_estimate(opts, trace=trace, precisions=precisions)
    except ToolkitError:  # what the profile itself then refuses, in its own words
        return ""
    if not e.traces and not e.rows:  # nothing to estimate: the profile then refuses it (not ": at most about 0 s")
        return ""
    return f"traces and precision study: {e.words()}{_left(budget, opts, e.seconds)}"
