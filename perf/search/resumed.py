"""The time budget a resumed run plans against (``--resume``): what is left of the run's own
budget, or a new one given on the resume command (moved from :mod:`perf.search.budget`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from perf.markdown import fmt
from perf.records.rounds import BudgetRecord


def resumed_budget(
    passed_s: float | None, given_again: bool, saved: BudgetRecord | None, settings: Mapping[str, Any] | None = None
) -> tuple[float | None, float | None, str]:
    """The time budget a resumed run plans against: what is left of the run's own budget
    (its recorded ``budget_s`` less the rounds and baseline time its sessions spent), unless a
    new one is given (``given_again``: ``--time-budget`` on the resume command). A resume of a
    120 s run planned against the default 6 minutes and spent 128 s more. A run stopped before
    its first round has no plan (``saved``) yet: its own budget is the one its settings recorded
    (``settings["time_budget_s"]``), nothing of it spent.

    Returns:
        ``(budget of this invocation in s, the run's budget to record in s, the words that say which)``;
        ``None``: no budget.
    """
    recorded = settings is not None and "time_budget_s" in settings
    if given_again or (saved is None and not recorded):
        own = "" if given_again else " (the run recorded no time budget of its own)"
        return passed_s, passed_s, ("no time budget" if passed_s is None else f"a time budget of {fmt(passed_s, 0)} s") + own
    budget_s = saved.budget_s if saved is not None else (settings or {}).get("time_budget_s")
    if budget_s is None:
        return None, None, "no time budget, as the run had none (--time-budget gives one)"
    spent = (saved.spent_s or 0.0) + (saved.baseline_s or 0.0) if saved is not None else 0.0
    left = max(0.0, budget_s - spent)
    after = (
        f"{fmt(left, 0)} s after the {fmt(spent, 0)} s it spent"
        if saved is not None
        else f"all {fmt(left, 0)} s (it was stopped before its first round)"
    )
    return (
        left,
        float(budget_s),
        f"what is left of the run's own {fmt(budget_s, 0)} s time budget: {after} (--time-budget gives a new one)",
    )
