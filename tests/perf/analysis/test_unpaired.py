"""perf.analysis.stats.unpaired: the exact rank-sum test two rounds runs are compared by (issue 26), checked
against the definition (every relabelling of the pooled values counted)."""

from __future__ import annotations

import itertools
import math

import pytest

from perf.analysis.stats.unpaired import can_call, rank_sum, rank_sum_p


def _by_enumeration(a: list[float], b: list[float]) -> float:
    """Two-sided p by relabelling every split of the pooled values (the definition)."""
    pooled, m = a + b, len(a)

    def u(xs: list[float], ys: list[float]) -> float:
        return sum(1.0 if y > x else 0.5 if y == x else 0.0 for x in xs for y in ys)

    n_pairs = len(a) * len(b)
    observed = max(u(a, b), n_pairs - u(a, b))
    splits = list(itertools.combinations(range(len(pooled)), m))
    hits = 0
    for idx in splits:
        xs = [pooled[i] for i in idx]
        ys = [pooled[i] for i in range(len(pooled)) if i not in idx]
        hits += u(xs, ys) >= observed
    return min(1.0, 2 * hits / len(splits))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ([1, 2, 3, 4], [5, 6, 7, 8]),
        ([1, 5, 3, 7, 9], [2, 4, 6, 8]),
        ([10, 11, 12], [13, 14, 15, 16, 17]),
        ([3, 1, 2], [4, 6, 5]),
    ],
)
def test_the_exact_p_value_is_the_enumerations(a: list[float], b: list[float]) -> None:
    r = rank_sum(a, b)
    assert r is not None and math.isclose(r.p_value, _by_enumeration(a, b))


def test_the_fewest_rounds_that_can_call_a_difference() -> None:
    assert math.isclose(rank_sum_p([1, 2, 3, 4], [5, 6, 7, 8]), 2 / 70)  # every B above every A, 4 and 4 rounds: 2.9 %
    assert math.isclose(rank_sum_p([1, 2, 3], [4, 5, 6]), 0.1)  # 3 and 3 rounds: 10 %, never below 5 %
    assert can_call(4, 4) and can_call(3, 5) and not can_call(3, 3) and not can_call(3, 4) and not can_call(1, 9)
    r = rank_sum([1, 2, 3], [4, 5, 6])
    assert r is not None and not r.callable and r.describe() == "too few rounds to tell (3 and 3)"
    up = rank_sum([1, 2, 3, 4], [5, 6, 7, 8])
    assert up is not None and up.verdict == "higher" and up.describe() == "higher (p = 0.029)"
    down = rank_sum([5, 6, 7, 8], [1, 2, 3, 4])
    assert down is not None and down.verdict == "lower" and down.change_pct == pytest.approx(-61.5, abs=0.1)
    assert rank_sum([], [1.0]) is None
