"""The words of a group's end say which ranking the engine decided and agree with the report's words
for the same tie set (reviewer, session 6: "ranking decided" without saying which ranking; a budget
of 5.125 ms printed as 5.12; a tie "settled" on 4 shared rounds that the report calls "too few rounds
to tell")."""

from __future__ import annotations

import dataclasses

from perf.analysis.ranking.rank import rank_variants
from perf.analysis.ranking.standing_words import tie_words
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundRules, RoundsRecord
from perf.records.search import SearchDecision, SearchRecord, SearchRules
from perf.search import ladder
from perf.search.plan import plan_levels
from perf.search.policy import AUTO, Budget
from perf.search.policy import ladder as ladder_of
from perf.search.rounds import Rounds

LADDER = ladder_of(AUTO, SearchRules())[0]
END = SearchDecision(variant="x", rule="cap", concurrency=1, reason="")


def _sched(thr: dict[str, list[float]], p99: float, budget: Budget | None) -> Rounds:
    from perf.search.rounds import Setup

    variants = [
        VariantResult(
            n, status="ok", levels=[LevelResult(1, 1, r, throughput_infer_per_s=t, latency_p99_ms=p99) for r, t in enumerate(ts)]
        )
        for n, ts in thr.items()
    ]
    run = RunResult("r", "now", variants=variants)
    run.search, run.rounds = SearchRecord("prune", True), RoundsRecord(seed=1)
    plans = {n: plan_levels(n, 8, LADDER, [1]) for n in thr}
    sched = Rounds(run, Setup(plans, LADDER, True, SearchRules(), RoundRules(), budget=budget), 1.0)
    sched.ladders = {n: {(1, None): ladder.Ladder([1], [1], end=END)} for n in thr}
    return sched


def test_the_words_say_which_ranking_was_decided_with_the_budget_as_given() -> None:
    far = {"a": [1000.0] * 6, "b": [500.0] * 6}
    assert _sched(far, 2.0, None).decided(["a", "b"], 4) == "ranking decided"
    said = _sched(far, 2.0, Budget(5.125, cores=None)).decided(["a", "b"], 4)
    assert said == "ranking under the p99 budget of 5.125 ms decided"
    said = _sched(far, 9.0, Budget(5.125, 95, cores=None)).decided(["a", "b"], 4)  # no level within it: ranked by peak
    assert said == "no variant in contention has a level within the p95 budget of 5.125 ms: peak ranking decided"


def test_a_tie_settled_on_fewer_rounds_than_a_verdict_needs_says_so_as_the_report_does() -> None:
    wobble = {"a": [1000.0, 990.0, 1010.0, 1000.0], "b": [1003.0] * 4}  # 2 rounds each way: 1 more cannot call it
    sched = _sched(wobble, 1.0, None)
    said = sched.decided(["a", "b"], 1)
    assert said is not None and said.startswith("ranking settled: the round left could not separate the tie set `a`, `b`")
    member = [n for n in ("a", "b") if f"`{n}` at c=1 (its best level) shared 4 rounds with the leader at c=1" in said]
    # the round left could not separate it: no lack of rounds (trial 9, F37: "too few rounds to tell" after such a stop)
    assert (
        len(member) == 1
        and f"`{member[0]}` at c=1 (its best level) shared 4 rounds with the leader at c=1: not distinguishable at this noise"
        in said
    )
    assert "too few rounds" not in said
    ranking = rank_variants(sched.run.variants, cores=None)  # the report's tie-set words for the same rounds and the round left
    ranking.comparisons = [dataclasses.replace(c, rounds_left=1) for c in ranking.comparisons]
    report = tie_words(ranking, None)
    assert (
        f"not distinguishable at this noise from `{member[0]}` at c=1 (4 rounds; further rounds could not have separated"
        in report
    )
    assert "too few rounds" not in report
    # on 6 shared rounds the member is not distinguishable: nothing said of too few rounds
    six = _sched({"a": [1000.0, 990.0, 1010.0, 1000.0, 990.0, 1010.0], "b": [1003.0] * 6}, 1.0, None)
    said = six.decided(["a", "b"], 0)
    assert said == "ranking settled: the rule did not separate the tie set `a`, `b` in the 10 rounds a group gets at most"
