"""The time budget's plan fitted again once the variants are loaded, before the first round.

:func:`perf.search.budget.fit` plans with :data:`perf.search.budget.LOAD_S` a load; a model that
loads slower leaves the rounds less time than planned (trial 7: TorchScript variants loaded in
3.7-18.1 s, 12.9 s on average, on a busy host; 2 of the 6 planned rounds ran, and a pick and a
bundle rested on them). So the plan is fitted again to the time the loads left, by the first
plan's rule (:func:`perf.search.budget.fit`, on its estimate less the loads): the ladder's top
lowered first (never below a level a resumed run measured before, ``plan.floor``), then variants cut
(:func:`perf.search.promise.by_measurements`'s order), while not even the rounds a verdict needs fit
(:func:`perf.search.shrink.shrink`, the one rule). Each cut says it was made after the loads, with the
measured and the assumed load time; a plan that still fits is kept as it is (nothing is raised
again: the first plan's cuts stand).

It is also fitted before each further load of every group (``pending``: the group's variants not
loaded yet, each counted at the load time measured so far), so a variant the plan would cut once
loaded is not loaded at all (trial 12, F6: two variants loaded in 10.4 s and 9.4 s, then cut "after
the loads took 12.7 s a variant": 20 s of a 120 s budget).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence

from core.wording import count
from perf.analysis.ranking.operating import MIN_ROUNDS
from perf.markdown import apart, fmt
from perf.records.rounds import Cut, RoundRules
from perf.records.search import SearchRules
from perf.search.budget import LOAD_WORDS, Fit, estimate, ladder_rounds, levels_by_round, not_measured, verdict_words, wanted
from perf.search.shrink import rounds_within, shrink


def refit(
    plan: Fit,
    loaded: Sequence[str],
    load_s: float,
    ladder: Sequence[int],
    adaptive: bool,
    keys_per_level: int,
    rules: RoundRules,
    search: SearchRules,
    left_s: float,
    measured: Collection[str] = (),
    pending: Collection[str] = (),
    loads: int | None = None,
    prices: Mapping[str, float] | None = None,
    priced: str = "",
) -> Fit | None:
    """``plan`` fitted again to ``left_s`` once ``loaded`` are loaded (module docstring).

    Args:
        plan: The first plan (:func:`perf.search.budget.fit`).
        loaded: The variants loaded for the rounds.
        load_s: The measured load time of one variant (s).
        ladder: The concurrency ladder (the first plan's cap is applied here).
        adaptive: ``--concurrency auto``.
        keys_per_level: Visits per concurrency level.
        rules: The rounds' thresholds.
        search: The search's thresholds.
        measured: Variants with numbers from an earlier session (their cuts say so).
        left_s: The time the rounds have left after the loads (s): up to the engine's deadline, which
            already leaves the baseline's reserve (``plan.reserve_s``) aside: not taken off again.
            With ``pending``, the time left before their loads (each costs ``load_s`` of it).
        pending: The variants of ``loaded`` not loaded yet (their loads are still to come).
        loads: How many loads ``load_s`` is the mean of, said with ``pending`` (default: those of
            ``loaded`` loaded already).
        prices: The load time (s) of each of ``pending`` where it is not ``load_s``: its format's measured
            loads, or the plan's assumption for a format not loaded yet (trial 18, T18-5: one 29 s TorchScript
            load priced every ONNX load to come, 4-6 s each, and cut 4 of them).
        priced: How ``prices`` priced them, in words, said in the cuts' reason (``""``: one price).

    Returns:
        The new plan (its ``variants`` the loaded ones kept, most promising first; ``cuts`` the
        first plan's and the new ones; ``cap`` the ladder's new top), or ``None`` when the rounds
        the first plan planned still fit.
    """
    levels = [c for c in ladder if plan.cap is None or c <= plan.cap]
    kept = [n for n in plan.variants if n in loaded] + [n for n in loaded if n not in plan.variants]
    (want, verdict), top = wanted(rules, plan.done), levels[-1] if levels else None
    budget, first = left_s, list(kept)  # shrink drops from the end: n variants kept are first[:n]
    unloaded = dataclasses.replace(plan.prices, load_s=0.0)  # the first plan's visits and unloads; the loads apart

    def cost(n: int, lv: Sequence[int], rounds: int) -> float:  # the first plan's estimate, the loads done or to come
        to_load = sum((prices or {}).get(v, load_s) for v in first[:n] if v in pending)
        return estimate(n, lv, adaptive, keys_per_level, rules, rounds, False, unloaded) + to_load

    done = len(kept) - sum(1 for v in kept if v in pending) if loads is None else loads
    cuts = []
    shrunk = shrink(kept, levels, cost, budget, want, rules.first_levels, adaptive, plan.floor, verdict)
    levels, kept = shrunk.levels, shrunk.kept
    d = max((apart(need, left_s) for _, _, need in shrunk.dropped), default=0)  # "86 s left ... 86 s" (T19-8)
    after = after_loads(plan, load_s, left_s, done if pending else None, priced, d)
    if levels and levels[-1] != top:
        why = f"the ladder up to {top} would not leave time for {ladder_rounds(want, plan.done)}"
        cuts.append(
            Cut("levels", f"concurrency above {levels[-1]} not measured: {after}: {why}", concurrency=levels[-1] * search.growth)
        )
    for gone, n, need in shrunk.dropped:
        need_for = "their loads and " if any(v in pending for v in first[:n]) else ""
        why = f"{n} variants need about {fmt(need, d)} s for {need_for}{verdict_words(plan.done)}"
        cuts.append(Cut("variant", f"{not_measured(gone in measured)}: {after}: {why}", gone, need_s=round(need, 1)))
    if not cuts:
        return None
    rounds = rounds_within(cost, len(kept), levels, want, budget)
    visits = [n * keys_per_level for n in levels_by_round(levels, adaptive, rules, max(rules.max_rounds, MIN_ROUNDS), search)]
    return dataclasses.replace(
        plan,
        estimate_s=cost(len(kept), levels, rounds),
        rounds=rounds,
        cap=levels[-1] if levels and levels[-1] != ladder[-1] else plan.cap,
        variants=kept,
        cuts=[*plan.cuts, *cuts],
        load_s=load_s,
        visits=visits,
    )


def after_loads(plan: Fit, load_s: float, left_s: float, done: int | None = None, priced: str = "", digits: int = 0) -> str:
    """When a cut of the plan fitted again was made, as its reason says it: ``"after the first 2 loads
    took 15.0 s a variant to load and warm up (the plan assumed 5.0 s), 120 s were left"`` (``done``: the loads measured
    before loads still to come; ``None``: once the group is loaded, ``"after the loads took ..."``; ``priced``:
    how the loads to come were priced where a format's differ, ``"onnx ones not loaded yet: 5.0 s each"``; ``digits``:
    the decimals of the time left, those of the need it is said against (:func:`perf.markdown.apart`))."""
    which = "the loads" if done is None else "the first load" if done == 1 else f"the first {count(done, 'load')}"
    assumed = f"(the plan assumed {fmt(plan.load_s, 1)} s{'; ' + priced if priced else ''})"
    return f"after {which} took {fmt(load_s, 1)} s a variant {LOAD_WORDS} {assumed}, {fmt(left_s, digits)} s were left"
