"""A group's tie set when its rounds end (:meth:`perf.search.rounds.Rounds.run_group`): what the rounds
did not separate from the leader, per client workload where there are several (:mod:`perf.search.by_workload`)."""

from __future__ import annotations

from collections.abc import Sequence

from perf.analysis.ranking.standing import contention
from perf.search import by_workload
from perf.search.ending.decided import Rounds


def tie_set(sched: Rounds, alive: Sequence[str]) -> list[str]:
    """The tie set of the contenders ``alive`` (leader first; every contender when nothing could be ranked)."""
    per = sched.workloads(alive)
    if per is None:
        rank = sched.ranked(alive)[0]
        return contention(rank) if rank.leader is not None else list(alive)  # one never compared is not out
    return by_workload.tie_set(per, sched.rank_series) or list(alive)
