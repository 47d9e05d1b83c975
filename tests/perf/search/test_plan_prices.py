"""Trial 29, T29-5: a resume's plan priced its visits at the cost model's 1.25 s where the run had measured 5.9 s.
Every price of a plan is now one :class:`perf.search.budget.Prices` (the cost model's, or a resume's measured ones):
the first plan (:func:`~perf.search.budget.fit`), the plan fitted again after the loads
(:func:`~perf.search.refit.refit`: it re-priced the visits at the cost model's), and the budget that keeps the
in-process baseline (:func:`~perf.search.budget.keeps_baseline`); and a plan after rounds the run has (``done``) is
sized for those a verdict still needs, as its cuts say."""

from __future__ import annotations

import pytest

from perf.records.rounds import RoundRules
from perf.records.search import SearchRules
from perf.search import budget
from perf.search.refit import refit

RULES = RoundRules()
LADDER = (1, 2, 4)
NAMES = ["a", "b", "c", "d"]
MEASURED = budget.Prices(5.9, 6.0, 2.0, 25)


def test_a_plan_is_priced_at_the_prices_it_is_given() -> None:
    model = budget.fit(NAMES, LADDER, True, 1, RULES, SearchRules(), None, False)
    assert model.visit_s == budget.visit_s(RULES.window_ms) and model.prices == budget.model_prices(RULES.window_ms)
    fit = budget.fit(NAMES, LADDER, True, 1, RULES, SearchRules(), None, False, prices=MEASURED)
    assert fit.prices == MEASURED and fit.prices.visit_words() == "5.90 s visits (the run's mean of 25)"
    per_round = len(NAMES) * 2  # two levels a variant a round on (1, 2, 4)
    assert fit.estimate_s == pytest.approx(len(NAMES) * (6.0 + 2.0) + fit.rounds * per_round * 5.9)
    assert budget.estimate(len(NAMES), LADDER, True, 1, RULES, 3, False, MEASURED) == pytest.approx(32.0 + 3 * 8 * 5.9)


def test_the_plan_fitted_again_keeps_the_plans_visit_price() -> None:
    """After the loads it re-priced the rounds at the cost model's visit: a plan of 5.9 s visits fitted again as if
    its visits took 1.25 s kept rounds that do not fit."""
    left = 200.0
    fit = budget.fit(NAMES, LADDER, True, 1, RULES, SearchRules(), left, False, prices=MEASURED)
    again = refit(fit, NAMES, 30.0, LADDER, True, 1, RULES, SearchRules(), left - 4 * 30.0)  # loads far slower
    assert again is not None and again.visit_s == 5.9
    per_round = len(again.variants) * 2
    assert again.estimate_s == pytest.approx(len(again.variants) * 2.0 + again.rounds * per_round * 5.9)


def test_a_plan_after_rounds_sizes_those_a_verdict_still_needs() -> None:
    """4 of the 6 rounds done: a budget that fits the 2 it lacks keeps every variant (the verdict's 6 would cut two)."""
    need2 = budget.estimate(len(NAMES), LADDER, True, 1, RULES, 2, False, MEASURED)
    fresh = budget.fit(NAMES, LADDER, True, 1, RULES, SearchRules(), need2 + 1.0, False, prices=MEASURED)
    assert fresh.cut_variants and "for the 6 rounds a verdict needs" in fresh.cuts[-1].reason
    after = budget.fit(NAMES, LADDER, True, 1, RULES, SearchRules(), need2 + 1.0, False, prices=MEASURED, done=4)
    assert after.variants == NAMES and not after.cuts and after.rounds == 2 and after.done == 4
    tight = budget.fit(NAMES, LADDER, True, 1, RULES, SearchRules(), need2 - 10.0, False, prices=MEASURED, done=4)
    assert "for the 2 of the 6 rounds a verdict needs that the run lacks" in tight.cuts[-1].reason, tight.cuts
    assert budget.wanted(RULES, 4) == (3, 2) and budget.wanted(RULES) == (7, 6)
    assert budget.ladder_rounds(3, 4) == "3 rounds (the 2 of the 6 a verdict needs that the run lacks and 1 to spare)"


def test_the_budget_that_keeps_the_baseline_is_found_at_the_plans_prices() -> None:
    cheap = budget.keeps_baseline(NAMES, LADDER, True, 1, RULES, SearchRules(), 0.0, 0.0, baseline=True)
    dear = budget.keeps_baseline(NAMES, LADDER, True, 1, RULES, SearchRules(), 0.0, 0.0, baseline=True, prices=MEASURED)
    assert dear > cheap
    fit = budget.fit(NAMES, LADDER, True, 1, RULES, SearchRules(), dear * 60.0, True, prices=MEASURED)
    assert fit.reserve_s > 0
