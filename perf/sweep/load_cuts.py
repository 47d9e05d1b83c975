"""The time budget's plan fitted again to the loads measured so far, in one place (:func:`fit_to_loads`),
by :func:`perf.search.refit.refit`: the one time check of every load.

- **Before each load** of every group (the first, a later one, the final of the groups' or of the
  servers' tie sets, the final of the variants cut for time; on each server of several; ``pending``:
  the group's variants not loaded yet, each priced at the load time measured so far), so a variant
  the plan would cut once loaded is never loaded (trial 12, F6: ``kws_ts_cpu1_nodb_mbs64`` and
  ``kws_ts_cpu1_db500_mbs64`` loaded in 10.4 s and 9.4 s, then cut "after the loads took 12.7 s a
  variant": 20 s of a 120 s budget spent loading variants that were never measured), and none is
  loaded when not one round of the group fits. Only variants not loaded yet are cut there, and the
  ladder is left as it is. A run's first load has no load time measured yet: the plan just
  fitted (:func:`perf.search.budget.fit`, at its assumed load time) is its check.
- **Once the first group is loaded**, when it holds every variant of the plan on one server, before
  its first round (trial 7: 12.9 s a load against the plan's 5 s, 2 of 6 rounds): the ladder's top
  lowered, variants cut and unloaded, the engine's cap set. Not on several servers: the cap is the
  engine's, shared by the servers' threads, each of which loads only its own variants.

Both price a load at one number, the mean of the run's loads so far (:meth:`perf.sweep.rounds.RoundsSweep.run_load_times`:
an earlier session's recorded groups, then this session's load attempts, a failed one included: a load still
to come costs as long whether it fails or not), so a resumed session's first load is checked too. The
variants cut are cut for time ("not measured: after the first 3 loads took 12.7 s a variant ...") and, like every cut of the
plan, measured after the rounds if the time they leave fits them (:meth:`perf.sweep.rounds.RoundsSweep._late`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from core.wording import count
from perf.markdown import apart, fmt
from perf.records.rounds import Cut, LoadGroup
from perf.search import late as lates
from perf.search import promise
from perf.search.budget import LOAD_S, UNLOAD_S, Fit, not_measured
from perf.search.refit import after_loads, refit
from perf.search.rounds import Rounds
from perf.sweep.context import SweepBase


def load_s(load_times: Sequence[float], plan: Fit | float) -> float:
    """The time of one load (s) the plan is fitted again with: the mean of ``load_times`` (the run's loads,
    :func:`recorded_load_times` and the session's attempts, failed ones included), else the plan's own assumption
    (``plan``: the plan, or its load time)."""
    if load_times:
        return sum(load_times) / len(load_times)
    return plan if isinstance(plan, float) else plan.load_s


def unload_s(unload_times: Sequence[float]) -> float:
    """The time of one unload (s) the plan is priced with: the mean of ``unload_times`` (each variant's unload so
    far: the run's, :func:`recorded_unload_times`, and the session's), :data:`perf.search.budget.UNLOAD_S` only before
    any is measured (trial 17, T17-11: the rounds' unloads, priced at that floor, ran 2 s into the time kept for the
    in-process baseline)."""
    return sum(unload_times) / len(unload_times) if unload_times else UNLOAD_S


def recorded_unload_times(groups: Sequence[LoadGroup]) -> list[float]:
    """One unload time (s) for each variant the recorded ``groups`` unloaded (a group's unload time over its
    variants), as :func:`recorded_load_times` does for loads."""
    return [g.unload_s / len(g.variants) for g in groups if g.variants and g.unload_s for _ in g.variants]


def recorded_load_times(groups: Sequence[LoadGroup]) -> list[float]:
    """One load time (s) for each variant the recorded ``groups`` loaded (a group's load time over its variants):
    an earlier session's loads, priced as this session's are (issue 26: a resume priced its loads from its own
    only, and its first load at the plan's assumption, whatever the run's loads had taken)."""
    return [g.load_s / len(g.variants) for g in groups if g.variants and g.load_s for _ in g.variants]


def fit_to_loads(
    sweep: SweepBase,
    engine: Rounds,
    plan: Fit | None,
    loaded: Sequence[str],
    pending: Sequence[str],
    load_times: Sequence[float],
    keys_per_level: int,
    unload_s: float = UNLOAD_S,
    final: lates.Final | None = None,
) -> tuple[Fit | None, list[str], list[str]]:
    """The plan fitted again once ``loaded`` (the group's, so far) are loaded and ``pending`` (in load
    order) are still to load (module docstring): ``(plan, loaded kept, pending kept)``; those it cuts are
    recorded, said and, of ``loaded``, unloaded. ``plan``: the sweep's (``None``: no such plan, returned as
    it is); as it is too before any load was measured (``load_times``: each load's seconds so far,
    :meth:`perf.sweep.rounds.RoundsSweep.run_load_times`) and, after the loads, unless the group holds the whole plan on one server. ``unload_s``: the
    time one unload takes (what the engine keeps for it). ``final``: the group is the final group after the
    rounds, priced by its own rule (:func:`fit_final`), not by the plan's. Several servers' threads call it under
    ``sweep._lock``."""
    rr = sweep.run.rounds
    if final is not None and rr is not None and engine.deadline is not None and load_times:  # a resume's: no plan
        return plan, list(loaded), fit_final(sweep, engine, final, plan, loaded, pending, load_times, unload_s)
    if plan is None or rr is None or engine.deadline is None or not load_times:
        return plan, list(loaded), list(pending)
    failed = {n for n in plan.variants if (vr := sweep.run.variant(n)) is not None and vr.status == "failed"}
    if not pending and (len(sweep.servers.lanes) > 1 or not set(plan.variants) <= {*loaded, *failed}):
        return plan, list(loaded), []  # a group after this one, or the servers' shared cap: the plan stands
    each = load_s(load_times, plan)
    prices, priced = format_prices(sweep, load_times, pending, plan.load_s)
    left = engine.deadline - engine.clock()
    before = {n for n in [*loaded, *pending] if promise.has_numbers(sweep.run, n)}
    s = engine.setup
    args = (s.ladder, s.adaptive, keys_per_level, rr.rules, s.rules, left, before, pending, len(load_times), prices, priced)
    again = refit(plan, [*loaded, *pending], each, *args)
    new = again.cuts[len(plan.cuts) :] if again is not None else []
    if not pending:  # the group loaded: the plan fitted again is the plan, its cap the engine's
        if again is None:
            return plan, list(loaded), []
        gone = {n for n in loaded if n not in again.variants}
        plan, engine.setup = again, dataclasses.replace(engine.setup, cap=again.cap)
        if gone:
            sweep.servers.unload_all([n for n in loaded if n in gone], sweep.opts.unload_timeout_s)
        said(sweep, again, new, each)
        return plan, [n for n in loaded if n not in gone], []
    new = [c for c in new if c.kind == "variant" and c.variant in pending]  # before a load: the ladder as it is
    refitted = again if new else None  # the plan fitted again cut a load (else its words are not said)
    kept = [n for n in pending if n not in {c.variant for c in new}]
    per_load = sum(prices.get(n, each) for n in kept) / len(kept) if kept else each
    need = first_round_s(engine, plan, [*loaded, *kept], len(kept), per_load, unload_s, keys_per_level)
    if kept and need > left:  # not even the group's first round fits after their loads: none is loaded
        why = f"the loads still to come, the first round and the unloads of {count(len(loaded) + len(kept), 'variant')}"
        d = apart(need, left)  # both with the decimals that tell them apart (trial 19, T19-8)
        why += f" need about {fmt(need, d)} s"
        after = after_loads(plan, each, left, len(load_times), digits=d)
        new += [Cut("variant", f"{not_measured(n in before)}: {after}: {why}", n, need_s=round(need, 1)) for n in kept]
        kept = []
    if not new:
        return plan, list(loaded), list(pending)
    gone = {c.variant for c in new if c.variant}
    plan = dataclasses.replace(plan, variants=[n for n in plan.variants if n not in gone], cuts=[*plan.cuts, *new])
    said(sweep, refitted, new, each)
    return plan, list(loaded), kept


def fit_final(
    sweep: SweepBase,
    engine: Rounds,
    final: lates.Final,
    plan: Fit | None,
    loaded: Sequence[str],
    pending: Sequence[str],
    load_times: Sequence[float],
    unload_s: float,
) -> list[str]:
    """Of ``pending`` (the final group's members not loaded yet, in load order), those to load still: the final
    group after the rounds priced again before a load by the rule that priced it when the rounds ended
    (:func:`perf.search.late.late`, its members ``loaded`` already spent; trial 17, T17-2: said to fit at 75 s,
    then cut by the first plan's re-fit over its whole ladder at 94 s). The cut variants it no longer fits
    are cut, recorded and said with its numbers; when it fits none of them, nothing more is loaded (the tie
    set alone adds no comparison)."""
    assumed = plan.load_s if plan is not None else LOAD_S
    each = load_s(load_times, assumed)
    prices = format_prices(sweep, load_times, pending, assumed)[0]
    left = engine.deadline - engine.clock() if engine.deadline is not None else float("inf")
    args = (each, engine.visit_s, left, unload_s, final.measured, prices, loaded)
    again = lates.late(final.variants, final.tie, final.tie_visits, final.visits, *args, done=final.done)
    new = [c for c in again.cuts if c.variant in pending]
    if new:
        said(sweep, None, new, each)
    gone = {c.variant for c in new}
    return [n for n in pending if n not in gone] if again.variants else []


def adds_nothing(groups: Sequence[LoadGroup], final: lates.Final | None, members: Sequence[str]) -> str:
    """Why a group whose members, loaded so far or still to load once a load is checked, are ``members`` would
    measure no comparison, ``""`` when it would: a final group after the rounds left with none of its cut
    variants (``final``: each cut for time, :func:`fit_final`; its tie set alone, which a resume measured in an
    earlier session), or ``members`` measured together in one of ``groups`` (this session's) already (a final
    whose other members the time check cut). Such a group loads nothing more, and those loaded are unloaded
    before its first round (:func:`drop`; issue 26: the tie set was measured again alone, its rounds and unloads
    spending the budget)."""
    if not members:
        return ""
    if final is not None and not set(members) & set(final.variants):
        names = ", ".join(f"`{n}`" for n in members)
        adds = "adds" if len(members) == 1 else "add"
        return f"no cut variant of the final group fits the time left any more (each cut for time, with its price): measured alone, {names} {adds} no comparison"
    earlier = next((g.index for g in groups if set(members) <= set(g.variants)), None)
    return "" if earlier is None else f"{', '.join(members)} were measured together in group {earlier + 1} already"


def drop(sweep: SweepBase, loaded: Sequence[str], why: str) -> str:
    """A group that adds no comparison (``why``, :func:`adds_nothing`) ended before its rounds: its members
    ``loaded`` so far unloaded, said once. Returns the words its record keeps (``"not loaded: why"`` when none was)."""
    if not loaded:
        return f"not loaded: {why}"
    sweep.servers.unload_all(list(loaded), sweep.opts.unload_timeout_s)
    text = f"{', '.join(f'`{n}`' for n in loaded)} unloaded before a round: {why}"
    sweep.progress({"event": "plan", "text": f"rounds: {text}", "estimate_s": 0.0, "warn": True})  # said once
    return text


def format_prices(
    sweep: SweepBase, load_times: Sequence[float], pending: Sequence[str], assumed: float
) -> tuple[dict[str, float], str]:
    """Each of ``pending``'s load time (s) by its format, where the run's loads so far (``load_times``, the
    variants of the recorded groups then this session's, in order) differ by format: a format's own mean, the
    plan's ``assumed`` for a format not loaded yet; and how, in words. ``({}, "")`` where one price serves
    (one format, or a format not known): every load at the mean, as before. Trial 18, T18-5: the first load,
    a TorchScript variant's 29.4 s, priced the ONNX loads to come (4-6 s each) and cut 4 of them."""
    rr = sweep.run.rounds
    before = rr.groups[: getattr(sweep, "_groups_before", 0)] if rr is not None else []
    names = [v for g in before if g.variants and g.load_s for v in g.variants] + list(getattr(sweep, "_load_names", []))

    def format_of(name: str) -> str | None:
        vr = sweep.run.variant(name)
        return (vr.params or {}).get("format") if vr is not None else None

    if len(names) != len(load_times) or not pending:
        return {}, ""
    seen: dict[str | None, list[float]] = {}
    for n, t in zip(names, load_times):
        seen.setdefault(format_of(n), []).append(t)
    coming = {n: format_of(n) for n in pending}
    if None in seen or None in coming.values() or set(seen) | set(coming.values()) == set(seen) and len(seen) == 1:
        return {}, ""
    means = {f: sum(ts) / len(ts) for f, ts in seen.items()}
    prices = {n: means.get(f, assumed) for n, f in coming.items()}
    said = [f"{f} loads priced at {fmt(means[f], 1)} s" for f in sorted({f for f in coming.values() if f in means})]  # type: ignore[type-var]
    said += [f"{f} ones, not loaded yet, at {fmt(assumed, 1)} s" for f in sorted({f for f in coming.values() if f not in means})]  # type: ignore[type-var]
    return prices, "; ".join(said)


def first_round_s(
    engine: Rounds, plan: Fit, names: Sequence[str], to_load: int, load_s: float, unload_s: float, keys_per_level: int
) -> float:
    """The time (s) ``to_load`` loads, the first round of a group of ``names`` and their unloads take, as the
    engine judges a round before it starts (:meth:`perf.search.rounds.Rounds.run_group`): a variant the
    engine runs a ladder of, the visits of its next round; another, the plan's first round's
    (:attr:`perf.search.budget.Fit.visits`), each at the engine's visit time."""
    index = engine.record.next_index()
    first = plan.visits[0] if plan.visits else keys_per_level
    visits = sum(len(engine.visits([n], index)) if n in engine.ladders else first for n in names)
    return to_load * load_s + visits * engine.visit_s + len(names) * unload_s


def said(sweep: SweepBase, again: Fit | None, new: Sequence[Cut], load_s: float) -> None:
    """Record the cuts of the plan fitted again (``again``; ``None``: the plan kept, only loads cut that its
    first round would not fit after; ``new``: the cuts added), set the variants cut ``skipped`` (those
    without numbers from before: theirs stand), and say it once."""
    rr = sweep.run.rounds
    assert rr is not None
    if rr.budget is not None and again is not None:  # the report's Time budget line says the plan the rounds ran under
        rr.budget.refit_load_s, rr.budget.refit_rounds = round(load_s, 2), again.rounds
        rr.budget.refit_estimate_s = round(again.estimate_s, 1)
        if again.cap is not None:  # the cap the rounds run under, not the first plan's (trial 24, T24-2)
            rr.budget.max_concurrency = again.cap
    for c in new:
        rr.cut(c)
        if c.kind == "variant" and c.variant and not promise.has_numbers(sweep.run, c.variant):
            vr = sweep.run.variant(c.variant)
            assert vr is not None
            vr.status, vr.error = "skipped", f"cut for time: {c.reason.removeprefix('not measured: ')}"
    sweep._save()
    fitted = f"fitted again, about {count(again.rounds, 'round')}; " if again is not None else ""
    text = f"rounds: {fitted}cut for time: " + "; ".join((f"{c.variant} " if c.variant else "") + c.reason for c in new)
    estimate = again.estimate_s if again is not None else 0.0
    sweep.progress({"event": "plan", "text": text, "estimate_s": estimate, "warn": True})  # said once
