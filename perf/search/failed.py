"""Failed levels in a rounds sweep (:mod:`perf.search.rounds`): one rule with the sequential design.

A level that failed (request errors, perf_analyzer's exit, no inference) fails the same way each
time, as for a file of inputs the model refuses, so it is not measured again in this session, as
in the sequential design (:mod:`perf.search.policy`): it ends its ladder (a ``failed`` decision,
:func:`perf.search.stops.failed_reason`, which says why; a resumed run measures it again), and a
variant none of whose levels is left to measure, with none that has numbers, fails with its level's
error (trial 11, F21: a level refused on its first visit was measured again in each of 10 rounds,
counted as 10 rounds). A round whose every visit failed is no round
(:meth:`perf.records.rounds.RoundsRecord.measured`).
"""

from __future__ import annotations

from perf.records.levels import LevelResult
from perf.records.results import VariantResult
from perf.search import ladder as ladders
from perf.search.plan import LevelKey, VariantPlan
from perf.search.policy import Budget
from perf.search.stops import failed_reason

#: A level of a variant less its trial (the round): ``(concurrency, batch size, request rate, shape)``.
Load = tuple[int, int, "float | None", "str | None"]


class FailedLevels:
    """The levels that failed in this session, per variant, with why (module rule)."""

    def __init__(self) -> None:
        self.by_variant: dict[str, dict[Load, str]] = {}

    def record(self, name: str, key: LevelKey, level: LevelResult) -> None:
        """Keep ``level`` (of ``name`` at ``key``) when it failed."""
        if not level.ok:
            c, b, _, r, sh = key
            self.by_variant.setdefault(name, {})[(c, b, r, sh)] = level.error or "no throughput"

    def skips(self, name: str, key: LevelKey) -> bool:
        """Whether ``key`` of ``name`` failed in this session (not measured again)."""
        c, b, _, r, sh = key
        return (c, b, r, sh) in self.by_variant.get(name, {})

    def end_ladder(self, lad: ladders.Ladder, plan: VariantPlan, vr: VariantResult, budget: Budget | None) -> None:
        """End an adaptive ladder at its lowest level that failed: no level is added above it, and
        those above it that have no numbers go."""
        failed = self.by_variant.get(plan.name, {})
        levels = sorted({c for c, _, r, _ in failed if r is None})
        if not levels or not lad.adaptive:
            return
        c = levels[0]
        why = next(w for (fc, _, r, _), w in failed.items() if fc == c and r is None)
        lad.end = ladders.decision(plan, vr, "failed", c, failed_reason(c, why), budget)
        have = ladders.seen(vr)
        lad.levels = [x for x in lad.levels if x <= c or x in have]
        lad.active = [x for x in lad.active if x in lad.levels]

    def give_up(self, vr: VariantResult) -> str | None:
        """Why ``vr`` fails, when levels of it failed and none has numbers (its caller knows none is
        left to measure); ``None`` otherwise."""
        failed = self.by_variant.get(vr.name)
        if not failed or any(lv.ok for lv in vr.levels):
            return None
        (c, b, r, sh), why = next(iter(failed.items()))
        load = f"request rate {r:g}/s" if r is not None else f"concurrency {c}"
        return (
            f"{why} (at {load} batch {b}{f' {sh}' if sh else ''}; not measured again in this session: a failed level "
            "fails the same way each time, and a resumed run measures it again)"
        )
