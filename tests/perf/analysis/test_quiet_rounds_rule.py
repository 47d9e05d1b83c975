"""The budget's quieter-rounds rule (perf.analysis.ranking.budget_latency) rests only on rounds not host
busy, and on enough of them; a pick that needed no verdict, or got one on the large-gap rule,
is never said to lack the rounds a verdict needs (trial 11, F23: "within the budget on its quieter
rounds: p99 4.94 ms, median of its 2 rounds with the least other load of 3 (3 host busy; 5.89 ms
over all 3)" — the mean of one round within the budget and one over it, every round host busy —
beside "measured in 3 rounds, fewer than the 6 a verdict needs" and "the pick beats it")."""

from __future__ import annotations

from factories import run_result, variant_result

from perf.analysis.ranking.budget_latency import MIN_QUIET_ROUNDS, judge, judged, within
from perf.analysis.ranking.operating import MIN_ROUNDS
from perf.analysis.recommendation.recommend import recommend
from perf.analysis.stats.points import run_points
from perf.deploy.caveats import level_caveats
from perf.records.levels import LevelResult
from perf.records.rounds import RoundsRecord
from perf.report.sections.ranking import comparison_lines
from perf.report.write import recommendation_section

BUDGET = 5.0
FAST, SLOW = "t_onnx_cpu1_nodb_mbs64", "t_onnx_cpu1_db500_mbs64"
#: t11rr's pick: three rounds, every one host busy; the two least loaded straddle the budget.
P99 = (3.99, 5.89, 8.77)
LOAD = (114.0, 120.0, 132.0)


def _levels(thr: float, p99: tuple[float, ...], load: tuple[float, ...], busy: tuple[bool, ...]) -> list[LevelResult]:
    return [
        LevelResult(1, 1, r, throughput_infer_per_s=thr * (1 + r / 50), latency_p99_ms=p, host_busy_pct=pct, host_busy=b)
        for r, (p, pct, b) in enumerate(zip(p99, load, busy))
    ]


def _run(fast: list[LevelResult], slow: list[LevelResult]):
    run = run_result(
        [variant_result(FAST, fast, params={"name": FAST}), variant_result(SLOW, slow, params={"name": SLOW})],
        settings={"latency_budget_ms": BUDGET, "latency_percentile": 99},
        finished="x",
    )
    run.rounds = RoundsRecord(seed=1)
    return run


def _all_busy_run():
    busy = (True,) * len(P99)
    return _run(_levels(1300.0, P99, LOAD, busy), _levels(560.0, (7.9, 8.83, 9.5), (142.0, 143.0, 145.0), busy))


def test_rounds_all_host_busy_are_no_quieter_rounds_and_a_level_over_the_budget_on_them_is_not_verified_here() -> None:
    j = judged(_all_busy_run().variant(FAST).levels, "latency_p99_ms", cores=None)
    assert j is not None and not j.quieter and j.loaded
    assert (j.ms, j.rounds, j.busy_rounds) == (5.89, 3, 3)  # every round: not the mean of 3.99 and 5.89
    assert not within(j, BUDGET)
    assert j.basis() == "median of 3 rounds, all 3 host busy"
    assert j.picked_on(99, BUDGET) is None  # never "within the budget on its quieter rounds"
    assert j.unverified_note(99, BUDGET) == "not verified here (every round host busy; p99 5.89 ms over all 3)"
    assert j.unverified_note(99, 6.0) is None  # within the budget even loaded: load only adds latency


def test_quieter_rounds_count_only_when_enough_of_them_are_not_host_busy() -> None:
    few = MIN_QUIET_ROUNDS - 1  # the quiet rounds within the budget, the busy ones over it
    rows = [(4.0, 5.0, False)] * few + [(9.0, 150.0, True)] * 2
    j = judge(rows, cores=None)
    assert j is not None and j.loaded and j.ms == 6.5 and not within(j, BUDGET)
    assert f"{few} of 4 rounds not host busy, fewer than the {MIN_QUIET_ROUNDS}" in (j.unverified_note(99, BUDGET) or "")
    enough = judge([(4.0, 5.0, False)] * MIN_QUIET_ROUNDS + [(9.0, 150.0, True)] * 2, cores=None)
    assert enough is not None and enough.quieter and enough.ms == 4.0 and within(enough, BUDGET)
    assert f"median of its {MIN_QUIET_ROUNDS} rounds not host busy of {MIN_QUIET_ROUNDS + 2}" in enough.basis()
    # a busy round with less load than the others is still busy: it is not a quiet round
    loaded = judge(
        [(4.0, 100.0, True), (4.2, 110.0, True), (9.0, 150.0, True), (9.5, 160.0, True), (9.9, 170.0, True)], cores=None
    )
    assert loaded is not None and loaded.ms == 9.0 and not loaded.quieter


def test_a_run_whose_every_round_was_host_busy_names_no_pick_under_the_budget_and_says_which_levels_are_not_verified() -> None:
    run = _all_busy_run()
    rec = recommend(run, BUDGET)
    assert rec.best_under_budget is None
    notes = " ".join(rec.notes)
    assert "2 levels over the p99 budget of 5.00 ms are not verified here" in notes
    assert f"`{FAST}` at concurrency 1 (every round host busy; p99 5.89 ms over all 3)" in notes
    section = "\n".join(recommendation_section(rec, run_points(run)))
    assert "quieter rounds" not in section and "not verified here" in section
    lines = "\n".join(comparison_lines(rec.ranking_under_budget, "Best under the budget", 99, BUDGET, run=run))
    assert "no variant has a level within the budget" in lines
    caveats = " ".join(level_caveats(run, FAST, rec.best_peak, BUDGET))
    assert "not verified here against the run's p99 budget of 5.00 ms (every round host busy; p99 5.89 ms over all 3)" in caveats


