"""The time budget's plan follows what the rounds really measure: the ladder's own levels per
round (perf.search.budget.levels_by_round) and, after the rounds, the variants it cut re-planned
from the measured times (perf.search.late.late)."""

from __future__ import annotations

from collections import Counter

import pytest
from simulated_host import rounds_run

from perf.analysis.ranking.operating import MIN_ROUNDS
from perf.records.rounds import RoundRules
from perf.records.search import SearchRules
from perf.search import budget
from perf.search import late as lates
from perf.search.policy import AUTO
from perf.search.policy import ladder as ladder_of

LADDER = ladder_of(AUTO, SearchRules())[0]  # 1, 2, 4 ... 64
RULES = RoundRules()


def _levels_in_round(n_rounds: int, ladder: tuple[int, ...]) -> list[float]:
    """Levels of one variant per round by :func:`budget.estimate` (whatever the estimate's own count)."""
    fixed = budget.LOAD_S + budget.UNLOAD_S
    v = budget.visit_s(RULES.window_ms)
    totals = [budget.estimate(1, ladder, True, 1, RULES, r, False) - fixed for r in range(n_rounds + 1)]
    return [round((b - a) / v, 6) for a, b in zip(totals, totals[1:])]


def test_the_estimate_counts_the_levels_the_coarse_ladder_measures_in_its_first_rounds() -> None:
    """The ladder walks 1, 4, 16 then 64 (perf.search.ladder); the estimate counted
    ``first_levels + flat_window`` (5) a round, and 3 on a ladder capped at 4 whose rounds measure 1 and 4."""
    seen: Counter[int] = Counter()
    for seed in range(6):  # brute: no prune, every variant's ladder as it grows
        run, _, _ = rounds_run(seed, mode="brute")
        for r in run.rounds.rounds[: RULES.min_rounds]:
            seen[r.index] = max(seen[r.index], *Counter(v.variant for v in r.order).values())
    est = _levels_in_round(RULES.min_rounds, LADDER)
    assert est == [seen[i] for i in range(RULES.min_rounds)] == [3, 4, 4]
    assert _levels_in_round(7, (1, 2, 4)) == [2] * 7  # the trial's cap: rounds measure 1 and 4 (2 joins as 1 retires)
    assert _levels_in_round(3, (1, 2, 4, 8, 16)) == [3, 3, 3]
    assert budget.levels_by_round((1, 2, 4), False, RULES, 2) == [3, 3]  # an explicit list: whole, every round


def test_a_tight_budget_caps_the_ladder_no_lower_than_its_rounds_need() -> None:
    """The new-user trial: 8 variants, 3 minutes; the plan capped the ladder at 4 and cut 3 variants."""
    names = [f"v{i}" for i in range(8)]
    fit = budget.fit(names, LADDER, True, 1, RULES, SearchRules(), 178.0, True)
    assert fit.estimate_s <= 178.0 and len(fit.variants) >= 7
    assert fit.visits[:3] == [2, 2, 2]  # what a variant's ladder capped at 4 measures a round


def test_the_cut_variants_are_re_planned_from_the_measured_times_most_promising_first() -> None:
    visits = [3, 4, 4, 4, 4, 4, 4]

    def need(k: int, tie: int = 2, tie_visits: int = 3, load_s: float = 4.0, visit_s: float = 1.0) -> float:
        rounds = sum(k * visits[r] + tie_visits for r in range(MIN_ROUNDS))
        return (k + tie) * (load_s + budget.UNLOAD_S) + rounds * visit_s

    for left in (need(1) - 0.1, need(1), need(2) + 1.0, need(3) + 50.0):
        late = lates.late(["c1", "c2", "c3"], ["a", "b"], 3, visits, 4.0, 1.0, left)
        k = len(late.variants)
        assert late.variants == ["c1", "c2", "c3"][:k] and late.estimate_s == pytest.approx(need(k) if k else 0.0)
        assert late.estimate_s <= left and (k == 3 or need(k + 1) > left)  # the most that fits, never more
        assert [c.variant for c in late.cuts] == ["c1", "c2", "c3"][k:]
        for i, c in enumerate(late.cuts, start=k):  # each still cut says what it would need, from measured numbers
            assert f"about {need(i + 1):.0f} s for the {MIN_ROUNDS} rounds" in c.reason
            assert "1.00 s a visit, 4.0 s a load" in c.reason and f"{left:.0f} s of the time budget" in c.reason
        if k:
            assert late.reason.startswith("after the rounds: ") and "`a`, `b`" in late.reason
