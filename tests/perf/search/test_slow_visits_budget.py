"""Visits far over their plan (recheck of trial 16, R16-11): ``--perf-analyzer-arg=--warmup-request-count=20000``
went through, every visit took 20-50 s against the 1.25 s planned, and the sweep ended 35 % over its
``--time-budget`` with no word why (the first round started on the plan's estimate and ran to its last visit).
Now the budget is kept from the visits timed at every visit, the console says once that visits run far over
their plan and which flag lengthens them, and the end's reason (a cut in report.md) says it too."""

from __future__ import annotations

import pytest

from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundRules, RoundsRecord
from perf.records.search import SearchRecord, SearchRules
from perf.search import budget
from perf.search.ending.out_of_time import NO_FLAG
from perf.search.plan import LevelKey, plan_levels
from perf.search.rounds import Rounds, Setup
from perf.sweep.analyzer_flags import ANALYZER_FLAGS, PASS_FLAG, visit_lengtheners

NAMES = [f"v{i}" for i in range(8)]
LEVELS = (1, 2, 4)
PLANNED_S = budget.visit_s(RoundRules().window_ms)  # what the plan prices a visit at
WARMUP = ("--warmup-request-count=20000",)


def _sweep(visit_s: float, budget_s: float, why: str, kept_s: float = 0.0) -> tuple[float, RunResult, list[dict]]:
    """The rounds of :data:`NAMES` at :data:`LEVELS`, each visit ``visit_s`` on a fake clock, within ``budget_s``
    (``reserve_s`` 7 s kept for the unloads): ``(when they ended, run, events)``."""
    clock = [0.0]
    run = RunResult("r", "now", variants=[VariantResult(n, status="pending") for n in NAMES])
    run.search, run.rounds = SearchRecord("brute", False), RoundsRecord(seed=0)
    plans = {n: plan_levels(n, 8, LEVELS, [1]) for n in NAMES}
    events: list[dict] = []
    setup = Setup(plans, LEVELS, False, SearchRules(), RoundRules(), "brute")
    sched = Rounds(run, setup, PLANNED_S, lambda: clock[0], budget_s, events=events.append, slow_why=why)
    sched.kept_s = kept_s  # as the sweep sets it: its deadline is the budget's less the baseline's kept time

    def measure(name: str, key: LevelKey) -> LevelResult:
        clock[0] += visit_s
        return LevelResult(key[0], 1, key[2], throughput_infer_per_s=100.0 * (1 + NAMES.index(name)), latency_p99_ms=1.0)

    sched.run_group(NAMES, 0, measure, reserve_s=7.0)
    return clock[0], run, events


def test_visits_far_over_their_plan_stop_at_the_budget_and_say_which_flag() -> None:
    why = visit_lengtheners(WARMUP)
    assert why == (
        f"{PASS_FLAG}=--warmup-request-count=20000 (perf_analyzer's --warmup-request-count sends that many requests "
        "before each run's windows, at its load)"
    )
    ended, run, events = _sweep(35.0, 600.0, why)
    assert ended <= 600.0 - 7.0  # the old code ran round 1's 24 visits to the end: 840 s, 40 % over
    assert run.rounds is not None and len(run.rounds.rounds) == 1 and len(run.rounds.rounds[0].order) == 16
    slow = [e for e in events if e["event"] == "plan" and e.get("warn")]
    assert len(slow) == 1  # said once, at the first slow visit
    assert slow[0]["text"].startswith(f"rounds: visits took 35.0 s each (mean of 1), 28× the {PLANNED_S:.2f} s planned: {why}")
    cut = next(c.reason for c in run.rounds.cuts if c.kind == "rounds")
    assert cut.startswith("round 1 of group 1 stopped after 16 visits of 24: 8 visits not measured: time budget spent: ")
    assert "the next visit (35.0 s, the mean measured) and the unloads (7 s) do not fit" in cut
    assert f"(visits took 35.0 s each (mean of 16), 28× the {PLANNED_S:.2f} s planned: {why})" in cut
    assert run.rounds.ended is not None and why in run.rounds.ended


def test_without_a_flag_that_lengthens_them_the_words_say_so() -> None:
    _, run, events = _sweep(35.0, 600.0, visit_lengtheners(("--max-threads=16",)))
    assert run.rounds is not None and NO_FLAG in (run.rounds.ended or "")
    assert sum(1 for e in events if e.get("warn")) == 1


def test_visits_as_planned_say_nothing_and_end_rounds_whole() -> None:
    ended, run, events = _sweep(PLANNED_S, 100.0, visit_lengtheners(WARMUP))
    assert ended <= 100.0 and not [e for e in events if e.get("warn")]
    assert run.rounds is not None and all(len(r.order) == len(NAMES) * len(LEVELS) for r in run.rounds.rounds)
    assert "visits took" not in (run.rounds.ended or "")


def test_the_flags_that_change_a_visits_length_are_one_kind() -> None:
    """Every perf_analyzer flag that changes how long a run takes carries it in the table; of those, the ones
    the sweep lets through are named when visits run slow, the others are refused before anything starts."""
    slows = {f.names[0] for f in ANALYZER_FLAGS if f.slows}
    assert slows == {
        "--warmup-request-count",
        "--measurement-interval",
        "--measurement-mode",
        "--measurement-request-count",
        "--request-count",
        "--stability-percentage",
        "--max-trials",
        "--concurrency-range",
        "--request-rate-range",
        "--periodic-concurrency-range",
        "--binary-search",
        "-c",
        "-d",
    }
    through = {f.names[0] for f in ANALYZER_FLAGS if f.slows and f.why is None}
    assert through == {"--warmup-request-count"}


@pytest.mark.parametrize("args", [("--warmup-request-count", "20000"), ("--warmup=20000",)])
def test_the_flag_is_named_however_it_is_typed(args: tuple[str, ...]) -> None:
    assert "perf_analyzer's --warmup-request-count sends that many requests" in visit_lengtheners(args)


def test_the_rounds_time_left_is_said_beside_the_time_kept_for_the_baseline() -> None:
    """Trial 17, T17-11: the rounds ended "time budget spent: 13 s left, the next round and the unloads (15 s
    estimated) do not fit" against a deadline that kept 22 s for the in-process baseline: the words read as all
    the budget left. Both end reasons (before a round, within one) now name the time kept beside it."""
    _, run, _ = _sweep(35.0, 600.0, NO_FLAG, kept_s=22.0)
    assert run.rounds is not None
    cut = next(c.reason for c in run.rounds.cuts if c.kind == "rounds")
    assert " s left before the 22 s kept for the in-process baseline, the next visit (35.0 s" in cut
    _, run, _ = _sweep(PLANNED_S, 20.0, NO_FLAG, kept_s=22.0)  # ends before a round
    assert run.rounds is not None
    cut = next(c.reason for c in run.rounds.cuts if c.kind == "rounds")
    assert " s left before the 22 s kept for the in-process baseline, the next round and the unloads (" in cut
    _, run, _ = _sweep(PLANNED_S, 20.0, NO_FLAG)  # none kept: nothing said of it
    assert run.rounds is not None and "kept for" not in next(c.reason for c in run.rounds.cuts if c.kind == "rounds")
