"""The in-process baseline's time in a sweep's time budget (:func:`perf.search.budget.fit`): the
caller's estimate of it (the sweep's: :func:`perf.profile.estimate.estimate`, from the points it
will time), else a constant a variant for the Python API without a repository."""

from __future__ import annotations

from collections.abc import Callable, Sequence

#: The in-process baseline per variant measured (s), where the caller gives no estimate of its own
#: (:data:`BaselineCost`): a loaded host's bound (the demo's 8 variants took 35 s in trial 9, 106-172 s
#: under heavy load before); the sweep always gives its own.
BASELINE_S = 15.0
#: The in-process baseline's time (s) for the variants given (the sweep's: :func:`perf.profile.estimate.estimate`).
BaselineCost = Callable[[Sequence[str]], float]


def baseline_cost(baseline: bool | BaselineCost) -> BaselineCost:
    """The baseline's estimate as a :data:`BaselineCost`: the caller's, :data:`BASELINE_S` a variant
    for ``True``, nothing for ``False``."""
    if callable(baseline):
        return baseline
    return lambda names: len(names) * BASELINE_S if baseline else 0.0
