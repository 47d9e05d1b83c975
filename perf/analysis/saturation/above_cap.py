"""The command that measures above a ladder top the time budget capped (trial 21, T21-6): a 90 s run capped every
ladder at concurrency 4, every ``--resume`` keeps that cap (on a resume the plan lowers the top, never lifts it:
README), and the pick sat at the cap, "the budget was not reached", in a session whose budget was a third unused, with
no word of what measures above it."""

from __future__ import annotations

from perf.analysis.stats.points import Point
from perf.records.results import RunResult
from perf.records.workloads import series_decision, variant_name


def above_cap(run: RunResult, at: Point) -> str | None:
    """What measures above ``at``, a level at the top of a ladder the time budget capped (its search decision's rule
    ``cap`` below the ladder's own top): a new run of its variant over the levels from ``at`` to that top, since a
    ``--resume`` keeps the cap; ``None`` where the budget capped no ladder at ``at``."""
    b = run.rounds.budget if run.rounds is not None else None
    top = run.search.rules.max_concurrency if run.search is not None else None
    if run.search is None or b is None or b.max_concurrency is None or top is None or not at.concurrency < top:
        return None
    vr = run.variant(at.variant)
    decision = series_decision(run.search, vr) if vr is not None else run.search.decision(at.variant)
    if decision is None or decision.rule != "cap" or at.concurrency < b.max_concurrency:
        return None
    levels = run.search.rules.levels_from(at.concurrency)  # the ladder's own growth, from the capped level up
    name = variant_name(vr) if vr is not None else at.variant
    return (
        f"a --resume of this run keeps the time budget's cap of concurrency {b.max_concurrency}: a new run with "
        f"`--variants {name} --concurrency {','.join(map(str, levels))}` measures above it"
    )
