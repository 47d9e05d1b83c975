"""A resumed run's ladders reach the live engine's decision from the same recorded rounds (perf.search.ending.ends.
start_ladders). A resume rebuilt each ladder as every level it had measured, all active and none ended: a level
the live ladder had retired after a round or two (far behind its best) counted as still "exploring", so a
ranking the live engine ended "ranking decided (after 6 rounds)" was not decided on resume, and a decided run
interrupted before it recorded ``finished`` got more rounds. The live rounds are replayed through a fresh
engine, as a resume builds it, and both must say the same."""

from __future__ import annotations

import pytest
from simulated_host import VISIT_S, rounds_run

from perf.records.rounds import LoadGroup
from perf.search.ending.ends import ended_before
from perf.search.rounds import Rounds


@pytest.mark.parametrize("mode", ["prune", "all"])
@pytest.mark.parametrize("latency_ms", [None, 6.0])
@pytest.mark.parametrize("seed", [1, 4])
def test_a_resume_ends_the_rounds_the_live_engine_ended_with_the_same_words(seed: int, mode: str, latency_ms: float | None):
    run, live, _ = rounds_run(seed, mode=mode, latency_ms=latency_ms)
    assert run.rounds is not None and run.rounds.ended is not None
    said = run.rounds.ended
    assert "decided" in said or "settled" in said, said  # a ranking the live rules ended, not the round cap or the budget
    run.rounds.groups.append(LoadGroup(0, list(live.ladders), "every contender fits", "sim", 1.0))  # what the sweep records
    run.rounds.ended = None  # interrupted before the run recorded its end
    resumed = Rounds(run, live.setup, VISIT_S, lambda: 0.0)
    assert ended_before(resumed, list(live.ladders)) == said
    for n in live.contenders(list(live.ladders)):  # each contender's ladder as the live engine left it after the last round
        for load, lad in live.ladders[n].items():  # each client workload's
            again = resumed.ladders[n][load]
            assert (again.end and again.end.rule, again.active) == (lad.end and lad.end.rule, lad.active), n
