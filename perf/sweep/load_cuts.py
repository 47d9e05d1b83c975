"""The time budget's plan fitted again to the loads measured so far, in one place (:func:`fit_to_loads`),
by :func:`perf.search.refit.refit`, at two moments of the first group's loads:

- **Before each load** after the first (``pending``: the variants not loaded yet, each priced at the
  load time measured so far), so a variant the plan would cut once loaded is never loaded (trial 12,
  F6: ``kws_ts_cpu1_nodb_mbs64`` and ``kws_ts_cpu1_db500_mbs64`` loaded in 10.4 s and 9.4 s, then cut
  "after the loads took 12.7 s a variant": 20 s of a 120 s budget spent loading variants that were
  never measured). Only variants not loaded yet are cut there, and the ladder is left as it is: the
  plan fitted after the last load decides about those loaded.
- **Once the group is loaded**, before its first round (trial 7: 12.9 s a load against the plan's
  5 s, 2 of 6 rounds): the ladder's top lowered, variants cut and unloaded, the engine's cap set.

Both price a load at one number, the mean of the session's load attempts so far (a failed one
included: a load still to come costs as long whether it fails or not). The variants cut are cut for
time ("not measured: after the first 3 loads took 12.7 s a variant ...") and, like every cut of the
plan, measured after the rounds if the time they leave fits them (:meth:`perf.sweep.rounds.RoundsSweep._late`).
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


def load_s(load_times: Sequence[float], plan: Fit) -> float:
    """The time of one load (s) the plan is fitted again with: the mean of ``load_times`` (the session's
    load attempts, failed ones included), else the plan's own assumption."""
    return sum(load_times) / len(load_times) if load_times else plan.load_s


def fit_to_loads(
    sweep: SweepBase,
    engine: Rounds,
    plan: Fit | None,
    loaded: Sequence[str],
    pending: Sequence[str],
    load_times: Sequence[float],
    keys_per_level: int,
) -> tuple[Fit | None, list[str], list[str]]:
    """The plan fitted again once ``loaded`` are loaded and ``pending`` (in load order) are still to
    load (module docstring): ``(plan, loaded kept, pending kept)``; those it cuts are recorded, said
    and, of ``loaded``, unloaded. ``plan``: the first group's (``None``: no such plan, returned as it
    is); as it is too when the first group cannot hold the whole plan, on several servers, and before
    any load was measured (``load_times``: each load attempt's seconds so far)."""
    rr = sweep.run.rounds
    if plan is None or rr is None or engine.deadline is None or len(sweep.servers.lanes) > 1 or not load_times:
        return plan, list(loaded), list(pending)
    pending = [n for n in pending if n in plan.variants]
    failed = {n for n in plan.variants if (vr := sweep.run.variant(n)) is not None and vr.status == "failed"}
    room = sweep.opts.max_loaded is None or sweep.opts.max_loaded >= len(loaded) + len(pending)
    if not room or not set(plan.variants) <= {*loaded, *pending, *failed} or (pending and not loaded):
        return plan, list(loaded), pending  # a group after this one, or none loaded yet: the plan fitted after the loads decides
    each = load_s(load_times, plan)
    left = engine.deadline - engine.clock()
    before = {n for n in [*loaded, *pending] if promise.has_numbers(sweep.run, n)}
    s = engine.setup
    again = refit(
        plan, [*loaded, *pending], each, s.ladder, s.adaptive, keys_per_level, rr.rules, s.rules, left, before, pending
    )
    if again is None:
        return plan, list(loaded), pending
    new = again.cuts[len(plan.cuts) :]
    if pending:  # before a load: only variants not loaded yet are cut, the ladder left as it is
        new = [c for c in new if c.kind == "variant" and c.variant in pending]
        if not new:
            return plan, list(loaded), pending
        gone = {c.variant for c in new}
        plan = dataclasses.replace(plan, variants=[n for n in plan.variants if n not in gone], cuts=[*plan.cuts, *new])
    else:  # the group loaded: the plan fitted again is the plan, its cap the engine's
        gone = {n for n in loaded if n not in again.variants}
        plan, engine.setup = again, dataclasses.replace(engine.setup, cap=again.cap)
        if gone:
            sweep.servers.unload_all([n for n in loaded if n in gone], sweep.opts.unload_timeout_s)
    said(sweep, again, new, each)
    return plan, [n for n in loaded if n not in gone], [n for n in pending if n not in gone]


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
