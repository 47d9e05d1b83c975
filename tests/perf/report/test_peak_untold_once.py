"""A best level that is not a measured peak is said one way, in the Conclusions as in the Recommendation (issue 26,
K4; trial 19, T19-6: "its peak was not reached: whether it is the peak is not told: ...")."""

from __future__ import annotations

from pathlib import Path

from perf.analysis.saturation.peaks import UNTOLD, peak_title

ROOT = Path(__file__).resolve().parents[3]


def test_a_peak_not_told_is_said_once_in_the_conclusions_as_in_the_recommendation() -> None:
    """T19-6: "its peak was not reached: whether it is the peak is not told: ..."."""
    from perf.analysis.saturation.peaks import unreached_words

    why = f"{UNTOLD}: its ladder stopped at c=16 with throughput +3.0 % from c=8 to c=16, not distinguishable"
    said = unreached_words(why, "its peak was not reached")
    assert said == why and "not reached" not in said
    assert unreached_words("only concurrency 4 was measured") == "peak not reached: only concurrency 4 was measured"


def test_the_conclusions_numbers_line_uses_the_one_wording() -> None:
    source = (ROOT / "perf/report/conclusions/numbers.py").read_text()
    assert "its peak was not reached: {" not in source  # the words come from unreached_words, not beside its why

    class _Choice:
        unreached = f"{UNTOLD}: x"

    assert peak_title(_Choice()) == f"Best measured throughput ({UNTOLD}: x)"  # type: ignore[arg-type]
