"""What a bundle's level rests on is said next to it (trial 6): a named variant's "best measured
level" that only 1 of its 3 rounds measured (the other 2 failed), and that is over the run's
latency budget, says both, in the command's output and the bundle's README.

Session 6 (reviewer): the caveat judged the budget on every round while the ranking judges it on
a level's quieter rounds; a named variant took its best peak although one of its levels was
within the budget; a rounds run's caveat spoke of trials."""

from __future__ import annotations

from factories import level_result, run_result, variant_result

from perf.analysis.recommendation.recommend import recommend
from perf.deploy.choose import choose_variant
from perf.records.levels import LevelResult
from perf.records.rounds import RoundsRecord

NAME = "m_ts_cpu1_db500_mbs64"
FAILED = "Pass [2] cb::Error: No valid requests recorded within time interval."


def _run(budget_ms: float | None = 10.0):
    levels = [level_result(1, 200.0, 8.0, spread=True, trial=t) for t in range(3)]
    levels += [level_result(4, 684.4, 39.84, spread=True, trial=0)]
    levels += [level_result(4, None, None, trial=t, error=FAILED, settle=True) for t in (1, 2)]
    run = run_result(
        [variant_result(NAME, levels, params={"name": NAME})],
        settings={"latency_budget_ms": budget_ms, "latency_percentile": 99},
        finished="x",
    )
    run.rounds = RoundsRecord(seed=1)
    return run


def test_a_named_variant_takes_its_best_level_within_the_budget_as_the_default_does():
    chosen = choose_variant(_run(), NAME)
    assert chosen.level.concurrency == 1  # within the 10 ms budget; c=4 is over it (39.84 ms)
    assert chosen.why == "named with --variant: its best level within the p99 budget of 10.00 ms"
    assert chosen.caveats == ("this level is within the run's p99 budget of 10.00 ms (p99 8.00 ms)",)
    assert (choose_variant(_run()).level.concurrency, choose_variant(_run()).variant) == (1, NAME)  # the default agrees


def test_a_named_variants_level_says_its_failed_rounds_and_its_place_against_the_budget():
    over = _run(5.0)  # no level within: its best peak, said to be over
    chosen = choose_variant(over, NAME)
    assert chosen.level.concurrency == 4 and chosen.why.startswith("named with --variant: none of its levels is within")
    assert chosen.caveats == (
        f"its numbers rest on 1 of the 3 rounds that measured this level: rounds 2, 3 failed ({FAILED})",
        # one round (the others failed), fewer than the 3 a budget verdict rests on alone (budget_latency.MIN_QUIET_ROUNDS)
        "this level is not verified here against the run's p99 budget of 5.00 ms (1 round, fewer than the 3 the "
        "budget is judged on alone; p99 39.84 ms): more rounds might meet it",
    )
    given = choose_variant(_run(), NAME, latency_budget_ms=50.0)
    assert (
        given.level.concurrency == 4
        and given.caveats[1] == "this level is within the given p99 budget of 50.00 ms (p99 39.84 ms)"
    )
    assert choose_variant(_run(None), NAME).level.concurrency == 4  # no budget: the best peak
    assert len(choose_variant(_run(None), NAME).caveats) == 1  # no budget: nothing to say of one


def test_a_level_every_round_measured_has_no_caveat():
    run = _run()
    run.variants[0].levels = [lv for lv in run.variants[0].levels if lv.concurrency == 1]
    assert choose_variant(run, NAME).caveats == ("this level is within the run's p99 budget of 10.00 ms (p99 8.00 ms)",)


def _busy_run() -> object:
    """One variant; c=2 over a 10 ms budget in its 4 host-busy rounds (30 ms), within it in its 3 quiet ones (8 ms)."""
    levels = [
        LevelResult(c, 1, r, throughput_infer_per_s=thr, latency_p99_ms=p99, host_busy_pct=busy, host_busy=busy > 50)
        for c, thr in ((1, 100.0), (2, 300.0))
        for r, (p99, busy) in enumerate(
            ((8.0 if c == 2 else 4.0, 5.0), (8.0 if c == 2 else 4.0, 6.0), (8.0 if c == 2 else 4.0, 7.0))
            + ((30.0, 150.0), (30.0, 160.0), (30.0, 170.0), (30.0, 180.0))
        )
    ]
    run = run_result([variant_result(NAME, levels, params={"name": NAME})], settings={"latency_budget_ms": 10.0}, finished="x")
    run.rounds = RoundsRecord(seed=1)
    return run


