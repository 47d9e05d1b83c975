"""Where the latency budget a report ranks under came from, when a session of the run did not run under it.

``--latency-budget-ms`` has no default (the sweep's help: ``[default: none]``): a run swept without one is reported
without one ("No latency budget given ..."). A budget can still be one some of its rounds never had: given on a
``--resume`` of a run swept without it, or another than the one an earlier session ran under (break-it F15's report
part: report.md said "Best under the p99 budget of 5.00 ms" for ladders that ran without a budget, with no note).
Each session records the budget it ran under (:attr:`perf.records.results.Session.budget`, :func:`session_budget`);
the report and the console say where the run's budget came from when an earlier session ran under another.
"""

from __future__ import annotations

import os
import re

from perf.markdown import fmt_given
from perf.records.results import RunResult

#: The environment variable a script that passes ``--latency-budget-ms`` for the user names itself in (``make demo``:
#: its ``DEMO_BUDGET_MS`` default): recorded as :attr:`perf.records.results.Session.budget_from`. A value
#: ``NAME=VALUE`` (:data:`USER_SET`) is a variable of the script the user set (``DEMO_BUDGET_MS=10``): their own budget,
#: said "set by DEMO_BUDGET_MS=10", never "not typed" (trial 28, T28-10); any other value is the script's default.
FROM_VARIABLE = "TRITON_PERF_BUDGET_FROM"
#: A :data:`FROM_VARIABLE` value that names the script's variable the user set, and its value.
USER_SET = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=.*\S")
#: What :attr:`perf.records.results.Session.budget` holds for a session without a latency budget.
NO_BUDGET = "none"


def session_budget(ms: float | None, percentile: int) -> str:
    """The budget a session runs under, as recorded and said: ``"p99 5 ms"``, :data:`NO_BUDGET` without one."""
    return NO_BUDGET if ms is None else f"p{percentile} {fmt_given(ms, 0)} ms"


def budget_from(ms: float | None) -> str | None:
    """Who set a session's budget when not the user typing ``--latency-budget-ms`` (:data:`FROM_VARIABLE`), ``None``
    otherwise or without a budget."""
    said = os.environ.get(FROM_VARIABLE, "").strip()
    return said if ms is not None and said else None


#: What the sweep's latency budget is when none is given, said without naming its flag: a script's console says the
#: sweep's flags as its own variables (``make demo``: --latency-budget-ms as DEMO_BUDGET_MS, which has a default), and
#: "(`--latency-budget-ms` itself has no default)" became "DEMO_BUDGET_MS ... itself has no default" right after giving
#: its default (trial 26, T26-12). Said of the sweep, it reads true in the sweep's output, the report and the demo's.
NO_DEFAULT = "the sweep itself has no default budget"


def set_by(run: RunResult, budget_ms: float | None, percentile: int) -> str | None:
    """``"Budget: the p99 25 ms budget is make demo's default (DEMO_BUDGET_MS unset), not typed (the sweep itself has
    no default budget)"`` where the last session under the run's budget recorded who set it (:func:`budget_from`: a
    script's default), ``"Budget: the p99 10 ms budget is set by DEMO_BUDGET_MS=10"`` where the user set the script's
    variable (:data:`USER_SET`); ``None`` otherwise (typed with the flag, or a run saved before it was recorded).
    One sentence for every output it reaches: it names no flag a script says as its own variable (:data:`NO_DEFAULT`)."""
    if budget_ms is None or budget_ms != run.settings.get("latency_budget_ms"):
        return None
    now = session_budget(budget_ms, percentile)
    last = next((s for s in reversed(run.sessions) if s.budget == now), None)
    if last is None or last.budget_from is None:
        return None
    if USER_SET.match(last.budget_from):  # the user's own choice, through the script's variable
        return f"Budget: the {now} budget is set by {last.budget_from}"
    return f"Budget: the {now} budget is {last.budget_from}, not typed ({NO_DEFAULT})"


def budget_origin(run: RunResult, budget_ms: float | None, percentile: int) -> str | None:
    """``"Budget given on a resume: the p99 5 ms budget was given on session 2's `--resume` ...; session 1 ran without
    a latency budget, so its ladders were not stopped at this budget: ..."`` where ``budget_ms`` (at ``percentile``) is the run's own and a session
    recorded another (:data:`NO_BUDGET` or another budget); ``None`` otherwise, or for runs saved before sessions
    recorded it. A what-if report's budget is said by its own top line (:mod:`perf.report.layout`), not here."""
    own = run.settings.get("latency_budget_ms")
    if budget_ms is None or own is None or budget_ms != own or percentile != (run.settings.get("latency_percentile") or 99):
        return None
    now = session_budget(budget_ms, percentile)
    sessions = list(enumerate(run.sessions, 1))
    other = [(i, s.budget) for i, s in sessions if s.budget is not None and s.budget != now]
    if not other:
        return None
    first = next((i for i, s in sessions if s.budget == now), None)
    given = f"given on session {first}'s `--resume`" if first is not None and first > 1 else "set after it"
    ran = "; ".join(
        f"session {i} ran {'without a latency budget' if b == NO_BUDGET else f'under a {b} budget'}" for i, b in other
    )
    they = "its ladders were" if len(other) == 1 else "their ladders were"
    return (
        f"Budget given on a resume: the {now} budget was {given} ({NO_DEFAULT}); {ran}, so "
        f"{they} not stopped at this budget: a level within it that they would have measured may be missing"
    )
