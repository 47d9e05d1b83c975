"""What a cut co-location search's leader leads the held combination on, said with the numbers
(perf.colocate.verdict.lead_words). Trial 19, T19-14: "leading (not decided) ... at 619 weighted infer/s ...,
ahead in 0 of 1 round of the combination the search held there ... at 909 weighted infer/s (... mlp p99 60.87 ms)":
the leader led because the held one missed mlp's 50 ms budget, which was never said. The synthetic host
(tests/support/colocation_source.py); no server."""

from __future__ import annotations

import dataclasses

import colocation_source as cs
import pytest

from perf.colocate import judge, verdict
from perf.colocate.search import CoordinateSearch
from perf.records.colocation import ColocationRecord


def _cut(seed: int, budget_s: float, mid_ms: float, objective: str = "throughput") -> ColocationRecord:
    src, rec = cs.SynthSource(seed), cs.with_budgets(cs.record(seed, objective=objective), {"mid": mid_ms})
    CoordinateSearch(rec, src, clock=src.clock, time_budget_s=budget_s).run()
    return rec


def test_a_leader_behind_the_held_one_says_it_leads_on_the_targets_the_held_one_misses() -> None:
    rec = _cut(1, 202.0, 19.0)  # T19-14's kind: the held one ahead in weighted throughput in every round, over mid's budget
    got = verdict.lead(rec)
    assert got is not None and got.leader is not None and got.held is not None and got.versus is not None
    assert got.held.over and got.versus.wins == 0 and (got.leader.weighted or 0) < (got.held.weighted or 0)
    words = verdict.lead_words(rec)
    assert (
        "it leads on the targets, not on weighted throughput: it meets every one, which the combination the search held" in words
    )
    for miss in got.held.over:  # the numbers it misses by, as the tables say them
        assert miss in words, words
    assert f"ahead in 0 of {got.versus.rounds} round" in words and words.endswith("not a verdict")


@pytest.mark.parametrize("seed,mid_ms", [(1, 19.0), (3, 19.0), (4, 18.0), (2, 20.0)])
def test_every_cut_leader_says_what_it_leads_on(seed: int, mid_ms: float) -> None:
    for budget_s in range(189, 280, 13):
        rec = _cut(seed, float(budget_s), mid_ms)
        got = verdict.lead(rec)
        if got is None or got.decided or got.leader is None or got.held is None or got.held is got.leader:
            continue
        words = verdict.lead_words(rec)
        if got.held.over:
            assert "it leads on the targets" in words and all(m in words for m in got.held.over), words
        else:  # both meet every target: the leader is ahead in the medians' weighted throughput
            assert (got.leader.weighted or 0) >= (got.held.weighted or 0) and "it leads on" not in words, words
        behind = (got.leader.weighted or 0) < (got.held.weighted or 0)
        assert ("not on weighted throughput" in words) == behind, words


def test_a_leader_with_fewer_instances_says_so_under_fewest_instances(monkeypatch: pytest.MonkeyPatch) -> None:
    rec = _cut(1, 202.0, 19.0, objective="fewest-instances")
    got = verdict.lead(rec)
    assert got is not None and got.leader is not None and got.held is not None
    held = dataclasses.replace(got.held, over=[], instances=got.leader.instances + 2)  # meets every target, more instances
    monkeypatch.setattr(verdict, "lead", lambda _r: dataclasses.replace(got, held=held))
    words = verdict.lead_words(rec)
    assert "it leads on instances (the objective, fewest-instances)" in words, words
    assert (
        f"{got.leader.instances} instances in all, the combination the search held there, {judge.describe(held.combination)}"
        in words
    )
    assert f") {held.instances}; that one is " in words and "not on weighted throughput" not in words, words
