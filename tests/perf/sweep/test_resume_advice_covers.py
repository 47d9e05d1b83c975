"""A sweep's resume advice covers what it says it measures (trial 21, T21-1): a 90 s run advised
"`--resume det-short --time-budget 4m` measures them (... about 235 s ...)"; the resume given 4m priced its
loads anew, cut one of them again (187 s left against 193 s), skipped the in-process baseline its first line
had promised ("then the in-process baseline"), left 61 s unused and advised the same `--time-budget 4m` again.
Now every suggested budget adds the margin colocate's adds (20 %), and is one minute above a resumed session's
budget that did not cover the work (the resume line and the baseline's hint: test_resume_ended_rounds_unit)."""

from __future__ import annotations

from factories import level_result, run_result, variant_result

from perf.analysis.recommendation import cuts
from perf.analysis.recommendation.cuts import unmeasured_caveat
from perf.records.rounds import BudgetRecord, Cut, RoundsRecord


def _cut_run(need: float, budget: BudgetRecord | None = None):
    measured = [variant_result("fast", [level_result(c, 300.0 * c, 2.0 * c, trial=r) for c in (1, 2) for r in range(3)])]
    cut = [variant_result("late", status="skipped", error="cut for time: ...")]
    run = run_result([*measured, *cut], settings={"latency_budget_ms": 25.0}, finished="x")
    run.rounds = RoundsRecord(seed=1, cuts=[Cut("variant", "not measured: ...", "late", need_s=need, final=True)], budget=budget)
    return run


def _minutes(text: str) -> int:
    return int(text.split("--time-budget ")[1].split("m")[0])


def test_the_advised_budget_adds_the_margin_every_suggested_budget_adds() -> None:
    caveat = unmeasured_caveat(_cut_run(235.0))
    assert caveat is not None and "about 235 s" in caveat, caveat
    assert _minutes(caveat) * 60 >= 235.0 * (1 + cuts.MARGIN), caveat  # 4m (240 s) on the old code: 5 s to spare
    assert "the budget adds 20% for what varies between sessions" in caveat
    assert cuts.suggested_s(235.0) == 300 and cuts.suggested_s(60 / 1.2) == 60


def test_a_resume_that_cut_again_is_never_advised_its_own_budget_again() -> None:
    """Session 2 of T21-1: given 240 s, it cut one variant priced at 193 s and advised `--time-budget 4m` again."""
    resumed = BudgetRecord(240.0, 1.35, 11.9, 226.0, 6, sessions=2, session_budget_s=240.0)
    caveat = unmeasured_caveat(_cut_run(193.0, resumed))
    assert caveat is not None
    assert _minutes(caveat) * 60 > 240.0, caveat
    assert "above this session's 240 s, which did not cover it" in caveat
    first = BudgetRecord(90.0, 1.35, 10.4, 83.0, 7, sessions=1, session_budget_s=90.0)  # a first session's own plan
    assert _minutes(unmeasured_caveat(_cut_run(193.0, first)) or "") == 4
