"""Two separate rounds runs compared level by level: the rule when rounds cannot be paired.

Within one rounds run every round measures each target once, so a comparison pairs the rounds
(:mod:`perf.analysis.stats.paired`). Two *runs* (before and after a change, or two machines) ran at
different times: round 3 of one has nothing to do with round 3 of the other, so their values
are two independent samples, one per round, and the paired rule does not apply.

Rule (:func:`rank_sum`; the comparison states it as :data:`RULE`): an exact two-sided
**Wilcoxon rank-sum (Mann–Whitney) test** on the two runs' per-round values at level
:data:`perf.analysis.stats.paired.ALPHA` (5 %): B is higher than A when B's values rank above A's so
consistently that random labels would do it with probability at most 5 %; likewise lower;
otherwise the two are *not distinguishable at this noise*. Like the sign test it assumes
nothing about the size or the distribution of the noise, only independent rounds (W. J.
Conover, *Practical Nonparametric Statistics*, 3rd ed., section 5.1). With every value of one
run above every value of the other, 4 rounds on each side (or 3 and 5) are the fewest that can
reach 5 % (``2 / C(8, 4) = 2.9 %``); 3 and 3 cannot (10 %): such a level is "too few rounds to
tell". The test sees only the noise within each run: a change of the host's load between the
two runs is part of the difference it measures.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Sequence

from core.units import p_text
from perf.analysis.stats.paired import ALPHA, Verdict

#: The rule in words, for the comparison.
RULE = (
    "the two runs' rounds ran at different times, so they cannot be paired round by round (each run's own report "
    "pairs its rounds; across runs there is nothing to pair): each level is the median over its rounds [min–max], and "
    "a change is called only when an exact two-sided Wilcoxon rank-sum (Mann–Whitney) test on the two runs' "
    f"per-round values gives p ≤ {ALPHA:g} (at least 4 rounds on each side, or 3 and 5, every value of one run "
    "beyond every value of the other), else *not distinguishable at this noise*; with fewer rounds no difference "
    "can be called (*too few rounds to tell*). The test sees only the noise within each run: a change of the host's "
    "load between the two runs is part of the difference"
)


def rank_sum_p(a: Sequence[float], b: Sequence[float]) -> float:
    """Exact two-sided p-value of the rank-sum test of ``b`` against ``a`` (scipy's
    ``mannwhitneyu``, ``method="exact"``: the U statistic's distribution over every relabelling
    of the pooled values); 1.0 when either is empty."""
    if not a or not b:
        return 1.0
    from scipy import stats  # imported here: only a comparison of two rounds runs needs it

    return float(stats.mannwhitneyu(b, a, alternative="two-sided", method="exact").pvalue)


def can_call(m: int, n: int, alpha: float = ALPHA) -> bool:
    """Whether samples of ``m`` and ``n`` rounds can reach ``alpha`` at all (every value of one
    beyond every value of the other: p = 2 / C(m + n, m))."""
    return m > 0 and n > 0 and rank_sum_p(range(m), range(m, m + n)) <= alpha


@dataclasses.dataclass(frozen=True)
class RankSum:
    """B compared with A over two runs' rounds (module docstring).

    Attributes:
        a, b: The per-round values of each run (rounds where the level was measured).
        p_value: The test's two-sided p-value (:func:`rank_sum_p`).
        verdict: ``"higher"`` (B above A), ``"lower"`` or ``"not distinguishable"`` at the level.
        callable: Whether these round counts can reach the level at all (:func:`can_call`).
    """

    a: tuple[float, ...]
    b: tuple[float, ...]
    p_value: float
    verdict: Verdict
    callable: bool

    @property
    def change_pct(self) -> float | None:
        """(median B − median A) / median A in %; ``None`` when A's median is 0."""
        ma = statistics.median(self.a)
        return (statistics.median(self.b) - ma) / ma * 100.0 if ma else None

    def describe(self) -> str:
        """``"higher (p = 0.029)"``, ``"not distinguishable (p = 0.34)"`` or ``"too few rounds to tell (3 and 3)"``."""
        if not self.callable:
            return f"too few rounds to tell ({len(self.a)} and {len(self.b)})"
        return f"{self.verdict} ({p_text(self.p_value)})"


def rank_sum(a: Sequence[float], b: Sequence[float], alpha: float = ALPHA) -> RankSum | None:
    """Compare run B's per-round values ``b`` with run A's ``a`` (module docstring).

    Args:
        a: A's value in each round that measured the level (any order).
        b: B's likewise; the counts may differ.
        alpha: Two-sided level of the test.

    Returns:
        The comparison, or ``None`` when either run has no value.
    """
    if not a or not b:
        return None
    u = sum(1.0 if y > x else 0.5 if y == x else 0.0 for x in a for y in b)  # pairs where B is the larger
    m, n = len(a), len(b)
    p = rank_sum_p(a, b)
    verdict: Verdict = "not distinguishable" if p > alpha else "higher" if u > m * n / 2 else "lower"
    return RankSum(tuple(a), tuple(b), p, verdict, can_call(m, n, alpha))
