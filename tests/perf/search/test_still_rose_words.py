"""A budget stop's "still rose" clause says what its number is: the gain over the last step
(from which concurrency to which, the median of how many paired rounds), and a gain no step of
concurrency can give (the trial's "still rose 413.8 %" over one doubling) is called disturbed."""

from __future__ import annotations

from factories import params

from perf.records.levels import LevelResult
from perf.records.results import VariantResult
from perf.records.search import SearchRules
from perf.search import ladder
from perf.search.plan import VariantPlan
from perf.search.stops import still_rose


def test_the_clause_names_the_step_and_the_rounds_its_median_is_of() -> None:
    text = still_rose(40.0, 2, 4, 3)
    assert text == (
        "; its throughput still rose 40.0 % from concurrency 2 to 4, the median of 3 paired rounds, "
        "so its peak above it was not measured"
    )


def test_a_gain_beyond_what_the_step_can_give_is_not_offered_as_the_gain() -> None:
    text = still_rose(413.8, 2, 4, 1)
    assert "413.8 %, the median of 1 paired round: more than the +100.0 % that step can give at equal latency" in text
    assert "slowed by something else" in text
    assert "still rose 413.8 % from" not in text


def test_the_rounds_ladders_stop_says_it_for_the_trials_numbers() -> None:
    """seqnet_ts_cpu1_db500_mbs16 in the trial: c=2 measured in one round (103 infer/s, p99 291 ms,
    host busy) against c=4's 532 infer/s in that round."""
    levels = [
        LevelResult(4, 1, r, throughput_infer_per_s=t, latency_p99_ms=p)
        for r, t, p in ((0, 1371.0, 15.3), (1, 1665.0, 11.0), (2, 777.0, 69.8), (3, 531.6, 54.9))
    ] + [LevelResult(2, 1, 3, throughput_infer_per_s=103.5, latency_p99_ms=291.0)]
    vr = VariantResult(params(1, True)["name"], params(1, True), "ok", None, levels)
    plan = VariantPlan(vr.name, batch_sizes=[1])
    text = ladder._still_rose(vr, plan, [2, 4], SearchRules().min_gain_pct)
    # one paired round: the rule of a rise (perf.analysis.saturation.rises) does not tell it from noise, so no
    # "still rose" is said, only the step with its evidence
    assert "from c=2 to c=4 (the gain in the 1 round both were measured in; their medians over all rounds: " in text
    assert "c=2's requests took 2.6× as long as c=4's (Little's law), a disturbed lower level" in text  # trial 14, T14-11
    assert ", c=4 ahead in the one round, but not called: too few rounds for the rule to call it" in text  # trial 15, T15-2
    assert "whether its peak lies above it is not told" in text and "still rose" not in text
