"""When a group's rounds end for the time budget, and the words of it (:mod:`perf.search.rounds`, module rule 3):
before a round that does not fit (:func:`out_of_time`), or within a round, at a visit that would end past the
budget (:func:`stopped_mid_round`); and what made the visits take longer than planned (:func:`slow_words`).

Recheck of trial 16, R16-11: ``--perf-analyzer-arg=--warmup-request-count=20000`` went through, every visit took
20-50 s against the 1.25 s planned, and the sweep ended 35 % over its ``--time-budget`` with no word why: the
first round was started on the plan's estimate and, once started, ran to its last visit. The budget is now kept
from the measured visits at every visit (the engine's :attr:`~perf.search.rounds.Rounds.visit_s`: their mean), and
when visits run far over their plan (:data:`SLOW_FACTOR`) the console says so once, naming what lengthens them
(the sweep's flags passed through: :func:`perf.sweep.analyzer_flags.visit_lengtheners`), and so does the end's reason.
A session's first visit is priced at the plan (nothing is timed before it): a flag that lengthens every visit can
take the rounds past the budget by that one visit, never by a round.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from core.wording import count
from perf.analysis.ranking.operating import MIN_ROUNDS
from perf.markdown import apart, fmt, times
from perf.records.rounds import TIME_SPENT, Cut, RoundRecord, RoundsRecord
from perf.search.ending.cuts import stopped
from perf.search.ending.decided import Rounds, left_words

#: Visits "far over their plan": their measured mean at least this many times the visit the plan priced.
SLOW_FACTOR = 2.0
#: What a sweep says of visits far over their plan when no flag passed through lengthens them.
NO_FLAG = "no perf_analyzer flag passed through lengthens a visit: the model's requests, the server or the host took the time"


class Engine(Rounds, Protocol):
    """What this module reads of a :class:`perf.search.rounds.Rounds` besides :class:`~perf.search.ending.decided.Rounds`."""

    record: RoundsRecord
    deadline: float | None
    planned_visit_s: float
    walls: list[float]
    slow_why: str
    kept_s: float

    def clock(self) -> float:
        """The budget's clock (s)."""
        ...

    @property
    def visit_s(self) -> float:
        """The mean measured visit (s), else the plan's."""
        ...


def slow_words(sched: Engine) -> str | None:
    """``"visits took 35.2 s each (mean of 3), 28x the 1.25 s planned: --perf-analyzer-arg=... (...)"``: the measured
    visits against the one the plan priced, and what lengthens them (:attr:`Engine.slow_why`; none named: no flag
    passed through does, which is said), when their mean is :data:`SLOW_FACTOR` times the plan's or more; else ``None``."""
    planned, mean = sched.planned_visit_s, sched.visit_s
    if not sched.walls or planned <= 0 or mean < SLOW_FACTOR * planned:
        return None
    why = sched.slow_why or NO_FLAG
    return (
        f"visits took {fmt(mean, 1)} s each (mean of {len(sched.walls)}), {times(mean / planned)} the "
        f"{fmt(planned, 2)} s planned: {why}"
    )


def _slow_part(sched: Engine) -> str:
    said = slow_words(sched)
    return f" ({said})" if said else ""


def out_of_time(sched: Engine, alive: Sequence[str], done: int, cost: float, group: int) -> str:
    """Why a group's rounds end before a round that does not fit (``cost``: its estimate and the unloads, s),
    after ``done`` rounds; the cut recorded, with the ladders it stopped (:func:`cut_ladders`)."""
    left = max(0.0, (sched.deadline or 0.0) - sched.clock())
    d = apart(left, cost)  # the need over the time left, said so (trial 19, T19-8)
    why = (
        f"{TIME_SPENT}: {left_words(left, sched.kept_s, d)}, the next round and the unloads ({fmt(cost, d)} s estimated) do not fit"
        + (f"; {done} of the {MIN_ROUNDS} rounds a verdict needs" if done < MIN_ROUNDS else "")
        + _slow_part(sched)
    )
    sched.record.cut(Cut("rounds", f"rounds after the first {done} of group {group + 1} not measured: {why}"))
    cut_ladders(sched, alive)
    return why


def stopped_mid_round(sched: Engine, alive: Sequence[str], rr: RoundRecord, left: int, reserve_s: float, group: int) -> str:
    """Why a group's rounds end within round ``rr``, ``left`` of its visits not started: the next one (at the measured
    mean) and the unloads (``reserve_s``) would end past the budget; the cut recorded, with the ladders it stopped.
    The visits it measured stand: each is paired with the others of its round that were measured."""
    remaining = max(0.0, (sched.deadline or 0.0) - sched.clock())
    done = len(rr.order)
    d = apart(remaining, sched.visit_s + reserve_s)
    why = (
        f"{TIME_SPENT}: {left_words(remaining, sched.kept_s, d)}, the next visit ({fmt(sched.visit_s, max(d, 1))} s, the mean "
        f"measured) and the unloads ({fmt(reserve_s, d)} s) do not fit" + _slow_part(sched)
    )
    sched.record.cut(
        Cut(
            "rounds",
            f"round {rr.index + 1} of group {group + 1} stopped after {count(done, 'visit')} of {done + left}: "
            f"{count(left, 'visit')} not measured: {why}",
        )
    )
    cut_ladders(sched, alive)
    return f"{why}; round {rr.index + 1} stopped after {count(done, 'visit')} of {done + left}"


def cut_ladders(sched: Engine, alive: Sequence[str]) -> None:
    """A cut for each ladder of ``alive`` still climbing when the budget ended its rounds, one per client workload
    (:func:`perf.search.ending.cuts.stopped`)."""
    for cut in stopped(sched, alive):
        sched.record.cut(cut)
