"""A main effect whose spread over pairs is clear of zero but whose pairs the paired rule did not
separate says why it is not significant (trial 6: "+127.0 % (IQR +74.1 to +174.3: not significant)")."""

from __future__ import annotations

from perf.analysis.effects.diffs import summarise


def test_a_spread_clear_of_zero_says_the_pairs_were_not_separated() -> None:
    text = summarise([60.0, 80.0, 170.0, 180.0], paired=[False, True, False, False]).describe()
    assert "; not significant: 3 of 4 pairs not separated by the paired rule)" in text
    assert ": not significant)" not in text
    covers = summarise([-30.0, -10.0, 20.0, 30.0], paired=[False, False, False, False]).describe()
    assert covers.endswith(": not significant)")  # the spread itself covers zero: said as before
    assert "(IQR" in summarise([60.0, 80.0, 170.0, 180.0], paired=[True] * 4).describe()
    assert "not significant" not in summarise([60.0, 80.0, 170.0, 180.0], paired=[True] * 4).describe()
