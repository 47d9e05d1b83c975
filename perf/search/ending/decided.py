"""When the ranking of a rounds sweep's contenders is decided (:mod:`perf.search.rounds`, module rule 3),
and the words of its end; with several client workloads, each workload's ranking
(:mod:`perf.search.by_workload`), each said with its workload (trial 10, F10)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from perf.analysis.ranking.budget_latency import host_cores
from perf.analysis.ranking.rank import Ranking
from perf.analysis.ranking.standing import contention, ranked_words, settled_words
from perf.markdown import apart, fmt
from perf.records.results import RunResult, VariantResult
from perf.records.workloads import variant_of
from perf.search import ladder as ladders
from perf.search.ending import unverified


class Rounds(Protocol):
    """What this module reads of a :class:`perf.search.rounds.Rounds` (a protocol: that module
    imports this one, and the packages' modules import no cycle, the import-linter contract)."""

    setup: Any
    ladders: dict[str, ladders.Lanes]
    run: RunResult

    def run_variant(self, name: str) -> VariantResult:
        """The run's record of variant ``name``."""
        ...

    def ranked(self, names: Sequence[str]) -> tuple[Ranking, bool]:
        """The ranking of ``names``, and whether it is under the latency budget."""
        ...

    def workloads(self, names: Sequence[str]) -> dict[str, list[VariantResult]] | None:
        """The series of ``names`` per client workload, ``None`` at one."""
        ...

    def rank_series(self, variants: list[VariantResult]) -> tuple[Ranking, bool]:
        """The ranking of one workload's series, and whether it is under the latency budget."""
        ...


def decided_words(sched: Rounds, alive: Sequence[str], rounds_left: int) -> str | None:
    """Why the ranking of ``alive`` is decided, ``None`` while it is not: no
    ladder can still lift its variant, no member of the tie set measures a level with fewer than
    ``min_rounds`` rounds (:func:`perf.search.ladder.exploring`: its operating point may still
    move), and the leader beats each other contender or
    ``rounds_left`` more rounds could not separate them (a settled tie,
    :meth:`perf.analysis.ranking.operating.Comparison.can_separate`). The words say which ranking
    (:func:`perf.analysis.ranking.standing.ranked_words`) and, of a settled tie, which members shared
    too few rounds with the leader to tell and which were never compared with it
    (:func:`perf.analysis.ranking.standing.settled_words`); with
    several client workloads, each workload's ranking must be decided, each said with its workload, and
    each on its own ladders (:mod:`perf.search.ladder`, rule "Per client workload": a ladder that climbs, a
    level with too few rounds, a level left to verify a rival are that workload's).
    A contender excluded only by a budget miss this host cannot verify stays in contention while rounds
    are left (:mod:`perf.search.ending.unverified`; trial 12, F6)."""
    s = sched.setup
    for n in alive:  # a workload whose ladder still climbs is not decided, nor then the whole
        if ladders.climbing_at(sched.ladders[n], s.plans[n], sched.run_variant(n), s.rules):
            return None
    per = sched.workloads(alive)
    if per is None:
        return _one(sched, sched.ranked(alive), {n: sched.run_variant(n) for n in alive}, "", rounds_left)
    said = []
    for label, group in per.items():
        words = _one(sched, sched.rank_series(group), {sr.name: sr for sr in group}, label, rounds_left)
        if words is None:
            return None
        said.append(f"at {label}: {words}")
    return "; ".join(said)


def _one(
    sched: Rounds, ranked: tuple[Ranking, bool], alive: Mapping[str, VariantResult], label: str, rounds_left: int
) -> str | None:
    """:func:`decided_words` for one ranking of ``alive`` (series of workload ``label`` by name; ``""``:
    variants). A contender left out only on a budget miss this host cannot verify, not beaten by the
    leader, keeps it undecided while rounds are left (:mod:`perf.search.ending.unverified`)."""
    s = sched.setup
    rank, met = ranked
    if rank.leader is None:
        return None
    pct = s.budget.percentile if s.budget else 99
    pending = unverified.rivals(rank, alive, pct, cores=host_cores(sched.run)) if met else {}
    if rounds_left > 0 and any(_lane(sched, n, alive[n], label).active for n in pending):  # more rounds may verify it
        return None
    names = [n for n in contention(rank) if n in alive]  # one never compared may still move too
    if any(_exploring(sched, n, alive[n], label) for n in names):
        return None
    comps = [c for c in rank.comparisons if c.b.variant in alive]
    if any(c.verdict != "a" and c.can_separate(rounds_left) for c in comps):
        return None
    b = s.budget
    what = ranked_words(b.ms if b else None, b.percentile if b else 99, met)
    tied = [c for c in comps if c.verdict != "a"]
    assumed = unverified.assuming(pending, pct)
    if not tied:
        return f"{what} decided{assumed}"
    return f"{what} settled: {settled_words(tied, rounds_left, s.rounds.max_rounds, met)}{assumed}"


def _load(series: VariantResult) -> tuple[int, str | None] | None:
    """The client workload ``series``' levels were measured at (``None``: none, or several)."""
    loads = {(lv.batch_size, lv.shape) for lv in series.levels if lv.request_rate is None}
    return next(iter(loads)) if len(loads) == 1 else None


def _lane(sched: Rounds, name: str, series: VariantResult, label: str) -> ladders.Ladder:
    """The ladder of the variant of ``name`` (a series of workload ``label``, ``""``: a variant) at the client
    workload of ``series``: the variant's one ladder at one; at several, that workload's (an empty one when
    ``series`` holds no such workload: nothing left to measure there)."""
    lanes = sched.ladders[variant_of(name, label)]
    if len(lanes) == 1:
        return next(iter(lanes.values()))
    return lanes.get(_load(series) or (0, None), ladders.Ladder([], []))


def _exploring(sched: Rounds, name: str, series: VariantResult, label: str) -> bool:
    """:func:`perf.search.ladder.exploring` of the ladder :func:`_lane` names."""
    s, variant = sched.setup, variant_of(name, label)
    lanes = sched.ladders[variant]
    load = next(iter(lanes)) if len(lanes) == 1 else _load(series)
    if load is None:
        return ladders.exploring_at(lanes, s.plans[variant], sched.run_variant(variant), s.rounds)
    return ladders.exploring_at(lanes, s.plans[variant], sched.run_variant(variant), s.rounds, load)


def left_words(left_s: float, kept_s: float, digits: int = 0) -> str:
    """``"13 s left"`` of the rounds' time, and beside it the time kept after it for the in-process baseline
    (``kept_s``, 0: none): ``"13 s left before the 22 s kept for the in-process baseline"`` (trial 17, T17-11:
    "time budget spent: 13 s left" read as all that was left, with 22 s more kept). ``digits``: the decimals of the
    time left, those of the need said beside it (:func:`perf.markdown.apart`)."""
    kept = f" before the {fmt(kept_s, 0)} s kept for the in-process baseline" if kept_s else ""
    return f"{fmt(left_s, digits)} s left{kept}"


def no_room(words: str, left_s: float | None, next_s: float, kept_s: float = 0.0) -> str:
    """The clause a settled ranking's end words (``words``, :func:`decided_words`) add when the time
    budget had no room for the next round either (``left_s``: the budget's seconds left, ``None``
    without one; ``next_s``: the next round's estimate with the unloads): the rounds left the settle
    rule counted were the group's cap's, not the budget's (trial 12, F19: "settled: the 6 rounds left
    could not separate ..." with 8 s of the 60 s left, no round of ~8 s fitting); ``""`` otherwise. ``kept_s``: the
    time kept after ``left_s`` for the in-process baseline, said beside it (:func:`left_words`)."""
    if left_s is None or left_s >= next_s or " settled: " not in words:
        return ""
    d = apart(max(0.0, left_s), next_s)  # "8 s left ... ≈ 8 s" said apart (trial 19, T19-8)
    return (
        f"; the time budget had no room for another round either: {left_words(max(0.0, left_s), kept_s, d)}, "
        f"the next round and the unloads ≈ {fmt(next_s, d)} s"
    )
