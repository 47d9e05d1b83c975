"""Trial 17, T17-1: a gap whose smallest round is already more than FAR_GAP (2×) apart, every round the same way,
from GAP_ROUNDS rounds, is called (the t-test against 0 found 16×, 57× and 89× "too uneven"), and its words say
which rule called it; a 0.42–0.56× gap (colocate, 3 rounds: not every round 2× apart) stays uncalled, saying why."""

from __future__ import annotations

import pytest

from core.units import p_number, p_text
from perf.analysis.ranking.operating import Side, compare
from perf.analysis.stats.paired import FAR_GAP, GAP_ALPHA, GAP_ROUNDS, RULE, RULE_SHORT, p_cell, p_words, paired
from perf.records.levels import LevelResult
from perf.records.results import VariantResult
from perf.search import focus

TRIAL = [15.99, 56.97, 89.34]  # the pick over sigconv_ts_cpu1_nodb_mbs64, t17-sig's 3 rounds
COLOC = [0.424, 0.514, 0.563]  # mlp_onnx_cpu1_db500_mbs64 over the held combination, t17-coloc's 3 rounds


@pytest.mark.parametrize("flip", [False, True])
def test_every_round_far_apart_is_called_either_way_and_says_by_which_rule(flip: bool) -> None:
    a, b = ([1.0] * 3, TRIAL) if flip else (TRIAL, [1.0] * 3)
    p = paired(a, b)
    assert p is not None and p.gap_p_value is not None and p.gap_p_value > GAP_ALPHA  # the t-test alone: 0.0091
    assert p.verdict == ("lower" if flip else "higher") and p.by_gap and p.tier == "far" and p.uncalled() is None
    way = "behind" if flip else "ahead"
    words = p.describe("faster", "slower")
    assert words.startswith("slower: " if flip else "faster: ")
    assert f"{way} in each of the 3 rounds by at least 16.0×, more than {FAR_GAP:g}× in every one" in words
    assert f"t-test {p_text(p.gap_p_value)}, not needed" in words and "too uneven" not in words
    assert p_cell(p.decided_p, p.tier) == f"{p_number(p.gap_p_value)} (each >{FAR_GAP:g}×)"
    assert p_words(p.decided_p, p.tier).startswith(f"every round more than {FAR_GAP:g}× apart")
    assert f"more than {FAR_GAP:g}× apart" in RULE and f"more than {FAR_GAP:g}× apart" in RULE_SHORT


@pytest.mark.parametrize("flip", [False, True])
def test_a_gap_under_far_in_one_round_stays_uncalled_and_says_the_far_rule_too(flip: bool) -> None:
    ratios = [1 / r for r in COLOC] if flip else COLOC  # 1.78–2.36×: the smallest round is under 2×
    p = paired(ratios, [1.0] * 3)
    assert p is not None and p.verdict == "not distinguishable" and p.one_way and p.tier == "gap"
    assert p.gap_p_value is not None and p.gap_p_value > GAP_ALPHA
    for why in (p.uncalled(), p.uncalled(short=True)):
        assert why is not None and "too uneven" in why and f"or every round more than {FAR_GAP:g}× apart" in why


def test_fewer_rounds_than_the_gap_tier_needs_are_not_called_however_far() -> None:
    p = paired(TRIAL[: GAP_ROUNDS - 1], [1.0] * (GAP_ROUNDS - 1))
    assert p is not None and p.verdict == "not distinguishable" and p.uncalled(short=True) == "too few rounds"


def _vr(name: str, thr: list[float]) -> VariantResult:
    lv = [LevelResult(4, 1, r, throughput_infer_per_s=t, latency_p99_ms=5.0) for r, t in enumerate(thr)]
    return VariantResult(name, status="ok", levels=lv)


def test_the_ranking_beats_it_and_the_search_prunes_on_the_same_constant() -> None:
    pick = [652.2, 640.0, 660.0]
    slow = [x / r for x, r in zip(pick, TRIAL)]
    c = compare(_vr("pick", pick), Side("pick", 4), _vr("slow", slow), Side("slow", 4))
    assert c.verdict == "a" and "beats" in c.sentence() and "at least 16.0×" in c.sentence()
    assert focus.FAR_GAP is FAR_GAP  # one source: the search's "far behind" is the rule's


def test_the_gap_tier_s_p_is_scipy_s_one_sided_t_test() -> None:
    """gap_p computes ttest_1samp's statistic and one-sided p directly (a rounds ranking calls it ~36,000 times in 10
    simulated runs; scipy's ttest_1samp took a third of their time): the same p to within rounding."""
    import math
    import random

    from scipy import stats

    from perf.analysis.stats.paired import gap_p

    rng = random.Random(1)
    for _ in range(300):
        n, sign = rng.randint(3, 12), rng.choice([1, -1])
        ratios = [math.exp(sign * (math.log(1.1) + abs(rng.gauss(0.2, 0.3)))) for _ in range(n)]
        logs = [math.log(r) for r in ratios]
        ref = float(stats.ttest_1samp(logs, 0.0, alternative="greater" if sign > 0 else "less").pvalue)
        assert math.isclose(gap_p(ratios) or 0.0, ref, rel_tol=1e-9), (ratios, ref)
