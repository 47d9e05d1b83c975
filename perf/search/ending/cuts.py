"""The ladders a group's rounds left short (:mod:`perf.search.rounds`), each client workload's on its own
(:mod:`perf.search.ladder`, rule "Per client workload"): a ladder the time budget stopped while it still
climbed, and one at the time budget's cap while its throughput still rose into it. Each cut names the series
the report shows (:func:`perf.records.workloads.series_name`: ``"v [seq=128]"`` at one of several
workloads), so the report's cut lines and its "peak not reached" read that workload's numbers
(:func:`perf.analysis.saturation.peaks.judged_cut`, :func:`perf.analysis.saturation.peaks.unreached`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Protocol

from perf.analysis.saturation.peaks import CAP_ONE_LEVEL, CAP_RISING, STOPPED_CLIMBING, STOPPED_RISING
from perf.records.results import VariantResult
from perf.records.rounds import Cut
from perf.records.workloads import series_name
from perf.search import ladder as ladders
from perf.search.plan import at_workload, workload_label
from perf.search.retirement import Workload


class Engine(Protocol):
    """What this module reads of a :class:`perf.search.rounds.Rounds` (a protocol: that module imports this one)."""

    setup: Any
    ladders: dict[str, ladders.Lanes]

    def run_variant(self, name: str) -> VariantResult:
        """The run's record of variant ``name``."""
        ...


def series_of(sched: Engine, name: str, load: Workload) -> str:
    """The name the report shows variant ``name``'s levels at client workload ``load`` under."""
    return series_name(name, workload_label(sched.setup.plans, load))


def stopped(sched: Engine, alive: Sequence[str]) -> list[Cut]:
    """The ladders of ``alive`` the time budget stopped before their search ended them, one cut per client
    workload whose ladder still climbed (judged on its measured levels: one just added, never measured, is
    not where it stopped), said "while still rising" where its throughput still rose into its top by the
    one rule (:func:`perf.search.ladder.rising_top`)."""
    s, out = sched.setup, []
    for n in alive:
        vr = sched.run_variant(n)
        for load, lad in sched.ladders[n].items():
            plan = at_workload(s.plans[n], load)
            got = dataclasses.replace(lad, levels=sorted(set(lad.levels) & ladders.seen(vr, load)))
            if lad.end is None and got.levels and ladders.climbing(got, plan, vr, s.rules):
                top = got.levels[-1]
                r = ladders.rising_top(vr, plan, top, s.rules)  # from its only level no trend is told (s21m)
                how = STOPPED_RISING if r is not None and r.below is not None else STOPPED_CLIMBING
                out.append(Cut("ladder", f"its ladder stopped at concurrency {top} {how}", series_of(sched, n, load), top))
    return out


def capped(sched: Engine) -> list[Cut]:
    """The ladders ended at the time budget's cap while their throughput still rose into it, or at their only level
    (no step to tell: :data:`~perf.analysis.saturation.peaks.CAP_ONE_LEVEL`), one cut per client workload."""
    s, out = sched.setup, []
    for n, lanes in sched.ladders.items():
        for load, lad in lanes.items():
            top = lad.levels[-1]  # at its own top, the cap or a level a resume measured before
            plan = at_workload(s.plans[n], load)
            r = ladders.rising_top(sched.run_variant(n), plan, top, s.rules) if lad.capped and s.cap is not None else None
            if r is not None:  # at its only level no step says it rose: that is said instead (s21m)
                said = CAP_RISING if r.below is not None else CAP_ONE_LEVEL
                out.append(Cut("ladder", f"{said} {top}, the time budget's cap", series_of(sched, n, load), top))
    return out
