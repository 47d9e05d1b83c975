"""The console's row of the budget pick shows the pick's level, and the console ends with one line naming each pick
and its numbers (trial 23, T23-9: the pick's row read "p99 24.39 ms" beside a 5 ms budget, its own level's 2.33 ms
only in the note, and no "Recommendation:" line as report.md has)."""

from __future__ import annotations

import io

from factories import level_result, run_result, variant_result
from rich.console import Console

from perf.analysis.recommendation.recommend import recommend
from perf.cli.summary import BEST_LEVEL_WORDS, summary
from perf.records.results import RunResult
from perf.records.rounds import RoundsRecord

BUDGET_MS = 5.0


def _levels(spec: list[tuple[int, float, float]]) -> list:
    return [level_result(c, thr * (1 + 0.01 * r), p99, trial=r) for c, thr, p99 in spec for r in range(3)]


def _run() -> RunResult:
    """``pick``: its c=1 within the budget, its c=4 higher and far over it; ``fast``: higher still, over the budget at
    every level (the best peak)."""
    pick = _levels([(1, 1600.0, 2.3), (4, 1700.0, 24.4)])
    fast = _levels([(1, 1800.0, 6.4), (4, 4000.0, 6.8)])
    run = run_result([variant_result("pick", pick), variant_result("fast", fast)], settings={"latency_budget_ms": BUDGET_MS})
    run.settings["design"] = "rounds"
    run.rounds = RoundsRecord(seed=1)
    return run


def _row(run: RunResult, name: str) -> list[str]:
    out = io.StringIO()
    Console(file=out, width=1000).print(summary(run).table)
    line = next(ln for ln in out.getvalue().splitlines() if ln.startswith("│") and ln.split("│")[1].strip() == name)
    return [c.strip() for c in line.split("│")[1:-1]]


def test_the_budget_picks_row_shows_its_level_and_says_the_best_one_in_its_note() -> None:
    run = _run()
    rec = recommend(run, BUDGET_MS)
    u, b = rec.best_under_budget, rec.best_peak
    assert u is not None and u.variant == "pick" and b is not None and b.variant == "fast"
    name, thr, at, p99, _, note = _row(run, "pick")
    assert (at, p99) == (str(u.concurrency), "2.30")  # the pick's level, within the budget, not c=4's 24.40 ms
    assert f"{BEST_LEVEL_WORDS}: c=4: " in note and "p99 24.40 ms" in note  # its best level: said, in numbers
    assert _row(run, "fast")[2] == "4"  # every other row: its best level


def test_the_console_ends_with_the_picks_and_their_numbers() -> None:
    run = _run()
    rec = recommend(run, BUDGET_MS)
    line = summary(run).recommendation
    assert line is not None and line.startswith("Recommendation: best under the p99 budget of 5.00 ms: `pick` at c=1")
    assert rec.best_under_budget.numbers() in line and rec.best_peak.numbers() in line
