"""The search series is the smallest input (perf.search.plan.search_workload): with ``--shapes`` given largest first,
the budget stop was judged at the largest size, where every level was over the budget; the ladder
stopped at its first level (rounds and sequential designs alike), the sequential design's prune dropped
the variant as "over the budget at the lowest load", and the levels within the budget at the small size
were never measured."""

from __future__ import annotations

from typing import Any

from factories import run_result, variant_result

from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundRules, RoundsRecord
from perf.records.search import SearchRecord, SearchRules
from perf.search.plan import LevelKey, input_elements, plan_levels, search_workload, smallest_input
from perf.search.policy import AUTO, Budget, Search
from perf.search.policy import ladder as ladder_of
from perf.search.rounds import Rounds, Setup

RULES = SearchRules()
LADDER = ladder_of(AUTO, RULES)[0]
BUDGET = Budget(10.0, cores=None)
SMALL, LARGE = "seq=16", "seq=256"
#: Given largest first, as a user may write them.
SHAPES = (LARGE, SMALL)
#: p99 (ms) per unit of concurrency at each size: within the 10 ms budget up to c=4 at seq=16, never at seq=256.
P99_PER_C = {SMALL: 2.0, LARGE: 30.0}


def _level(c: int, b: int, t: int, shape: str | None, thr: float = 100.0) -> LevelResult:
    """A level of a model whose throughput rises with concurrency and whose p99 is :data:`P99_PER_C` x c."""
    wobble = 1.0 + (0.01 if t % 2 else -0.01)
    return LevelResult(
        c, b, t, throughput_infer_per_s=thr * c * wobble, latency_p99_ms=P99_PER_C[shape or SMALL] * c, status="ok", shape=shape
    )


def _within_at_small(levels: list[LevelResult]) -> set[int]:
    return {lv.concurrency for lv in levels if lv.shape == SMALL and (lv.latency_p99_ms or 0) <= BUDGET.ms}


def test_the_search_series_is_the_smallest_input_whatever_the_order_given() -> None:
    assert input_elements("h=224,w=224") == 224 * 224 and input_elements(None) == 1
    assert smallest_input(SHAPES) == smallest_input(tuple(reversed(SHAPES))) == SMALL
    assert smallest_input(("h=8,w=32", "h=16,w=16")) == "h=8,w=32"  # equal element counts: the first given
    assert smallest_input(("h=4,w=128", "h=16,w=16")) == "h=16,w=16"  # 256 elements < 512: not the first axis
    mixed = "time=1000..16000"  # a mixed workload's p99 is its largest requests': counted at the top of its range
    assert input_elements(mixed) == 16000 and input_elements("c=2,time=1000..16000") == 32000
    assert smallest_input((mixed, "time=8000")) == "time=8000" and smallest_input(("time=16000", mixed)) == "time=16000"
    assert smallest_input((mixed, "time=32000")) == mixed
    assert search_workload(plan_levels("v", 8, LADDER, [8, 1], shapes=SHAPES)) == (1, SMALL)
    assert search_workload(plan_levels("v", 8, LADDER, [1])) == (1, None)


def test_the_sequential_ladder_climbs_at_the_smallest_input() -> None:
    plans = {"v": plan_levels("v", 8, LADDER, [1], shapes=SHAPES)}
    search = Search(plans, SearchRecord("brute", True, RULES), LADDER, BUDGET)
    run = run_result([variant_result("v", status="pending")])
    vr, tried = run.variants[0], set[LevelKey]()
    while keys := search.next_keys(vr, run, tried):
        for c, b, t, _, shape in keys:
            vr.levels.append(_level(c, b, t, shape))
            tried.add((c, b, t, None, shape))
    assert _within_at_small(vr.levels) >= {1, 2, 4}  # every level within the budget at seq=16 was measured
    d = search.record.decision("v", (1, SMALL))
    assert d is not None and d.rule == "budget" and d.concurrency > 4  # stopped where seq=16 went over it
    large = search.record.decision("v", (1, LARGE))  # over the budget at its lowest level: its own stop
    assert large is not None and large.rule == "budget" and large.concurrency == 1


def test_the_sequential_search_does_not_end_a_variant_within_the_budget_at_the_smallest_input() -> None:
    """`b` is over the budget at seq=256 at the lowest load, within it at seq=16, as fast as `a` there: no
    budget stop, no over-budget prune (``policy._pruned`` reads the same series)."""
    plans = {n: plan_levels(n, 8, LADDER, [1], shapes=SHAPES) for n in ("a", "b")}
    search = Search(plans, SearchRecord("prune", True, RULES), LADDER, BUDGET)
    a = [LevelResult(1, 1, 0, throughput_infer_per_s=100.0, latency_p99_ms=8.0, status="ok", shape=LARGE)]
    a += [_level(1, 1, 0, SMALL)]
    run = run_result(
        [variant_result("a", a, status="pending"), variant_result("b", [_level(1, 1, 0, s) for s in SHAPES], status="pending")]
    )
    keys = search.next_keys(run.variants[1], run, set())
    assert search.record.decision("b", (1, SMALL)) is None, search.record.decision("b", (1, SMALL))
    assert all(d.rule != "pruned" for d in search.record.decisions)  # seq=256's own budget stop, no drop
    assert {(k[0], k[4]) for k in keys} == {(2, SMALL)}  # up its ladder at seq=16 only


def _rounds(max_rounds: int) -> Rounds:
    names = ["lead", "peer"]
    run = RunResult("r", "now", variants=[VariantResult(n, status="ok") for n in names])
    run.search, run.rounds = SearchRecord("prune", True), RoundsRecord(seed=1)
    plans = {n: plan_levels(n, 8, LADDER, [1], shapes=SHAPES) for n in names}
    events: list[dict[str, Any]] = []
    setup = Setup(plans, LADDER, True, RULES, RoundRules(max_rounds=max_rounds), "prune", BUDGET)
    return Rounds(run, setup, 1.0, events=events.append)


def test_the_rounds_ladder_climbs_at_the_smallest_input() -> None:
    sched = _rounds(24)

    def measure(name: str, key: LevelKey) -> LevelResult:
        c, b, t, _, shape = key
        return _level(c, b, t, shape, 100.0 if name == "lead" else 90.0)

    sched.run_group(["lead", "peer"], 0, measure)
    lead = sched.run.variant("lead")
    assert lead is not None
    assert _within_at_small(lead.levels) >= {1, 2, 4}, sorted({lv.concurrency for lv in lead.levels})
