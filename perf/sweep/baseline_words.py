"""What a rounds sweep says of its in-process baseline's time: one rule, one number (trial 8, F9
and F12). The plan line said "--time-budget 8m keeps it" and the skip after the rounds "--time-budget
7m gives it" (two numbers for one question), and a resumed run started with ``--time-budget 3m`` was
told "--time-budget 3m gives it" (a resume's ``--time-budget`` is its session's budget, not the run's).

The number is :func:`perf.search.budget.keeps_baseline`: the smallest whole-minute budget above this
invocation's whose plan keeps the baseline's time from the start (it then runs whatever the rounds
leave); the words name the command it is given to: ``--time-budget 8m`` for a new run,
``--resume RUN --time-budget 4m`` for a resumed one (that session's budget).
"""

from __future__ import annotations

import math

from core.wording import count
from perf.profile.estimate import BaselineEstimate
from perf.search.budget import Fit

#: The baseline's share of its estimate that what the rounds leave must reach for it to start.
BASELINE_START_SHARE = 0.75


def keeps_hint(minutes: int, run_id: str, resume: bool) -> str:
    """``"--time-budget 8m keeps it"``, or on a resume ``"--resume RUN --time-budget 8m keeps it"``
    (``scripts/demo.sh`` rewrites the first as its own ``DEMO_TIME_BUDGET=8m make demo keeps it``)."""
    return (f"--resume {run_id} " if resume else "") + f"--time-budget {minutes}m keeps it"


def baseline_start_s(need_s: float) -> int:
    """What the rounds must leave for the in-process baseline to start (whole s): :data:`BASELINE_START_SHARE`
    of its estimate ``need_s``, rounded up. The one number the plan line says and the check after the rounds
    compares with (trial 13, T13-16: the plan said 16 s, the check re-estimated and started with 10 s left)."""
    return math.ceil(BASELINE_START_SHARE * need_s - 1e-9)


def baseline_yields(fit: Fit, hint: str) -> str:
    """The plan's words for a baseline whose time is not kept: it runs on what the rounds leave, and
    starts with :func:`baseline_start_s` of its estimate (trial 9, F2: "about 120 s ... if the rounds
    leave it about 90 s" read as a contradiction)."""
    return (
        ", not kept from the budget (beside the rounds a verdict needs it does not fit): it starts if the rounds "
        f"leave {baseline_start_s(fit.baseline_s)} s or more and stops at the budget's end; {hint}"
    )


def skip_counts(counted: BaselineEstimate) -> str:
    """What a skipped baseline's estimate counted: ``"8 variants, 40 points at the batch sizes the
    server formed"`` (the plan's estimate guessed those sizes: its number differs, and says so); a run
    whose clients sent several input sizes (``--shapes``) times each (issue 26: the words named the batch
    sizes alone), ``"8 variants, 40 points at the 2 input sizes the clients sent, each at the batch sizes
    the server formed"``, as the serving-efficiency section words what it compares; then how its loads are priced
    (:meth:`perf.profile.estimate.BaselineEstimate.load_words`)."""
    at = "guessing the batch sizes the server forms" if counted.guessed else "at the batch sizes the server formed"
    if counted.sizes > 1:
        at = f"at the {count(counted.sizes, 'input size')} the clients sent, each {at}"
    loads = counted.load_words()  # measured or assumed, said (trial 17, T17-11: an unmeasured 0.5 s a key)
    return f"{count(counted.variants, 'variant')}, {count(counted.points, 'point')} {at}" + (f"; {loads}" if loads else "")


def baseline_fits(left_s: float, start_s: float) -> bool:
    """Whether the in-process baseline starts with ``left_s`` of the budget: at least ``start_s``
    (:func:`baseline_start_s` of the estimate the plan said); it stops at the budget's end, no round
    starting that would end after it (:func:`perf.profile.timing.time_interleaved`; trial 7, F9: skipped
    for 13 s with 107 s of a 360 s budget unused)."""
    return left_s >= start_s
