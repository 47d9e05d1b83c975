"""Issue 26 (R16-3's kind in the main effects): the median and the IQR of a factor's % effects over its pairs were
the arithmetic ones, so over an even count of pairs (and in the quartiles) the factor read one way (changed over
reference) and the other way said different effects: +10 % and +50 % gave a median of +30 %, their reverses -9.1 %
and -33.3 % a median of -21.2 %, not the -23.1 % that reverses +30 %. Now both are taken as ratios'
(:func:`perf.analysis.effects.diffs.summarise`)."""

from __future__ import annotations

import pytest

from perf.analysis.effects.diffs import summarise


def _reverse(pct: float) -> float:
    """The same pair's effect read the other way (reference over changed), in %."""
    return (1.0 / (1.0 + pct / 100.0) - 1.0) * 100.0


@pytest.mark.parametrize(
    "pcts",
    [(10.0, 50.0), (-40.0, 5.0, 12.0, 80.0), (3.0, -20.0, 45.0, 7.0, -2.0, 150.0), (1.0, 2.0, 3.0), (-5.0, 9.0, 30.0, 61.0, 2.0)],
)
def test_a_factor_read_either_way_says_the_same_effect_reversed(pcts: tuple[float, ...]) -> None:
    there, back = summarise(pcts), summarise([_reverse(p) for p in pcts])
    assert back.median == pytest.approx(_reverse(there.median), abs=1e-9)
    assert back.low == pytest.approx(_reverse(there.high), abs=1e-9)
    assert back.high == pytest.approx(_reverse(there.low), abs=1e-9)
    assert back.significant == there.significant


def test_an_odd_count_keeps_its_middle_pair() -> None:
    assert summarise((3.0, -20.0, 45.0)).median == pytest.approx(3.0, abs=1e-12)  # a measured pair's own effect
    assert summarise((10.0, 50.0)).median == pytest.approx((1.1 * 1.5) ** 0.5 * 100.0 - 100.0)  # +28.5 %, not +30 %