def test_the_only_ranked_pick_and_a_pick_beating_on_the_gap_rule_never_lack_the_rounds_a_verdict_needs() -> None:
    quiet = (False,) * len(P99)
    run = _run(_levels(1300.0, (3.9, 4.1, 4.3), (5.0,) * 3, quiet), _levels(560.0, (7.9, 8.83, 9.5), (5.0,) * 3, quiet))
    rec = recommend(run, BUDGET)
    short = f"fewer than the {MIN_ROUNDS} a verdict needs"
    under, peak = rec.best_under_budget, rec.best_peak
    assert under is not None and under.variant == FAST and under.trials == 3
    said = under.describe()
    assert short not in said  # no other variant within the budget: no verdict was needed
    assert f"the only ranked variant (1 has no level within the budget: `{SLOW}` (lowest p99 8.83 ms, at c=1))" in said
    assert peak is not None and peak.variant == FAST and short not in peak.describe()
    assert "beats every other ranked variant (1, on a large, consistent gap after 3 rounds;" in peak.describe()
    lines = "\n".join(comparison_lines(rec.ranking, "Best measured throughput", 99, run=run))
    assert "It beats every other ranked variant (1, on a large, consistent gap after 3 rounds; paired rounds at 5 %)." in lines
    assert "the pick beats it" in lines


def test_a_quiet_level_of_fewer_rounds_than_the_rule_needs_over_the_budget_is_not_verified_here() -> None:
    """Two quiet rounds, one within the budget and one over it: their median is their mean, over the budget on
    no round's say; as on a loaded host, a verdict over the budget is not verified here (was: over the budget)."""
    few = MIN_QUIET_ROUNDS - 1
    p99 = (3.99, 8.77)[:few]
    run = _run(_levels(1300.0, p99, (15.0,) * few, (False,) * few), _levels(560.0, (2.0,) * few, (15.0,) * few, (False,) * few))
    j = judged(run.variant(FAST).levels, "latency_p99_ms", cores=None)
    assert j is not None and j.short and not j.loaded and not within(j, BUDGET)
    said = f"{few} rounds, fewer than the {MIN_QUIET_ROUNDS} the budget is judged on alone; p99 6.38 ms over all {few}"
    assert j.unverified_note(99, BUDGET) == f"not verified here ({said})"
    notes = " ".join(recommend(run, BUDGET).notes)
    assert f"`{FAST}` at concurrency 1 ({said})" in notes
    # trial 15, T15-3: a quiet level's too few rounds are said as such, with no word of the host's load
    assert "not verified here: measured on a quiet host in fewer than the 3 rounds the budget is judged on, and more " in notes
    assert "host busy to judge" not in notes and "a quiet host might" not in notes
    assert j.unverified_note(99, 7.0) is None  # within the budget: said as within, as a loaded host's is
    enough = judged(_levels(1300.0, (3.99, 8.77, 9.0), (15.0,) * 3, (False,) * 3), "latency_p99_ms", cores=None)
    assert enough is not None and not enough.short and enough.unverified_note(99, BUDGET) is None  # over it, verified
    trials = judge(
        [(3.99, None, False), (8.77, None, False)], cores=None
    )  # a run of trials is ranked on its median: no rounds rule
    assert trials is not None and not trials.short


def test_a_level_over_the_budget_by_more_than_the_hosts_load_explains_is_said_far_over_it() -> None:
    """Trial 13, T13-15: "a quiet host might meet the budget" was said of p99s 13-120x the budget. The load
    recorded with the rounds bounds the slowdown (cores / (cores - load)); beyond it, more than the CPU host load took explains."""
    cores, load = 2, (99.9, 108.5, 60.9)  # t13s2s: other processes took 0.6-1.1 of the 2 cores
    bound = cores / (cores - max(load) / 100)
    busy = (True,) * len(load)
    run = _run(_levels(900.0, (13.36, 13.4, 13.5), load, busy), _levels(560.0, (1.5, 1.6, 1.7), load, busy))
    run.environment = {"cpu_count": cores}  # type: ignore[assignment]
    budget = 1.0
    assert 1.6 < budget * bound < 13.4  # one level within what the load explains, the other far beyond it
    notes = " ".join(recommend(run, budget).notes)
    assert f"1 level over the p99 budget of {budget:.2f} ms is not verified here" in notes and f"`{SLOW}`" in notes
    assert (
        f"1 level over the p99 budget of {budget:.2f} ms is far over it; more than the CPU host load took explains: `{FAST}` at "
        f"concurrency 1 (p99 13.40 ms, 13× the budget; other processes used at most 1.1 of 2 cores, which slows a level's "
        f"work at most {bound:.1f}× on average)." in notes
    )
    assert f"`{FAST}` at concurrency 1 (every round host busy" not in notes
    j = judged(run.variant(FAST).levels, "latency_p99_ms", cores=cores)
    assert j is not None and j.unverified_note(99, budget) is None and j.far_over(99, budget)
    assert judged(run.variant(FAST).levels, "latency_p99_ms", cores=None).far_over(99, budget) is None  # cores unknown: no bound
