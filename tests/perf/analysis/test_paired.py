"""perf.analysis.paired: the sign-test rule over interleaved rounds."""

from __future__ import annotations

import statistics

import pytest

from perf.analysis.paired import ALPHA, min_rounds, paired, sign_test_p


def test_sign_test_p_values_by_hand():
    assert sign_test_p(6, 0) == pytest.approx(2 / 64)
    assert sign_test_p(5, 0) == pytest.approx(2 / 32)
    assert sign_test_p(7, 1) == pytest.approx(2 * (1 + 8) / 256)
    assert sign_test_p(3, 3) == 1.0 and sign_test_p(0, 0) == 1.0
    assert min_rounds() == 6


def test_every_round_ahead_is_higher_with_its_ratio_and_spread():
    fp32 = [40.5, 4.0, 3.9, 4.1, 3.8, 4.2, 3.9, 4.0]  # one round under load
    fp16 = [20.0, 2.0, 2.1, 2.0, 1.9, 2.2, 2.0, 2.1]
    p = paired(fp32, fp16)
    assert p is not None and p.verdict == "higher" and p.wins == 8 and p.p_value < ALPHA
    assert p.median == statistics.median(a / b for a, b in zip(fp32, fp16))
    assert p.low == min(a / b for a, b in zip(fp32, fp16)) and p.high == max(a / b for a, b in zip(fp32, fp16))
    assert p.describe("faster", "slower").startswith("faster: ")


def test_noise_larger_than_the_difference_is_not_distinguishable():
    a = [10.0, 12.0, 9.0, 11.5, 9.5, 12.5, 9.8, 10.9]
    b = [11.0, 10.0, 10.5, 10.0, 11.0, 10.0, 10.6, 10.1]  # a differs by ±10 %, either way
    p = paired(a, b)
    assert p is not None and p.verdict == "not distinguishable" and not p.significant
    assert p.describe("faster", "slower").startswith("not distinguishable at this noise: ")


def test_too_few_rounds_cannot_be_significant_even_when_all_agree():
    p = paired([2.0] * 5, [1.0] * 5)
    assert p is not None and p.wins == 5 and p.verdict == "not distinguishable"


def test_missing_rounds_are_left_out_and_mismatched_rounds_refused():
    p = paired([2.0, None, 2.0], [1.0, 1.0, 0.0])
    assert p is not None and p.ratios == (2.0,)
    assert paired([None], [1.0]) is None
    with pytest.raises(ValueError, match="same rounds"):
        paired([1.0, 2.0], [1.0])
