"""Whether a group's rounds end before its next round (:mod:`perf.search.rounds`, module rule 3), in one
place: the engine asks it before every round of a group (:meth:`perf.search.rounds.Rounds.run_group`), and a
resumed run asks it of the variants it ranked before it loads anything (:func:`ended_before`), so a run
whose rounds had ended says so and loads nothing for them (trial 13, T13-5: a resume said "more rounds",
spent 32 s loading two variants and measured 0 rounds: "10 rounds, the most a group gets")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol

from core.wording import count
from perf.records.rounds import EndedBy, RoundsRecord
from perf.search import ladder as ladders
from perf.search.ending.decided import Rounds, no_room


class Engine(Rounds, Protocol):
    """What this module reads of a :class:`perf.search.rounds.Rounds` besides :class:`~perf.search.ending.decided.Rounds`."""

    record: RoundsRecord
    deadline: float | None
    #: While a resume rebuilds its ladders from the record: what retires then was said when it was measured.
    replaying: bool
    kept_s: float  #: the time budget kept after ``deadline`` for the in-process baseline (s)

    def clock(self) -> float:
        """The budget's clock (s)."""
        ...

    def contenders(self, names: Sequence[str]) -> list[str]:
        """``names`` not failed and not pruned."""
        ...

    def decided(self, alive: Sequence[str], rounds_left: int) -> str | None:
        """Why the ranking of ``alive`` is decided, ``None`` while it is not."""
        ...

    def round_s(self, names: Sequence[str]) -> float:
        """The next round's estimated cost over ``names`` (s)."""
        ...

    def update_ladders(self, alive: Sequence[str], names: Sequence[str]) -> None:
        """The ladders of ``names`` after a round of ``alive``."""
        ...

    def narrow(self, left: Sequence[str], rounds_left: int) -> None:
        """The next round of ``left`` narrowed (``--search prune``)."""
        ...


def start_ladders(sched: Engine, names: Sequence[str]) -> None:
    """Each of ``names`` without a ladder in ``sched`` gets one per client workload, resumed from what its variant
    measured there: the levels it has numbers at, then the engine's own step after a round over them (ladders updated, and with
    ``--search prune`` the round narrowed, when every contender has numbers), so a resumed run's ladders end,
    retire and rest as the live engine's did after the same rounds, and its ranking is decided when the live
    engine's was (a level the live ladder had retired counted as "exploring": a run decided after 6 rounds
    and interrupted before it recorded ``finished`` got more rounds on resume)."""
    s = sched.setup
    new = [n for n in names if n not in sched.ladders]
    for n in new:
        sched.ladders[n] = ladders.lanes(s.plans[n], sched.run_variant(n), s.ladder, s.adaptive, s.rounds, s.cap)
    resumed = [n for n in new if ladders.seen(sched.run_variant(n))]
    if not resumed:
        return
    alive = sched.contenders(names)
    sched.replaying = True
    try:
        sched.update_ladders(alive, [n for n in resumed if n in alive])
    finally:
        sched.replaying = False
    if s.mode == "prune" and alive and all(ladders.seen(sched.run_variant(n)) for n in alive):
        sched.narrow(alive, max(0, s.rounds.max_rounds - len(sched.record.rounds_of(names))))


class Ending(NamedTuple):
    """Why rounds ended: in words, and what ended them (:data:`perf.records.rounds.EndedBy`)."""

    words: str
    by: EndedBy


def ending(sched: Engine, alive: Sequence[str], done: int, reserve_s: float = 0.0) -> Ending | None:
    """Why the rounds of a group whose contenders are ``alive`` end before its next round, after ``done``
    rounds of it (:meth:`perf.records.rounds.RoundsRecord.group_rounds`), ``None`` while they go on: no
    contender left, the ranking decided (said first: a ranking decided by the last round allowed is decided,
    not cut; a settled tie says the budget too, ``reserve_s`` kept for what follows), or ``max_rounds``."""
    s = sched.setup
    if not alive:
        return Ending("no variant left in contention", "no_contender")
    settled = sched.decided(alive, max(0, s.rounds.max_rounds - done)) if done >= s.rounds.min_rounds else None
    if settled:
        left = None if sched.deadline is None else sched.deadline - sched.clock()
        room = no_room(settled, left, sched.round_s(alive) + reserve_s, sched.kept_s)  # the baseline's kept time beside it
        return Ending(f"{settled} ({after(sched.record, done)})" + room, "decided")
    if done >= s.rounds.max_rounds:
        return Ending(f"{done} rounds, the most a group gets (max_rounds)", "max_rounds")
    return None


def end_words(sched: Engine, alive: Sequence[str], done: int, reserve_s: float = 0.0) -> str | None:
    """:func:`ending`'s words."""
    end = ending(sched, alive, done, reserve_s)
    return end.words if end is not None else None


def after(record: RoundsRecord, done: int) -> str:
    """``"after 3 rounds"`` of a group that counts ``done`` rounds (:meth:`perf.records.rounds.RoundsRecord.group_rounds`),
    and where the run measured more (several groups): ``"after 3 rounds of this group, 9 in the run"`` (issue 26: a
    final group's "after 3 rounds" read as the run's beside its "measured in 9 rounds")."""
    run = len(record.measured())
    return f"after {count(done, 'round')}" + (f" of this group, {run} in the run" if run > done else "")


def ending_before(sched: Engine, names: Sequence[str]) -> Ending | None:
    """:func:`ending` of a group of ``names`` not loaded yet (a resumed run's): the rounds it would count
    are those of the earlier groups that held each of them (:meth:`perf.records.rounds.RoundsRecord.rounds_of`)."""
    start_ladders(sched, names)
    return ending(sched, sched.contenders(names), len(sched.record.rounds_of(names)))


def ended_before(sched: Engine, names: Sequence[str]) -> str | None:
    """:func:`ending_before`'s words."""
    end = ending_before(sched, names)
    return end.words if end is not None else None
