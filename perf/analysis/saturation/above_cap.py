"""The command that measures above a ladder top the time budget capped (trial 21, T21-6): a 90 s run capped every
ladder at concurrency 4, a ``--resume`` of a run whose rounds had ended keeps that cap, and the pick sat at the cap,
"the budget was not reached", in a session whose budget was a third unused, with no word of what measures above it.
A resume whose rounds go on, given the time, lifts it (:func:`lifted_cap`), and what it found above is said (:func:`lifted`)."""

from __future__ import annotations

from perf.analysis.stats.points import THROUGHPUT, Point, run_points
from perf.markdown import fmt
from perf.records.measured_files import resume_refused
from perf.records.results import RunResult
from perf.records.rounds import BudgetRecord, RoundsRecord
from perf.records.workloads import series_decision, variant_name

#: What lifts a cap on a resume whose rounds go on, in :func:`perf.sweep.budget_scope.choose`'s rule: a budget that fits
#: a verdict's rounds with the ladders above it, the one the resume's plan line names (trial 31, F2: a time-ended run's
#: report said "a --resume of this run keeps the time budget's cap" while its resume's plan line named the
#: ``--time-budget 2m`` that lifted it, and a 2m resume did).
LIFTS = (
    "a --resume given a --time-budget that fits a verdict's rounds with the ladders above it lifts the cap "
    "(its plan line names that budget)"
)


def above_cap(run: RunResult, at: Point) -> str | None:
    """What measures above ``at``, a level at the top of a ladder the time budget capped (its search decision's rule
    ``cap`` below the ladder's own top): a new run of its variant over the levels from ``at`` to that top, since a
    ``--resume`` of a run whose rounds a decision ended keeps the cap (of one whose rounds go on, stopped or ended by
    the time budget, one given the time lifts it: :data:`LIFTS`); ``None`` where the budget capped no ladder at ``at``."""
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
    new = f"a new run with `--variants {name} --concurrency {','.join(map(str, levels))}` measures above it"
    goes_on = run.finished is None or (run.rounds is not None and run.rounds.by_time())
    if goes_on and resume_refused(run):  # a rebuild replaced files it measured: no resume (break-it F18)
        return f"the time budget capped it at concurrency {b.max_concurrency} (a --resume of this run is refused): {new}"
    if goes_on:  # its rounds may go on: a resume whose budget fits a verdict's rounds above the cap lifts it (T31 F2)
        return f"the time budget capped it at concurrency {b.max_concurrency}: {LIFTS}, or {new}"
    return f"a --resume of this run keeps the time budget's cap of concurrency {b.max_concurrency}: {new}"


def lifted_cap(rounds: RoundsRecord, cap: int | None) -> int | None:
    """The ladder top an earlier session's time budget capped that this session's plan lifts (``cap``: its top,
    ``None`` the ladder's own), or one a resume lifted before and this plan keeps lifted; ``None`` otherwise. A cap it
    lifts drops that session's "concurrency above N not measured" cut: the rounds measure above it (a real run: a
    45 s session capped the ladders at 4, its 100 s resume measured 8, 16 and 64, and the report still listed the cut;
    nothing said the cap was lifted)."""
    old = rounds.budget
    was = None if old is None else old.max_concurrency or old.lifted_cap
    if was is None or (cap is not None and cap <= was):
        return None
    rounds.cuts = [c for c in rounds.cuts if c.kind != "levels"]  # this plan's own, if any, is recorded after
    return was


def lift_words(was: int | None, old: BudgetRecord | None, top: int) -> str:
    """The plan line's words of a cap :func:`lifted_cap` lifted (``was``) where the session before (``old``) had not:
    ``"; the time budget's cap of concurrency 4 of an earlier session is lifted: its ladders may grow up to 64"``."""
    if was is None or (old is not None and old.lifted_cap == was):
        return ""
    return f"; the time budget's cap of concurrency {was} of an earlier session is lifted: its ladders may grow up to {top}"


def lifted(run: RunResult) -> str | None:
    """What the rounds found above a cap a resume lifted (:attr:`BudgetRecord.lifted_cap`), per variant measured
    above it: its levels there and the best median throughput of them against its best at or under the cap (the
    Recommendation's notes, so the console's too); ``None`` where no cap was lifted. A cap the plan fitted again to the
    loads put back (:attr:`BudgetRecord.max_concurrency` at or under it) with nothing measured above is said so, not
    "lifted" (trial 30, F13: "was lifted ...: no level was measured above it" after "concurrency above 4 not measured")."""
    b = run.rounds.budget if run.rounds is not None else None
    if b is None or b.lifted_cap is None:
        return None
    cap, said = b.lifted_cap, []
    for name, points in run_points(run).items():
        above = [p for p in points if p.concurrency > cap and p.get(THROUGHPUT) is not None]
        under = [p for p in points if p.concurrency <= cap and p.get(THROUGHPUT) is not None]
        if not above:
            continue
        top = max(above, key=lambda p: p.get(THROUGHPUT) or 0.0)
        was = max((p.get(THROUGHPUT) or 0.0 for p in under), default=None)
        than = f" (at or under it: {fmt(was)} infer/s)" if was is not None else ""
        levels = ", ".join(str(c) for c in sorted({p.concurrency for p in above}))
        said.append(f"`{name}` at {levels}, its highest median {fmt(top.get(THROUGHPUT))} infer/s at c={top.concurrency}{than}")
    if not said and b.max_concurrency is not None and b.max_concurrency <= cap:  # lifted, then put back (trial 30, F13)
        return (
            f"the time budget's cap of concurrency {cap} (an earlier session's) was lifted by a resume's plan, then "
            f"capped at concurrency {b.max_concurrency} again by the plan the rounds ran under (fitted to the time left): "
            "no level was measured above it (a longer --time-budget measures above it)"
        )
    found = "; ".join(said) if said else "no level was measured above it"
    return (
        f"the time budget's cap of concurrency {cap} (an earlier session's) was lifted on a resume given more time: "
        f"measured above it: {found} (medians over all rounds; the picks above are the paired ranking's)"
    )
