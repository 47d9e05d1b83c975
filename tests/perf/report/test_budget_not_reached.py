"""The best under a latency budget says when it is best among the levels measured only: no higher
concurrency of its was measured and its latency at the top is within the budget, throughput still
rising (trial 9 F13: every ladder capped at c=4 by the time budget, the pick's p99 6.38 ms of a
10 ms budget, throughput +67.6 % from c=1, called "best under the p99 budget" with no word that the
budget was never reached) — in report.md's Recommendation and Conclusions, the console summary and
the deployment bundle's README (one Choice, perf.analysis.saturation.peaks.budget_unreached)."""

from __future__ import annotations

import io
from pathlib import Path

from factories import level_result, run_result, variant_result
from rich.console import Console
from tables import bullet_block

from perf.analysis.recommendation.recommend import recommend
from perf.analysis.saturation.peaks import HEADROOM_NOTE
from perf.cli.summary import summary_table
from perf.deploy.choose import choose_variant
from perf.records import results
from perf.records.rounds import BudgetRecord, RoundsRecord
from perf.records.search import SearchDecision, SearchRecord
from perf.report.write import write_report


def _variant(name: str, per_c: dict[int, tuple[list[float], float]]):
    return variant_result(
        name, [level_result(c, t, p99, trial=r, spread=True) for c, (thr, p99) in per_c.items() for r, t in enumerate(thr)]
    )


def _run(top_p99: float):
    """Two variants whose ladders the time budget capped at c=4 (the ladder goes to 64); the
    pick's p99 there is ``top_p99`` (a 10 ms budget)."""
    variants = [
        _variant("lead", {1: ([600, 610, 590], 2.0), 4: ([1000, 1010, 990], top_p99)}),
        _variant("half", {1: ([300, 305, 295], 2.0), 4: ([500, 505, 495], 3.0)}),
    ]
    cap = "concurrency 4 is the top of the ladder the time budget allows (the ladder goes to 64)"
    search = SearchRecord(
        mode="prune", adaptive=True, decisions=[SearchDecision(n, "cap", 4, cap, [1, 4]) for n in ("lead", "half")]
    )
    rounds = RoundsRecord(seed=1, budget=BudgetRecord(180.0, 1.2, 5.0, 160.0, 6, max_concurrency=4))
    return run_result(variants, settings={"latency_budget_ms": 10.0, "design": "rounds"}, rounds=rounds, search=search)


def test_a_pick_at_the_top_of_a_capped_ladder_says_the_budget_was_not_reached(tmp_path: Path) -> None:
    results.save(_run(6.0), tmp_path)
    text = write_report(tmp_path).read_text()
    under = bullet_block(text, "- **Best under the p99 budget of 10.00 ms:** `lead`")
    said = (
        "best among the levels measured only: the budget was not reached (p99 6.00 ms at c=4, its highest level; its "
        "ladder ended at concurrency 4, where the time budget capped a ladder that goes to 64, with throughput still "
        "rising, +66.7 % from c=1 to c=4 (c=4 ahead in 3 of 3 rounds; p < 0.001, large consistent gap t-test)), so a "
        "higher concurrency may still be within it and serve more"
    )
    assert said in under
    conclusions = bullet_block(text, "**The numbers.**")
    # said once, with the pick; the Conclusions point to it (re-check 20, NEW-4: word for word in both)
    pointer = "best among the levels measured only (the budget not reached: no higher c measured; why: see Recommendation)"
    assert f"Under the p99 budget of 10.00 ms the best is `lead` at concurrency 4 with 1,000.0 infer/s; {pointer}." in conclusions
    assert said not in conclusions
    out = io.StringIO()
    Console(file=out, width=400).print(summary_table(_run(6.0)))
    assert f"best under budget (c=4; {HEADROOM_NOTE})" in out.getvalue()
    chosen = choose_variant(_run(6.0), allow_unfinished=True)  # the deployment bundle's README says its describe()
    assert chosen.variant == "lead" and said in chosen.level.describe()


def test_a_pick_with_a_higher_level_over_the_budget_says_nothing_of_it() -> None:
    run = _run(6.0)
    lead = run.variants[0]
    lead.levels += [level_result(8, t, 14.0, trial=r, spread=True) for r, t in enumerate([1500, 1490, 1510])]
    rec = recommend(run, 10.0)
    assert rec.best_under_budget is not None and rec.best_under_budget.concurrency == 4
    assert rec.best_under_budget.headroom is None and "not reached" not in rec.best_under_budget.describe()


def test_the_unreached_budgets_latency_carries_its_levels_mark() -> None:
    """Review of F13's fix: the latency quoted for a level flagged host busy carries its mark, as
    every other quoted number does (perf.markdown.flag_mark)."""
    from perf.markdown import flag_mark
    from perf.records.levels import HOST_BUSY

    run = _run(6.0)
    for lv in run.variants[0].levels:
        lv.host_busy, lv.host_busy_pct = True, 90.0
    rec = recommend(run, 10.0)
    assert rec.best_under_budget is not None and rec.best_under_budget.status == HOST_BUSY
    assert f"(p99 6.00 ms{flag_mark(HOST_BUSY)} at c=4, its highest level; " in (rec.best_under_budget.headroom or "")


def test_a_pick_at_a_cap_the_time_budget_set_names_the_command_that_measures_above_it() -> None:
    """Trial 21, T21-6: every --resume keeps the first session's cap (c<=4 of a 90 s run), and the pick sat at it with
    "budget not reached" and no word of what measures above it."""
    finished = _run(6.0)
    finished.finished = "2026-12-04T16:00:00+0000"  # its rounds a decision ended: a resume keeps the cap
    assert finished.rounds is not None
    finished.rounds.ended, finished.rounds.ended_by = "ranking decided (after 6 rounds)", "decided"
    u = recommend(finished, 10.0).best_under_budget
    assert u is not None and u.headroom is not None
    assert u.headroom.endswith(
        "; a --resume of this run keeps the time budget's cap of concurrency 4: a new run with "
        "`--variants lead --concurrency 4,8,16,32,64` measures above it"
    ), u.headroom
    lifts = (
        "; the time budget capped it at concurrency 4: a --resume given a --time-budget that fits a verdict's rounds "
        "with the ladders above it lifts the cap (its plan line names that budget), or a new run with "
        "`--variants lead --concurrency 4,8,16,32,64` measures above it"
    )
    u = recommend(_run(6.0), 10.0).best_under_budget  # unfinished: a resume given more time lifts it (T21-6's rest)
    assert u is not None and u.headroom is not None
    assert u.headroom.endswith(lifts), u.headroom
    # trial 31, F2: a run the time budget ended is finished, and its resume given the time lifts the cap as well (the
    # resume's plan line names the budget); the report said a resume keeps it, and sent the user to a new run
    timed = _run(6.0)
    timed.finished = "2026-12-04T16:00:00+0000"
    assert timed.rounds is not None
    timed.rounds.ended, timed.rounds.ended_by = "time budget spent: 9 s left; 2 of the 6 rounds a verdict needs", "time"
    u = recommend(timed, 10.0).best_under_budget
    assert u is not None and u.headroom is not None
    assert u.headroom.endswith(lifts) and "keeps the time budget's cap" not in u.headroom, u.headroom
    uncapped = _run(6.0)
    assert uncapped.rounds is not None and uncapped.rounds.budget is not None
    uncapped.rounds.budget.max_concurrency = None  # the search's own top, not the time budget's: nothing to lift
    lifted = recommend(uncapped, 10.0).best_under_budget
    assert lifted is not None and "measures above it" not in (lifted.headroom or "")