def test_the_caveat_judges_the_budget_as_the_ranking_does_on_the_quieter_rounds():
    run = _busy_run()
    assert recommend(run, 10.0).best_under_budget.concurrency == 2  # the ranking: within, on its quieter rounds
    default = choose_variant(run)
    assert default.level.concurrency == 2 and default.level.judged_on  # "within the budget on its quieter rounds"
    chosen = choose_variant(run, NAME)
    assert chosen.level.concurrency == 2
    said, flagged = chosen.caveats  # was "over the run's p99 budget of 10.00 ms: p99 30.00 ms" (every round)
    assert flagged.startswith("the chosen level is host busy: its numbers are flagged, not a measurement to deploy on")
    assert said.startswith("this level is within the run's p99 budget of 10.00 ms (p99 8.00 ms; median of its 3 rounds"), said
    assert "30.00 ms over all 7" in said


def test_a_rounds_runs_words_never_say_trials():
    run = _busy_run()
    for lv in run.variants[0].levels:  # every round flagged: the pick is a flagged level, with its reasons
        lv.host_busy, lv.notes = True, [f"other processes used {lv.host_busy_pct:.0f} % of one core during the visit"]
    run.variants[0].levels += [  # an unrankable level (no p99 in any round): listed with its notes
        LevelResult(
            4,
            1,
            r,
            throughput_infer_per_s=310.0,
            host_busy_pct=150.0,
            host_busy=True,
            notes=["other processes used 150 % of one core"],
        )
        for r in range(4)
    ]
    chosen = choose_variant(run, NAME, latency_budget_ms=100.0)
    excluded = recommend(run, 100.0).excluded
    assert any("in 4 rounds, other processes used 150 % of one core" in x for x in excluded), excluded
    words = " ".join([chosen.why, chosen.level.describe(), *chosen.caveats, *excluded])
    assert "trial" not in words, words


def test_a_flagged_level_says_it_is_no_measurement_to_deploy_on_in_the_one_caveat_list():
    """Trial 7 (F15): the console said "not a measurement to deploy on; sweep again on a quiet
    host" and the bundle's README, built from the caveat list, did not: the warning is in the list."""
    run = _busy_run()
    default = choose_variant(run)  # the recommendation's pick, host busy in 4 of its 7 rounds
    assert default.level.status == "host busy"
    assert default.caveats == (
        "the chosen level is host busy: its numbers are flagged, not a measurement to deploy on; sweep again on a "
        "quiet host (or with a longer --time-budget, for more rounds per level) before relying on this choice",
    )
    for lv in run.variants[0].levels:
        lv.host_busy = False
    assert choose_variant(run, latency_budget_ms=100.0).caveats == ()  # an ok level: nothing to warn of


def test_a_readme_defines_every_mark_it_uses():
    from perf.markdown import UNSTABLE_MARK, flag_mark, mark_legend

    (said,) = mark_legend(f"1,190.0 infer/s, p99 14.15 ms{flag_mark('host busy')}")
    assert said.startswith(f"{UNSTABLE_MARK}: a flagged number: unstable") and "host busy" in said
    assert mark_legend("1,190.0 infer/s, p99 14.15 ms") == []


def test_an_unstable_level_on_a_quiet_host_is_not_told_to_find_a_quiet_host():
    """Trial 15, T15-5: a level flagged unstable (its windows disagreed; no visit host busy) was told "sweep again on
    a quiet host"; the advice follows the flag: longer windows or more rounds; a host-busy level keeps the quiet host."""
    from types import SimpleNamespace

    from perf.deploy.caveats import flagged_caveat

    rounds_run, trials_run = SimpleNamespace(rounds=object()), SimpleNamespace(rounds=None)
    unstable = flagged_caveat(rounds_run, SimpleNamespace(status="unstable"))  # type: ignore[arg-type]
    assert unstable is not None and "quiet host" not in unstable
    assert "sweep again with longer windows (--round-window 1000) or a longer --time-budget" in unstable
    sequential = flagged_caveat(trials_run, SimpleNamespace(status="unstable"))  # type: ignore[arg-type]
    assert sequential is not None and "(--measurement-interval 1000) or --trials 3" in sequential
    busy = flagged_caveat(rounds_run, SimpleNamespace(status="host busy"))  # type: ignore[arg-type]
    assert busy is not None and "sweep again on a quiet host (or with a longer --time-budget" in busy


def test_a_level_over_the_budget_says_its_ratio_by_the_one_rule_never_as_1():
    """Issue 26 (s16 left open): "p99 10.40 ms, 1.0x the budget" over a 10 ms budget, one decimal and an "x", where
    every other "N× the budget" is perf.markdown.times ("1.04×")."""
    run = run_result(
        [variant_result(NAME, [level_result(1, 200.0, 10.4, spread=True, trial=t) for t in range(3)], params={"name": NAME})],
        settings={"latency_budget_ms": 10.0, "latency_percentile": 99},
        finished="x",
    )
    run.rounds = RoundsRecord(seed=1)
    caveats = choose_variant(run, NAME).caveats
    assert "this level is over the run's p99 budget of 10.00 ms: p99 10.40 ms, 1.04× the budget" in caveats, caveats
