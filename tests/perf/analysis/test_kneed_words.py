"""A tie set's pick named first at the members' knee says how their throughput stands to the pick's in words that hold
whichever side is higher (trial 26, D6: "`b` at c=16 has less than 1.1× more infer/s at a latency 2× the pick's" of a
member with FEWER infer/s than the pick, 2,528.7 vs 2,698.2: "less than 1.1× more" read as "more")."""

from __future__ import annotations

from perf.analysis.recommendation.choice import Choice


def test_the_knee_words_say_at_most_the_ratio_never_more() -> None:
    c = Choice("a", 4, 1, 2698.2, 10.0, True, 1)
    c.kneed = ["`b` at c=16 (7 rounds)"]
    said = c.named_by()
    assert "by the medians `b` at c=16 (7 rounds) has at most 1.1× the pick's infer/s at a latency 2× the pick's or more" in said
    assert "more infer/s" not in said
