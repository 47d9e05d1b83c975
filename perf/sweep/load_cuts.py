"""The time budget's plan fitted again while the first group loads, so a variant it would cut is
never loaded (trial 12, F6: ``kws_ts_cpu1_nodb_mbs64`` and ``kws_ts_cpu1_db500_mbs64`` loaded in
10.4 s and 9.4 s, then cut "after the loads took 12.7 s a variant": 20 s of a 120 s budget spent
loading variants that were never measured).

Before each load of the first group after its first one, :func:`perf.search.refit.refit` is run on
the loads measured so far (the group's time so far a load attempt), counting the loads still to
come at that time; the variants not loaded yet that it cuts are not loaded: they are cut for time
("not measured: after the first 3 loads took 12.7 s a variant ...") and, like every cut of the
plan, measured after the rounds if the time they leave fits them
(:meth:`perf.sweep.rounds.RoundsSweep._late`). Only variants not loaded yet are cut here (and the
ladder is left as it is): the plan fitted again after the last load
(:meth:`perf.sweep.rounds.RoundsSweep._refit`) decides about those loaded.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from core.wording import count
from perf.records.rounds import Cut
from perf.search import promise
from perf.search.budget import Fit
from perf.search.refit import refit
from perf.search.rounds import Rounds
from perf.sweep.context import SweepBase


def still_to_load(
    sweep: SweepBase,
    engine: Rounds,
    plan: Fit | None,
    loaded: Sequence[str],
    pending: Sequence[str],
    load_s: float,
    keys_per_level: int,
) -> tuple[Fit | None, list[str]]:
    """The plan and the variants of ``pending`` (not loaded yet, in load order) it still keeps once
    ``loaded`` took ``load_s`` a load; those it cuts are recorded and said (module docstring).
    ``plan``: the first group's plan, not fitted again yet (``None``: no such plan, ``pending`` as it
    is); as it is too when the first group cannot hold the whole plan."""
    rr = sweep.run.rounds
    if plan is None or rr is None or engine.deadline is None or len(sweep.servers.lanes) > 1:
        return plan, list(pending)
    pending = [n for n in pending if n in plan.variants]
    failed = {n for n in plan.variants if (vr := sweep.run.variant(n)) is not None and vr.status == "failed"}
    room = sweep.opts.max_loaded is None or sweep.opts.max_loaded >= len(loaded) + len(pending)
    if not loaded or not pending or not room or not set(plan.variants) <= {*loaded, *pending, *failed}:
        return plan, pending  # a group after this one, or none measured yet: the plan fitted after the loads decides
    left = engine.deadline - engine.clock()
    before = {n for n in [*loaded, *pending] if promise.has_numbers(sweep.run, n)}
    s = engine.setup
    again = refit(
        plan, [*loaded, *pending], load_s, s.ladder, s.adaptive, keys_per_level, rr.rules, s.rules, left, before, pending
    )
    new = [c for c in again.cuts[len(plan.cuts) :] if c.kind == "variant" and c.variant in pending] if again else []
    if again is None or not new:
        return plan, pending
    gone = {c.variant for c in new}
    said(sweep, again, new, load_s)
    kept = dataclasses.replace(plan, variants=[n for n in plan.variants if n not in gone], cuts=[*plan.cuts, *new])
    return kept, [n for n in pending if n not in gone]


def said(sweep: SweepBase, again: Fit, new: Sequence[Cut], load_s: float) -> None:
    """Record the cuts of the plan fitted again (``new``: those it added), set the variants cut
    ``skipped`` (those without numbers from before: theirs stand), and say it once."""
    rr = sweep.run.rounds
    assert rr is not None
    if rr.budget is not None:  # the report's Time budget line says the plan the rounds ran under
        rr.budget.refit_load_s, rr.budget.refit_rounds = round(load_s, 2), again.rounds
        rr.budget.refit_estimate_s = round(again.estimate_s, 1)
    for c in new:
        rr.cut(c)
        if c.kind == "variant" and c.variant and not promise.has_numbers(sweep.run, c.variant):
            vr = sweep.run.variant(c.variant)
            assert vr is not None
            vr.status, vr.error = "skipped", f"cut for time: {c.reason.removeprefix('not measured: ')}"
    sweep._save()
    text = f"rounds: fitted again, about {count(again.rounds, 'round')}; cut for time: " + "; ".join(
        (f"{c.variant} " if c.variant else "") + c.reason for c in new
    )
    sweep.progress({"event": "plan", "text": text, "estimate_s": again.estimate_s, "warn": True})  # said once
