"""Failed levels in a rounds sweep (:mod:`perf.search.rounds`): one rule with the sequential design.

A level fails when no visit of it measured. A request error (perf_analyzer's exit, no inference,
a file of inputs the model refuses) is the same each time, so a level that meets one is not
measured again in this session, as in the sequential design (:mod:`perf.search.policy`): it ends
its ladder (a ``failed`` decision, :func:`perf.search.stops.failed_reason`, which says why; a
resumed run measures it again), and a variant none of whose levels is left to measure, with none
that has numbers, fails with its level's error (trial 11, F21: a level refused on its first visit
was measured again in each of 10 rounds, counted as 10 rounds). A window that saw no request
complete (:func:`perf.records.levels.window_failure`) depends on the host's load of that moment
(trial 14, T14-3: c=1 measured in round 1 and "failed" in round 2 on a busy host, which ended its
ladder), and so does an error of the server's state of that moment (:func:`perf.records.levels.transient_failure`:
a version the server's index did not find while the sweep had it loaded, a dropped connection, a
deadline; re-check of trial 14, NEW-3: "failed to find the requested model version" ended two ladders
while server.log had the models loaded): either is no measurement this round, and a level fails by it
only when :data:`WINDOW_VISITS` visits met one and no round measured it. Every visit of this design is
to a variant the sweep loaded (:mod:`perf.sweep.rounds`), so such a failure says the model was loaded.
A round whose every visit failed is no round (:meth:`perf.records.rounds.RoundsRecord.measured`).
"""

from __future__ import annotations

from perf.markdown import fmt_given
from perf.records.levels import TRANSIENT_WORDS, LevelResult, transient_failure, window_failure
from perf.records.results import VariantResult
from perf.search import ladder as ladders
from perf.search.plan import LevelKey, VariantPlan, at_workload
from perf.search.policy import Budget
from perf.search.stops import failed_reason

#: A level of a variant less its trial (the round): ``(concurrency, batch size, request rate, shape)``.
Load = tuple[int, int, "float | None", "str | None"]
#: Visits of a level that met a transient error (a window with no request complete, the server's state of that
#: moment: :func:`perf.records.levels.transient_failure`), none of its rounds measured, before it fails.
WINDOW_VISITS = 2


class FailedLevels:
    """The levels that failed in this session, per variant, with why (module rule)."""

    def __init__(self) -> None:
        self.by_variant: dict[str, dict[Load, str]] = {}
        #: Visits of each level so far that met a transient error (module rule).
        self.misses: dict[str, dict[Load, int]] = {}

    def record(self, vr: VariantResult, key: LevelKey, level: LevelResult) -> None:
        """Keep ``level`` (of ``vr`` at ``key``, placed in ``vr``) when it failed: at once for a request
        error, for a transient one (a window that saw no request complete, the server's state of that moment)
        only when no round of it measured and :data:`WINDOW_VISITS` of its visits met one (module rule)."""
        if level.ok:
            return
        c, b, _, r, sh = key
        load = (c, b, r, sh)
        if transient_failure(level.error):
            if any(lv.ok and (lv.concurrency, lv.batch_size, lv.request_rate, lv.shape) == load for lv in vr.levels):
                return  # another round measured it: no measurement this round, not a failed level
            misses = self.misses.setdefault(vr.name, {})
            misses[load] = misses.get(load, 0) + 1
            if misses[load] < WINDOW_VISITS:
                return
        self.by_variant.setdefault(vr.name, {})[load] = level.error or "no throughput"

    def skips(self, name: str, key: LevelKey) -> bool:
        """Whether ``key`` of ``name`` failed in this session (not measured again)."""
        c, b, _, r, sh = key
        return (c, b, r, sh) in self.by_variant.get(name, {})

    def end_ladder(self, lanes: ladders.Lanes, plan: VariantPlan, vr: VariantResult, budget: Budget | None) -> None:
        """End each adaptive ladder of a variant (one per client workload) at its lowest level that failed at that
        workload: no level is added above it there, and those above it that have no numbers there go. A level
        failed at one workload ends no other workload's ladder (:mod:`perf.search.ladder`, rule "Per client workload")."""
        failed = self.by_variant.get(plan.name, {})
        for load, lad in lanes.items():
            here = {c: w for (c, b, r, sh), w in failed.items() if r is None and (b, sh) == load}
            if not here or not lad.adaptive:
                continue
            c = min(here)
            lad.end = ladders.decision(at_workload(plan, load), vr, "failed", c, failed_reason(c, here[c], loaded=True), budget)
            have = ladders.seen(vr, load)
            lad.levels = [x for x in lad.levels if x <= c or x in have]
            lad.active = [x for x in lad.active if x in lad.levels]

    def give_up(self, vr: VariantResult) -> str | None:
        """Why ``vr`` fails, when levels of it failed and none has numbers (its caller knows none is
        left to measure); ``None`` otherwise."""
        failed = self.by_variant.get(vr.name)
        if not failed or any(lv.ok for lv in vr.levels):
            return None
        (c, b, r, sh), why = next(iter(failed.items()))
        load = f"request rate {fmt_given(r, 0)}/s" if r is not None else f"concurrency {c}"
        where = f"at {load} batch {b}{f' {sh}' if sh else ''}"
        if window_failure(why):
            return f"{why} ({where}: no request completed within the window in any of its {WINDOW_VISITS} visits)"
        if transient_failure(why):
            return (
                f"{why} ({where}, in each of its {WINDOW_VISITS} visits, while this sweep had the model loaded: "
                f"{TRANSIENT_WORDS}; a resumed run measures it again)"
            )
        return (
            f"{why} ({where}; not measured again in this session: a failed level "
            "fails the same way each time, and a resumed run measures it again)"
        )
