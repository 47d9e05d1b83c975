"""A drop (a prune) of the search: the decision recorded, and taken back when its grounds no longer
hold: the level that beat the variant has left the latency budget.

The search drops a variant the leader beats by the paired rule (:func:`perf.search.after_round.prune`).
Under a latency budget the leader is ranked at a level within it; but whether a level is within the
budget is an absolute latency (:mod:`perf.analysis.ranking.budget_latency`), which later rounds move
(trial 8: ``mlp_onnx_cpu2_db500_mbs64`` at concurrency 2 beat four variants while its p99 was
24.4 ms, within the 25 ms budget; its next round took it to 25.03 ms, and the run then
recommended and bundled a variant it had dropped on that level's word, and listed the others as
beaten by it). A paired throughput ratio stays what it was, so a drop rests on two facts: the
verdict and the beating level's place within the budget; only the second can change.

So after each round, each drop whose beating level is not within the budget by the rounds so far,
while the ranking at that level's client workload is under the budget (:func:`met`), is taken back: the
variant is a contender again from the next round (its ladder as it was), and the console says why.
A drop judged while the ranking was by peak (no level within the budget then) is taken back the
same way once the ranking is under it, since that drop compared levels over the budget. If the
leader beats it again at a level within the budget, it is dropped again, on that comparison.
The report applies the same condition to the drops it is given (:func:`perf.analysis.ranking.rank.rank_variants`).

Every judgement of the search on whether a ranking is under the budget is one per client workload
(:func:`met`): a drop at several workloads stands on the leader's level at each one, and each such
level is judged by its own workload's ranking. With ``--batch-sizes 1,8`` and every b=8 level over
the budget, b=8 is ranked by peak while b=1 is ranked under the budget; a drop whose b=8 beating
level is over the budget was compared by peak there and stands (the whole variants, their workloads
mixed, were "under the budget" by their b=1 levels, so the b=8 level was taken for stale: the drop
was taken back and made again every round).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from perf.analysis.ranking.budget_latency import judged, within
from perf.analysis.ranking.operating import Side, levels_of, records, summary
from perf.markdown import fmt
from perf.records.results import VariantResult
from perf.records.search import BeatingLevel, SearchDecision, SearchRecord
from perf.search.policy import Budget

#: A client workload of a level (:mod:`perf.records.workloads`): its client batch size and swept shape.
Workload = tuple[int, str | None]


def workload_of(side: Side) -> Workload:
    """The client workload ``side`` is measured at."""
    return side.batch_size, side.shape


def met(variants: Iterable[VariantResult], budget: Budget | None) -> set[Workload]:
    """The client workloads at which the ranking of ``variants`` is under ``budget`` (module docstring):
    some level there of a variant not failed is within it, as the ranking judges an operating point
    (:func:`perf.analysis.ranking.operating.summary`: a level with throughput; its latency as the budget judges it,
    :func:`perf.analysis.ranking.budget_latency.within`). At any other workload the ranking is by peak. Empty
    without a budget. The one rule of the search's "ranked under the budget" (:mod:`perf.search.rounds`:
    its rankings, its ladders' retirement, the drops taken back here)."""
    out: set[Workload] = set()
    if budget is None:
        return out
    for vr in variants:
        for side in levels_of(vr) if vr.status != "failed" else []:
            if (
                workload_of(side) not in out
                and (s := summary(vr, side, budget.ms, budget.metric, cores=budget.cores)) is not None
            ):
                if within(s.latency, budget.ms):
                    out.add(workload_of(side))
    return out


def decision(vr: VariantResult, at: int, reason: str, best: str | None, beaten_at: Sequence[Side] = ()) -> SearchDecision:
    """The search's decision to drop ``vr`` at concurrency ``at``: ``best``'s levels ``beaten_at`` beat it
    (one per client workload; the first's concurrency is ``best_concurrency``), ``reason`` in words."""
    measured = sorted({lv.concurrency for lv in vr.levels if lv.request_rate is None})
    levels = [BeatingLevel(s.concurrency, s.batch_size, s.shape) for s in beaten_at]
    first = levels[0].concurrency if levels else None
    return SearchDecision(vr.name, "pruned", at, reason, measured, best_variant=best, best_concurrency=first, beaten_at=levels)


def take_back(
    search: SearchRecord,
    variants: Mapping[str, VariantResult],
    budget: Budget,
    events: Callable[[dict[str, Any]], None],
) -> list[str]:
    """Take back every drop of :func:`stale_drops` from ``search``: each variant a contender again,
    said by a ``search_decision`` event with ``reopened`` and ``why``; returns their names."""
    stale = stale_drops(search.decisions, variants, budget)
    for d, why in stale:
        search.decisions = [x for x in search.decisions if x is not d]
        events(  # said once: by the listener (perf.search.events.log_event without one)
            {"event": "search_decision", "variant": d.variant, "decision": None, "reopened": True, "why": why}
        )
    return [d.variant for d, _ in stale]


def stale_drops(
    decisions: list[SearchDecision], variants: Mapping[str, VariantResult], budget: Budget
) -> list[tuple[SearchDecision, str]]:
    """The drops among ``decisions`` whose beating level is not within the budget now while its client
    workload's ranking is under it (:func:`met` over ``variants``), each with why in words (module docstring).

    Args:
        decisions: The search's decisions (only ``"pruned"`` ones with the level that beat them are judged).
        variants: The variants of the group, by name (a drop of a variant not in it is left alone).
        budget: The latency budget (its ms and percentile).
    """
    out = []
    pct, budget_ms, metric = f"p{budget.percentile}", budget.ms, budget.metric
    under = met(variants.values(), budget)
    for d in decisions:
        by = variants.get(d.best_variant or "")
        if d.rule != "pruned" or d.variant not in variants or by is None or d.best_concurrency is None:
            continue
        for side in _beating_sides(d, by):  # each workload's: the drop stands on every one
            if workload_of(side) not in under:  # that workload is ranked by peak: a drop by peak stands
                continue
            judge = judged(records(by, side), metric, cores=budget.cores) if side in levels_of(by) else None
            if within(judge, budget_ms):
                continue
            now = f"{pct} {fmt(judge.ms, 2)} ms ({judge.basis()})" if judge is not None else f"no {pct} measured"
            level = side.describe() if d.beaten_at else f"`{d.best_variant}` at concurrency {d.best_concurrency}"
            out.append((d, f"{level}, the level that beat it, is over the {pct} budget of {fmt(budget_ms, 2)} ms now: {now}"))
            break
    return out


def _beating_sides(d: SearchDecision, by: VariantResult) -> list[Side]:
    """The levels of ``by`` that beat ``d``'s variant: its recorded ones (one per client workload), else (a
    record written before them) its first level at ``best_concurrency``."""
    if d.beaten_at:
        return [Side(by.name, b.concurrency, b.batch_size, b.shape) for b in d.beaten_at]
    return [s for s in levels_of(by) if s.concurrency == d.best_concurrency][:1] or [Side(by.name, d.best_concurrency or 0)]
