"""A time budget's cut among measured variants at several client workloads ranks each workload on its
own (trial 11, F12: `--batch-sizes 1,8 --latency-budget-ms 5`, resumed after 2 rounds, cut the b=1
leader first: one best over mixed levels ranked it by its b=1 infer/s, its b=8 levels being over the
budget, against the others' b=8 infer/s, 8 inferences a request)."""

from __future__ import annotations

from factories import level_result, run_result, variant_result

from perf.analysis.ranking.operating import MIN_ROUNDS
from perf.records.rounds import RoundRules
from perf.records.search import SearchRules
from perf.search import budget
from perf.search.policy import Budget
from perf.search.promise import CUT_ORDER, RULE, by_measurements, places

CONC = (1, 2)
RULES = RoundRules(window_ms=300)
LIMIT = Budget(5.0, cores=None)
WITHIN, OVER = LIMIT.ms * 0.7, LIMIT.ms * 1.5


def _run(series: dict[str, dict[int, tuple[float, float]]]):
    """Variant -> client batch size -> (best throughput, its p99), two rounds each (an interrupted
    first session); the level below the best gives half the throughput at the same p99."""
    return run_result(
        [
            variant_result(
                name,
                [
                    level_result(c, thr * c / CONC[-1], p99, batch_size=b, trial=r, spread=True)
                    for b, (thr, p99) in by_batch.items()
                    for c in CONC
                    for r in range(2)
                ],
                status="pending",
            )
            for name, by_batch in series.items()
        ]
    )


#: The trial's shape: the b=1 leader's b=8 levels are over the budget; b=8's infer/s are 8 inferences a request.
TRIAL = {
    "lead_b1": {1: (1500.0, WITHIN), 8: (12000.0, OVER)},
    "lead_b8": {1: (900.0, WITHIN), 8: (9000.0, WITHIN)},
    "mid": {1: (1000.0, WITHIN), 8: (6000.0, WITHIN)},
    "last": {1: (800.0, WITHIN), 8: (5000.0, WITHIN)},
}


def test_each_workload_is_ranked_on_its_own_and_a_leader_at_any_is_kept_longest() -> None:
    names = list(TRIAL)
    run = _run(TRIAL)
    got = places(names, run, LIMIT)
    assert got["lead_b1"][0] == 0 and got["lead_b8"][0] == 0  # each leads one workload
    ranked = by_measurements(names, run, LIMIT)
    assert set(ranked[:2]) == {"lead_b1", "lead_b8"}
    assert ranked[-1] == "last"  # behind at both workloads: cut first


def test_the_plan_keeps_both_leaders_and_says_the_rule() -> None:
    names = list(TRIAL)
    ranked = by_measurements(names, _run(TRIAL), LIMIT)
    need2 = budget.estimate(2, CONC, False, 2, RULES, MIN_ROUNDS, False)
    fit = budget.fit(ranked, CONC, False, 2, RULES, SearchRules(), need2 + 1.0, False, measured=names)
    assert sorted(fit.variants) == ["lead_b1", "lead_b8"]
    cuts = [c for c in fit.cuts if c.kind == "variant"]
    assert [c.variant for c in cuts] == ["last", "mid"]
    assert not any(RULE in c.reason for c in cuts) and "each client workload ranked on its own" in CUT_ORDER


def test_a_variant_measured_at_one_workload_only_is_not_ranked_by_the_others_larger_batches() -> None:
    """An interruption before its b=8 visits: it leads b=1, and no b=8 infer/s outranks that (no latency budget)."""
    series = {
        "early": {1: (1500.0, WITHIN)},
        "a": {1: (1000.0, WITHIN), 8: (8000.0, WITHIN)},
        "b": {1: (900.0, WITHIN), 8: (7000.0, WITHIN)},
    }
    ranked = by_measurements(list(series), _run(series))
    assert ranked.index("early") < ranked.index("b") and ranked[-1] == "b"


def test_one_workload_ranks_by_best_throughput_as_before() -> None:
    series = {n: {1: by[1]} for n, by in TRIAL.items()}
    assert by_measurements(list(series), _run(series), LIMIT) == sorted(series, key=lambda n: -series[n][1][0])
