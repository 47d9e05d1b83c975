"""What a bundle's level rests on is said next to it (trial 6): a named variant's "best measured
level" that only 1 of its 3 rounds measured (the other 2 failed), and that is over the run's
latency budget, says both, in the command's output and the bundle's README."""

from __future__ import annotations

from factories import level_result, run_result, variant_result

from perf.deploy.choose import choose_variant
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


def test_a_named_variants_level_says_its_failed_rounds_and_its_place_against_the_budget():
    chosen = choose_variant(_run(), NAME)
    assert chosen.level.concurrency == 4  # its best peak
    assert chosen.caveats == (
        f"its numbers rest on 1 of the 3 rounds that measured this level: rounds 2, 3 failed ({FAILED})",
        "this level is over the run's p99 budget of 10.00 ms: p99 39.84 ms, 4.0x the budget",
    )
    given = choose_variant(_run(), NAME, latency_budget_ms=50.0)
    assert given.caveats[1] == "this level is within the given p99 budget of 50.00 ms (p99 39.84 ms)"
    assert len(choose_variant(_run(None), NAME).caveats) == 1  # no budget: nothing to say of one


def test_a_level_every_round_measured_has_no_caveat():
    run = _run()
    run.variants[0].levels = [lv for lv in run.variants[0].levels if lv.concurrency == 1]
    assert choose_variant(run, NAME).caveats == ("this level is within the run's p99 budget of 10.00 ms (p99 8.00 ms)",)
