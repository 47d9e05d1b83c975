"""perf.analysis.stats.paired: the sign-test rule over interleaved rounds."""

from __future__ import annotations

import math
import statistics

import pytest

from core.units import p_text
from perf.analysis.stats.paired import ALPHA, min_rounds, paired, sign_test_p


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
    ratios = sorted(a / b for a, b in zip(fp32, fp16))  # 8 rounds: the geometric mean of the two middle ratios
    assert p.median == pytest.approx(math.sqrt(ratios[3] * ratios[4]), rel=1e-15) and p.median != statistics.median(ratios)
    assert p.low == min(a / b for a, b in zip(fp32, fp16)) and p.high == max(a / b for a, b in zip(fp32, fp16))
    assert p.describe("faster", "slower").startswith("faster: ")


def test_noise_larger_than_the_difference_is_not_distinguishable():
    a = [10.0, 12.0, 9.0, 11.5, 9.5, 12.5, 9.8, 10.9]
    b = [11.0, 10.0, 10.5, 10.0, 11.0, 10.0, 10.6, 10.1]  # a differs by ±10 %, either way
    p = paired(a, b)
    assert p is not None and p.verdict == "not distinguishable" and not p.significant
    assert p.describe("faster", "slower").startswith("not distinguishable at this noise: ")


def test_too_few_rounds_cannot_be_significant_even_when_all_agree():
    p = paired([2.0] * 2, [1.0] * 2)  # a 2x gap, but 2 rounds: neither tier can call it
    assert p is not None and p.wins == 2 and p.verdict == "not distinguishable" and p.gap_p_value is None
    # 5 rounds all agreeing, but by a small or ragged gap: the sign test needs 6, the gap tier does not fire
    small = paired([1.05, 1.04, 1.06, 1.05, 1.05], [1.0] * 5)
    ragged = paired([1.12, 1.9, 1.15, 2.6, 1.11], [1.0] * 5)
    assert small.verdict == "not distinguishable" and small.gap_p_value is None
    assert ragged.verdict == "not distinguishable" and ragged.gap_p_value is not None and ragged.gap_p_value > 0.005


def test_a_large_consistent_gap_is_called_from_three_rounds():
    p = paired([2.0, 1.8, 2.2], [1.0, 1.0, 1.0])
    assert p.verdict == "higher" and p.by_gap and p.p_value == 0.25 and p.gap_p_value < 0.005
    # the trial: the sign test's p = 0.25 shown beside the gap tier's verdict; the deciding tier's p is shown, named
    assert p.decided_p == p.gap_p_value and p.tier == "gap"
    assert f"{p_text(p.gap_p_value)}, large consistent gap t-test)" in p.spread_text() and "0.25" not in p.spread_text()
    sign = paired([1.1] * 8, [1.0] * 8)
    assert sign.tier == "sign" and sign.decided_p == sign.p_value and "p = 0.0078, sign test)" in sign.spread_text()
    low = paired([1.0, 1.0, 1.0], [2.0, 1.8, 2.2])
    assert low.verdict == "lower" and low.by_gap
    # one round against: the gap tier never fires, whatever the size
    assert paired([2.0, 1.8, 0.9, 2.2], [1.0] * 4).verdict == "not distinguishable"
    # six rounds all agreeing: the sign test calls it, not the gap tier
    six = paired([1.05] * 6, [1.0] * 6)
    assert six.verdict == "higher" and not six.by_gap


def test_both_tiers_looked_at_after_every_round_rarely_call_equal_targets_different():
    """Equal targets, noisy rounds (log-normal, and heavy-tailed Student t with 2 degrees of
    freedom), the rule applied after every round 3..10 as the rounds engine does: the chance
    of calling a difference stays close to the sign test's own (module docstring)."""
    import numpy as np

    rng = np.random.default_rng(7)

    def false_calls(noise, trials: int = 3000) -> float:
        bad = 0
        for _ in range(trials):
            logs = noise(10)
            for n in range(3, 11):
                p = paired([float(np.exp(v)) for v in logs[:n]], [1.0] * n)
                if p.significant:
                    bad += 1
                    break
        return bad / trials

    normal = false_calls(lambda n: rng.normal(0.0, 0.2, n))
    heavy = false_calls(lambda n: rng.standard_t(2, n) * 0.2)
    assert normal <= 0.08 and heavy <= 0.08, (normal, heavy)


def test_missing_rounds_are_left_out_and_mismatched_rounds_refused():
    p = paired([2.0, None, 2.0], [1.0, 1.0, 0.0])
    assert p is not None and p.ratios == (2.0,)
    assert paired([None], [1.0]) is None
    with pytest.raises(ValueError, match="same rounds"):
        paired([1.0, 2.0], [1.0])
