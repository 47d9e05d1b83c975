"""The time budget a resumed run plans against (``--resume``): what is left of the run's own
budget, or a new one given on the resume command (moved from :mod:`perf.search.budget`, then from
:mod:`perf.search` to the records, so every sentence on an unfinished run says it: :mod:`perf.records.unfinished`).
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
        ``(budget of this invocation in s, the run's budget to record in s, the words that say which)``; the run's
        budget recorded for one given again is it and what the sessions spent before;
        ``None``: no budget.
    """
    recorded = settings is not None and "time_budget_s" in settings
    spent = (saved.spent_s or 0.0) + (saved.baseline_s or 0.0) if saved is not None else None
    if given_again or (saved is None and not recorded):
        own = "" if given_again else " (the run recorded no time budget of its own)"
        # the run's own becomes what it spent and this session's: a later resume given none goes on with what this
        # session leaves (its sessions' spending is summed; the new budget alone left 110 s of a 240 s session
        # interrupted after 30 s, its first session having spent 100 s)
        run_s = None if passed_s is None else passed_s + (spent or 0.0)
        return passed_s, run_s, ("no time budget" if passed_s is None else f"a time budget of {fmt(passed_s, 0)} s") + own
    budget_s = saved.budget_s if saved is not None else (settings or {}).get("time_budget_s")
    if budget_s is None:
        return None, None, "no time budget, as the run had none (--time-budget gives one)"
    return left_of_run(float(budget_s), spent)


def left_of_run(budget_s: float, spent_s: float | None) -> tuple[float, float, str]:
    """What is left of a run's own time budget for a resume given no ``--time-budget``: the one rule of the sweep's
    and colocate's ``--resume`` (trial 20, T20-11: colocate's resume ran on a fresh 10-minute default after a 3-minute
    run, 257 s spent in all against the 180 s asked).

    Args:
        budget_s: The run's own time budget (s).
        spent_s: What its sessions spent of it (s); ``None``: it was stopped before its first round (nothing spent).

    Returns:
        ``(what is left in s, never below 0; budget_s; the words that say it)``.
    """
    left = max(0.0, budget_s - (spent_s or 0.0))
    after = (
        f"{fmt(left, 0)} s after the {fmt(spent_s, 0)} s it spent"
        if spent_s is not None
        else f"all {fmt(left, 0)} s (it was stopped before its first round)"
    )
    return (
        left,
        budget_s,
        f"what is left of the run's own {fmt(budget_s, 0)} s time budget: {after} (--time-budget gives a new one)",
    )
