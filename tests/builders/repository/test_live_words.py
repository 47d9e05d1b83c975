"""The refusal while a run is written agrees with how many runs it names (trial 30, F19: "so it can still load what it
measure", said by make clean and builders remove while a sweep wrote a run)."""

from __future__ import annotations

from builders.repository.measured_runs import live_words


def test_the_refusal_agrees_with_one_run_and_with_several() -> None:
    one = live_words(["s1 (/r/s1)"], "nothing removed")
    assert one.startswith("the run s1 (/r/s1) is still being written") and one.endswith("so it can still load what it measures")
    two = live_words(["s1", "s2"], "nothing removed")
    assert two.startswith("the runs s1, s2 are still being written") and two.endswith("so they can still load what they measure")
