"""Interleaved rounds: the scheduler of a rounds sweep (the default design).

The variants still in contention are loaded together (the sweep does that: :mod:`perf.sweep.rounds`)
and measured in **rounds**: each round measures every active (variant, level) once, in an
order shuffled with ``random.Random(seed + round)`` (recorded), each visit one short
perf_analyzer run. Background load then falls on every variant of a round alike, and every
comparison is *paired* within a round (:mod:`perf.analysis.stats.paired`). After each round:

1. every ladder is updated (:func:`perf.search.ladder.update_lanes`: grown, ended, levels retired; one per
   client workload, each on its own numbers);
2. with ``--search prune``, a variant the leader beats by the paired rule
   (:mod:`perf.analysis.stats.paired`: a sign test at 5 % over 6 rounds, or a large gap every one
   of 3 rounds or more agrees on), and whose ladder can
   no longer lift it (:func:`perf.search.ladder.climbing`; a level with too few rounds does not protect one the leader
   is ahead of in every round by more than that level could lift it, :func:`perf.search.focus.reach`), is dropped — by nothing else (the
   ranking is under the latency budget when a contender has a level within it, else by peak, each client
   workload's on its own, :func:`perf.search.drops.met`; a ladder then retires levels at each workload as
   that workload's ranking judges them: :mod:`perf.search.retirement`); then
   the next round is narrowed (:mod:`perf.search.focus`): a settled tie rests while its leader
   leads (its request-rate levels too), a variant far behind is measured at its compared level only;
3. the rounds end when the ranking is **decided** (no contender still climbing; the leader
   beats each other contender, or the rounds left up to ``max_rounds`` could not separate
   them: a settled tie, a member with fewer than 6 rounds shared with the leader said too few to
   tell, as the report says it), after ``max_rounds``, when no contender has a level left, or when
   the next round does not fit in the time budget (estimated from the visits measured so far; the
   cut is recorded, never silent), or within a round, at a visit that would end past it (timed the same
   way: :mod:`perf.search.ending.out_of_time`, which also says what made visits far over their plan slow).
   The words say which ranking (:mod:`perf.analysis.ranking.standing`).

Several client workloads (sizes, batch sizes): each workload ranked on its own (:mod:`perf.search.by_workload`), on
its own ladders (:mod:`perf.search.ladder`), a ladder cut for time said for its workload (:mod:`perf.search.ending.cuts`).

A failed level is not measured again in this session (:mod:`perf.search.failed`: a window with no
request completed is no measurement that round). A round with no visit is no round: not kept, counted nowhere; one whose every visit
failed is kept (its visits ran) but is no round either. A group's rounds are counted one way
(:meth:`perf.records.rounds.RoundsRecord.group_rounds`, a resumed run's earlier session included):
``max_rounds`` caps that count and the words of its end say it.

Nothing here starts a server: the measurement is a function ``measure(variant, key)`` given
by the caller, so the same code runs the real sweep and the simulation test.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from perf.analysis.ranking.budget_latency import host_cores
from perf.analysis.ranking.rank import Ranking, rank_variants
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import EndedBy, RoundRecord, RoundsRecord, Visit
from perf.records.search import SearchRecord
from perf.search import after_round, by_workload, drops
from perf.search import ladder as ladders
from perf.search.ending import cuts as ladder_cuts
from perf.search.ending.decided import decided_words
from perf.search.ending.ends import Ending, after, ending, start_ladders
from perf.search.ending.out_of_time import out_of_time, slow_words, stopped_mid_round
from perf.search.ending.tie import tie_set
from perf.search.events import log_event
from perf.search.failed import FailedLevels
from perf.search.plan import LevelKey
from perf.search.retirement import Workload
from perf.search.setup import Setup

log = logging.getLogger(__name__)

#: ``measure(variant, key)``: one visit (``key``'s trial is the round); ``None`` when it was
#: not measured (the variant failed meanwhile; the caller says why in its record).
Measure = Callable[[str, LevelKey], "LevelResult | None"]
Events = Callable[[dict[str, Any]], None]


def now() -> str:
    """The local time as ISO 8601 with its UTC offset (``2025-01-31T14:05:09+0100``)."""
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def _active(lanes: ladders.Lanes, load: Workload) -> list[int]:
    """The levels the ladder of client workload ``load`` measures next (none without one)."""
    lad = lanes.get(load)
    return lad.active if lad is not None else []


def _place(vr: VariantResult, level: LevelResult) -> None:
    vr.levels = sorted([lv for lv in vr.levels if lv.key != level.key] + [level], key=lambda lv: lv.key)


class Rounds:
    """Runs rounds over groups of variants of one run (module docstring).

    ``kept_s``: the time budget after ``deadline`` kept for the in-process baseline (s; the sweep's plan), said beside what is left.

    Args:
        run: The run (its ``rounds`` and ``search`` records are filled in; levels are added to its variants).
        setup: Plans and rules.
        visit_s: Estimated cost of one visit (s), until real visits are timed.
        clock: Monotonic seconds (injected by the simulation).
        deadline: ``clock()`` value at which the time budget is spent; ``None``: no budget.
        save: Called after every visit (the sweep saves ``results.json``).
        events: Progress events (``round_start``, ``level_start``, ``level_done``, ``search_decision``, ``round_done``;
            without a listener :func:`perf.search.events.log_event`: each message said once).
        slow_why: What lengthens the visits (the sweep's flags passed through), said with visits far over ``visit_s``.
    """

    def __init__(
        self,
        run: RunResult,
        setup: Setup,
        visit_s: float,
        clock: Callable[[], float] = time.monotonic,
        deadline: float | None = None,
        save: Callable[[], None] = lambda: None,
        events: Events = log_event,
        slow_why: str = "",
    ):
        if run.rounds is None or run.search is None:
            raise ValueError("a rounds run needs its rounds and search records")
        self.run, self.setup, self.clock, self.deadline = run, setup, clock, deadline
        self.record: RoundsRecord = run.rounds
        self.search: SearchRecord = run.search
        self.save, self.events, self.replaying = save, events, False  # replaying: a resume rebuilds ladders (ends.py)
        self.ladders: dict[str, ladders.Lanes] = {}  # per variant, one ladder per client workload
        self.resting: set[str] = set()  # settled tie members not measured while their leader leads (focus)
        self.withdrawn: set[str] = set()  # not loaded again after the server died: the time left did not fit it
        self.failed = FailedLevels()  # levels failed in this session (perf.search.failed)
        self.walls: list[float] = []  # each visit's seconds, as timed
        self.planned_visit_s, self.slow_why, self._slow_said, self.kept_s = visit_s, slow_why, False, 0.0
        self._lock = threading.Lock()

    # -- state ------------------------------------------------------------------------------
    @property
    def visit_s(self) -> float:
        """Mean real visit time so far (s), else the estimate."""
        return sum(self.walls) / len(self.walls) if self.walls else self.planned_visit_s

    def run_variant(self, name: str) -> VariantResult:
        """The run's variant ``name``."""
        return self._vr(name)

    def _vr(self, name: str) -> VariantResult:
        vr = self.run.variant(name)
        if vr is None:
            raise KeyError(name)
        return vr

    def contenders(self, names: Sequence[str]) -> list[str]:
        """``names`` not failed, not pruned and not :attr:`withdrawn`."""
        out = {d.variant for d in self.search.decisions if d.rule == "pruned"} | self.withdrawn
        return [n for n in names if self._vr(n).status != "failed" and n not in out]

    def ranked(self, names: Sequence[str]) -> tuple[Ranking, bool]:
        """The paired ranking of ``names`` (a run of one client workload) and whether it is under the latency budget (module
        rule 2). Raises ValueError at several workloads: each one's series is ranked on its own (:meth:`rank_series`)."""
        if self.workloads(names) is not None:
            raise ValueError(f"{', '.join(names)}: levels at several client workloads, ranked per workload (Rounds.workloads)")
        return self.rank_series([self._vr(n) for n in names])

    def workloads(self, names: Sequence[str]) -> dict[str, list[VariantResult]] | None:
        """The series of ``names`` per client workload, ``None`` at one (:func:`perf.search.by_workload.series`)."""
        return by_workload.series(self.run, [self._vr(n) for n in names])

    def rank_series(self, variants: list[VariantResult]) -> tuple[Ranking, bool]:
        """The paired ranking of ``variants`` (series of one workload, or the variants of a run of one) and whether
        it is under the budget: a level of one is within it (:func:`perf.search.drops.met`), else it is by peak."""
        b = self.setup.budget
        if b is not None and drops.met(variants, b):
            return rank_variants(variants, b.ms, b.metric, cores=host_cores(self.run)), True
        return rank_variants(variants, None, b.metric if b else "latency_p99_ms", cores=host_cores(self.run)), False

    def ranking(self, names: Sequence[str]) -> Ranking:
        """The paired ranking of ``names`` (:meth:`ranked`)."""
        return self.ranked(names)[0]

    def round_s(self, names: Sequence[str]) -> float:
        """The next round's estimated cost over ``names`` (s): its visits times :attr:`visit_s`."""
        return len(self.visits(names, self.record.next_index())) * self.visit_s

    def visits(self, names: Sequence[str], index: int) -> list[tuple[str, LevelKey]]:
        """Every active (variant, level) of ``names`` in round ``index``, unshuffled; none of a
        resting variant (:mod:`perf.search.focus`), its request-rate levels neither; none that failed
        in this session (:mod:`perf.search.failed`)."""
        out: list[tuple[str, LevelKey]] = []
        for n in names:
            if n in self.resting:
                continue
            plan, lanes = self.setup.plans[n], self.ladders[n]
            loads: list[tuple[int, float | None]] = [(c, None) for c in sorted({c for lad in lanes.values() for c in lad.active})]
            loads += sorted({(0, k[3]) for k in plan.levels if k[3] is not None}, key=str)
            keys = [(c, b, index, r, sh) for c, r in loads for b in plan.batch_sizes for sh in plan.shapes]
            keys = [k for k in keys if k[3] is not None or k[0] in _active(lanes, (k[1], k[4]))]  # each workload's ladder
            out += [(n, k) for k in keys if not self.failed.skips(n, k)]
        return out

    # -- the loop ---------------------------------------------------------------------------
    def run_group(self, names: Sequence[str], group: int, measure: Measure, reserve_s: float = 0.0) -> list[str]:
        """Rounds over ``names`` until decided, ``max_rounds``, or the time budget; returns the
        group's tie set (leader first; every contender when nothing could be ranked).
        ``reserve_s``: budget kept for what follows the rounds (unloading the group)."""
        s = self.setup
        start_ladders(self, names)
        while True:
            # the group's rounds, one count (perf.records.rounds.RoundsRecord.group_rounds): a resumed
            # group's earlier rounds count towards max_rounds; a round that measured nothing counts nowhere
            done = len(self.record.group_rounds(group))
            alive = self.contenders(names)
            why = ending(self, alive, done, reserve_s)  # the one rule (a resume asks it before loading)
            if why is not None:
                break
            with self._lock:
                index = self.record.next_index()
                self.record.rounds.append(RoundRecord(index, group, self.record.seed + index, now()))
                rr = self.record.rounds[-1]
            todo = self.visits(alive, index)
            cost = len(todo) * self.visit_s
            if not todo or (self.deadline is not None and self.clock() + cost > self.deadline - reserve_s):
                with self._lock:
                    self.record.rounds.remove(rr)
                if todo:
                    why = Ending(out_of_time(self, alive, done, cost + reserve_s, group), "time")
                else:  # every contender's levels retired or resting: a round without a visit is no round
                    words = f"no level left to measure ({after(self.record, done)}): each contender's levels retired or resting"
                    why = Ending(words, "no_level")
                break
            random.Random(rr.seed).shuffle(todo)
            left = self._measure(rr, todo, measure, reserve_s)
            if not rr.order:  # every variant of it failed before its visit: no round
                with self._lock:
                    self.record.rounds.remove(rr)
                continue
            if left:  # its next visit would have ended past the budget: the rounds end here
                why = Ending(stopped_mid_round(self, alive, rr, left, reserve_s, group), "time")
                break
            self._stop_failed(alive, rr.index + 1)
            if rr not in self.record.measured():  # every visit failed: kept, but no round (counted nowhere)
                continue
            after_round.step(self, alive, rr, max(0, s.rounds.max_rounds - done - 1), names)
        tie = self._tie_set(names)
        self._finish_group(group, why.words, tie, why.by)
        return tie

    def _measure(self, rr: RoundRecord, todo: list[tuple[str, LevelKey]], measure: Measure, reserve_s: float = 0.0) -> int:
        """Round ``rr``'s visits ``todo``, in order; returns how many were not started because the next would end
        past the budget (at the measured mean, ``reserve_s`` kept: :func:`perf.search.ending.out_of_time.stopped_mid_round`)."""
        start = self.clock()
        self.events({"event": "round_start", "round": rr.index, "visits": len(todo)})
        left = 0
        for i, (name, key) in enumerate(todo):
            vr = self._vr(name)
            if vr.status == "failed" or name in self.withdrawn:
                continue
            if rr.order and self.deadline is not None and self.clock() + self.visit_s > self.deadline - reserve_s:
                left = len(todo) - i  # the round's start was checked on the estimate: each visit after is, on the measured
                break
            c, b, t, r, sh = key
            self.events(
                {
                    "event": "level_start",
                    "variant": name,
                    "index": i,
                    "n_variants": len(todo),
                    "round": rr.index,
                    "concurrency": c,
                    "batch_size": b,
                    "trial": t,
                    "request_rate": r,
                    "shape": sh,
                }
            )
            t0 = self.clock()
            level = measure(name, key)
            wall = self.clock() - t0
            self.walls.append(wall)
            if not self._slow_said and (said := slow_words(self)) is not None:  # once: what lengthens them
                self._slow_said = True
                self.events({"event": "plan", "text": f"rounds: {said}; the budget is kept from the visits timed", "warn": True})
            rr.order.append(Visit(name, c, b, r, sh, round(wall, 3), failed=level is None or not level.ok))
            if level is not None:
                _place(vr, level)
                self.failed.record(vr, key, level)
                self.events({"event": "level_done", "variant": name, "level": level, "round": rr.index})
            self.save()
        rr.wall_s = round(self.clock() - start, 3)
        self.events({"event": "round_done", "round": rr.index, "wall_s": rr.wall_s})
        return left

    def _stop_failed(self, alive: Sequence[str], index: int) -> None:
        """Fail a variant of ``alive`` with no level left to measure in round ``index`` after levels of
        it failed, none with numbers (:meth:`perf.search.failed.FailedLevels.give_up`)."""
        for n in alive:
            why = None if self.visits([n], index) or n in self.resting else self.failed.give_up(self._vr(n))
            if why is not None:
                self._vr(n).status, self._vr(n).error = "failed", why
                self.events({"event": "variant_failed", "variant": n, "error": why, "levels_left": 0})
                self.save()

    def update_ladders(self, alive: Sequence[str], names: Sequence[str]) -> None:
        """The ladders of ``names`` after a round of ``alive`` (:func:`perf.search.after_round.update_ladders`)."""
        after_round.update_ladders(self, alive, names)

    def narrow(self, left: Sequence[str], rounds_left: int) -> None:
        """The next round of ``left`` narrowed (:func:`perf.search.after_round.narrow`)."""
        after_round.narrow(self, left, rounds_left)

    def decided(self, alive: Sequence[str], rounds_left: int) -> str | None:
        """Why the ranking of ``alive`` is decided (module rule 3), ``None`` while it is not (:func:`perf.search.ending.decided.decided_words`)."""
        return decided_words(self, alive, rounds_left)

    def _tie_set(self, names: Sequence[str]) -> list[str]:
        return tie_set(self, self.contenders(names))

    def _finish_group(self, group: int, why: str, tie: list[str], by: EndedBy | None = None) -> None:
        """Record that group ``group``'s rounds ended, why (``why``; ``by``: :data:`~perf.records.rounds.EndedBy`), and
        its ``tie`` set."""
        for cut in ladder_cuts.capped(self):  # each client workload's ladder still rising into the cap
            self.record.cut(cut)
        for g in self.record.groups:
            if g.index == group:
                g.ended, g.ended_by, g.tie_set = why, by, list(tie)
        self.record.end(why, by)
        log.info("rounds of group %d ended: %s; tie set %s", group, why, ", ".join(tie))
        self.save()
