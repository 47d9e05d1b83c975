"""What the rounds scheduler (:class:`perf.search.rounds.Rounds`) does after each round (its module docstring, rule 2):
every ladder updated (:func:`update_ladders`), and with ``--search prune`` a drop the latency budget no longer holds taken
back, the contenders the leader beats dropped (:func:`prune`) and the next round narrowed (:func:`narrow`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from perf.analysis.ranking.operating import Comparison, Side
from perf.analysis.ranking.rank import Ranking
from perf.records.rounds import RoundRecord, RoundsRecord
from perf.records.search import SearchRecord
from perf.search import by_workload, drops
from perf.search import ladder as ladders
from perf.search.ending.decided import Rounds
from perf.search.failed import FailedLevels
from perf.search.focus import focus, out_of_reach
from perf.search.plan import at_workload, workload_label
from perf.search.retirement import Workload, changes
from perf.search.stops import note_stop


class Scheduler(Rounds, Protocol):
    """What this module reads of a :class:`perf.search.rounds.Rounds` (a protocol: that module imports this one)."""

    record: RoundsRecord
    search: SearchRecord
    failed: FailedLevels
    resting: set[str]
    #: While a resume rebuilds its ladders from the record: what retires then was said when it was measured.
    replaying: bool
    events: Callable[[dict[str, Any]], None]
    save: Callable[[], None]

    def contenders(self, names: Sequence[str]) -> list[str]:
        """``names`` not failed, not pruned and not withdrawn."""
        ...

    def ranking(self, names: Sequence[str]) -> Ranking:
        """The paired ranking of ``names``."""
        ...


def step(sched: Scheduler, alive: Sequence[str], rr: RoundRecord, rounds_left: int, group: Sequence[str]) -> None:
    """After a round of ``alive`` (the contenders of ``group``, the group's loaded variants; its dropped ones
    are judged for taking back, :mod:`perf.search.drops`): ladders, drops, the next round's focus."""
    s = sched.setup
    update_ladders(sched, alive, alive)
    for n in alive:
        several = len(sched.ladders[n]) > 1
        for load, lad in sched.ladders[n].items():  # the variant's own stop at one workload, each one's at several
            label = workload_label(s.plans, load) if several else ""
            note_stop(sched.search, n, load if several else None, label, lad.end, sched.events)
    sched.resting = set()
    if s.mode == "prune":
        every = {n: vr for n in group if (vr := sched.run_variant(n)).status != "failed"}  # dropped ones too: under budget?
        if s.budget is not None and any(d.rule == "pruned" and d.variant in every for d in sched.search.decisions):
            drops.take_back(sched.search, every, s.budget, sched.events)  # a drop the budget no longer holds, per workload
        prune(sched, sched.contenders(group))
        narrow(sched, sched.contenders(group), rounds_left)
    sched.save()


def update_ladders(sched: Scheduler, alive: Sequence[str], names: Sequence[str]) -> None:
    """The ladders of ``names`` after a round of ``alive`` (:func:`perf.search.ladder.update`; by peak at each
    client workload where no contender of ``alive`` has a level within the budget), ended at a failed level."""
    s = sched.setup
    met = drops.met([sched.run_variant(n) for n in alive], s.budget)  # per client workload: its ranking under the budget
    for n in names:
        lanes, plan, vr = sched.ladders[n], s.plans[n], sched.run_variant(n)
        before = {w: (set(lad.levels), set(lad.retired_why)) for w, lad in lanes.items()}
        peak = {w for w in lanes if s.budget is not None and w not in met}  # each workload's own
        ladders.update_lanes(lanes, plan, vr, s.ladder, s.adaptive, s.rules, s.rounds, s.budget, s.cap, peak)
        sched.failed.end_ladder(lanes, plan, vr, s.budget)
        for w, lad in lanes.items():  # each change said once, as it happens (T16-1, T20-10), and recorded
            now, budget = (lad.levels, lad.retired_why, lad.joined_why), None if w in peak else s.budget
            for ch in [] if sched.replaying else changes(n, w, before[w], now, at_workload(plan, w), vr, budget, s.rounds.min_rounds, len(sched.record.measured())):  # fmt: skip
                sched.search.level_changes.append(ch)  # a resume's replay: said when it was measured (T18-13)
                sched.events({"event": "level_changed", "change": ch})


def narrow(sched: Scheduler, left: Sequence[str], rounds_left: int) -> None:
    """The next round of ``left`` narrowed (:func:`perf.search.focus.focus`; not at several client workloads)."""
    s, variants = sched.setup, {n: sched.run_variant(n) for n in left}
    if sched.workloads(left) is not None:  # several client workloads: no narrowing (a variant's levels serve each)
        return
    lanes = {n: lad for n in left for lad in sched.ladders[n].values()}  # one workload: one ladder each
    for n, levels in focus(sched.ranking(left), lanes, s.plans, variants, s.rules, s.rounds, rounds_left).items():
        lanes[n].active = levels  # a settled tie rests; one far behind: its compared level only
        if not levels:
            sched.resting.add(n)


def prune(sched: Scheduler, alive: Sequence[str]) -> None:
    """Drop contenders the leader beats by the paired rule and whose ladder cannot lift them (not
    climbing, no level with fewer than ``min_rounds`` rounds).
    Nothing else drops a variant: a latency over the budget is an absolute number, which
    other processes' load inflates alike for every variant, so it is never a reason here."""
    per = sched.workloads(alive)
    if per is None:
        for comp in sched.ranking(alive).comparisons:
            if _beaten(sched, comp.b.variant, comp):
                _drop(sched, comp.b.variant, comp.b.concurrency, comp.sentence(), comp.a.variant, [comp.a])
        return
    beaten = functools.partial(_beaten, sched)
    for drop in by_workload.drops(per, sched.rank_series, beaten):  # like with like, beaten at every workload
        _drop(sched, *drop)


def _beaten(sched: Scheduler, name: str, comp: Comparison) -> bool:
    """``comp`` (the leader against ``name`` or one of its series) beats it by the rule and its ladder at that
    comparison's client workload cannot lift it."""
    s = sched.setup
    lanes, plan, vr = sched.ladders[name], s.plans[name], sched.run_variant(name)
    load: Workload | None = (comp.b.batch_size, comp.b.shape)
    load = load if load in lanes else None  # not one of its workloads' (never expected): any of its ladders
    # a ladder still climbing, or a level with too few rounds, may lift it, unless beyond its reach (T22 F-prune-c1)
    return not (
        comp.verdict != "a"
        or ladders.climbing_at(lanes, plan, vr, s.rules, load)
        or (ladders.exploring_at(lanes, plan, vr, s.rounds, load) and not out_of_reach(comp, lanes, plan, vr, s.rounds))
    )


def _drop(sched: Scheduler, name: str, at: int, reason: str, best: str | None = None, beaten_at: Sequence[Side] = ()) -> None:
    d = drops.decision(sched.run_variant(name), at, reason, best, beaten_at)
    sched.search.record(d)
    sched.events({"event": "search_decision", "variant": name, "decision": d, "levels_left": 0})
