"""A sweep that only plans: :meth:`perf.sweep.run.Sweep._rounds` on a hand-made run, without a server
or a repository, for the tests of the plan line and of what the plan cuts."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from perf.records.results import RunResult
from perf.search.budget import Fit
from perf.search.plan import plan_levels
from perf.sweep import run as sweep_run


class PlanOnlySweep(sweep_run.Sweep):
    """The sweep's plan step (``_rounds``) on ``run``: every variant of it planned at ``levels``
    (max_batch_size 64, batch 1, no adaptive ladder, no baseline), with a time budget of ``budget_s``.
    The rounds are not run: :attr:`fit` keeps the fit they were given, :attr:`events` what was said."""

    def __init__(self, run: RunResult, budget_s: float, levels: Sequence[int] = (1, 2, 4)):
        self.run, self.levels, self.adaptive, self.budget = run, tuple(levels), False, None
        self.plans = {v.name: plan_levels(v.name, 64, levels, [1]) for v in run.variants}
        self.opts = SimpleNamespace(time_budget_s=budget_s, baseline=False, resume=False)  # planned as the first session
        self.recorded_budget_s, self.fit = budget_s, None
        self.events: list[dict[str, Any]] = []
        self.progress = self.events.append

    def _save(self) -> None:
        pass

    def run_rounds(self, engine: Any, names: list[str], fit: Fit | None = None) -> None:
        self.fit = fit
