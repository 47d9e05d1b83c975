"""A level that fails in a rounds sweep (trial 11, F21): request errors are the same every time, so the
level is not measured again in the session (the sequential design's rule, perf.search.policy), a round
whose every visit failed is no round (perf.records.rounds.RoundsRecord.measured), and a variant with no
level left fails at once, saying why; a failed level above good ones ends the ladder there."""

from __future__ import annotations

from typing import Any

import pytest

from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import LoadGroup, RoundRecord, RoundRules, RoundsRecord, Visit
from perf.records.search import SearchRecord, SearchRules
from perf.search.plan import LevelKey, plan_levels
from perf.search.policy import ladder
from perf.search.rounds import Rounds, Setup
from perf.sweep.budget_scope import spent_words

REFUSED = "perf_analyzer reported request errors: error: Failed to init manager inputs: failed to parse the json file"


def _run(names: tuple[str, ...], rules: RoundRules) -> RunResult:
    run = RunResult("r", "now", variants=[VariantResult(n) for n in names])
    run.search, run.rounds = SearchRecord("brute", True), RoundsRecord(seed=0, rules=rules)
    run.rounds.groups.append(LoadGroup(0, list(names), "fits"))
    return run


def _engine(run: RunResult, levels: tuple[int, ...], adaptive: bool, events: list[dict[str, Any]]) -> Rounds:
    plans = {v.name: plan_levels(v.name, 8, levels, [1]) for v in run.variants}
    setup = Setup(plans, levels, adaptive, SearchRules(), run.rounds.rules, "brute")
    return Rounds(run, setup, 1.0, events=events.append)


def _level(key: LevelKey, error: str | None = None, thr: float = 100.0) -> LevelResult:
    c, b, t, r, sh = key
    if error:
        return LevelResult(c, b, t, request_rate=r, shape=sh, error=error).settle()
    return LevelResult(c, b, t, request_rate=r, shape=sh, throughput_infer_per_s=thr * c**0.5, latency_p99_ms=1.0)


def _one_level_failing(name: str, error: str, max_rounds: int) -> tuple[RunResult, list[LevelKey], list[dict[str, Any]]]:
    """Variant ``name``'s one level (c=1), every visit of which fails with ``error``, run in up to ``max_rounds``
    rounds: the run, each visit's level and the events."""
    run, events = _run((name,), RoundRules(max_rounds=max_rounds)), []
    sched = _engine(run, (1,), False, events)
    visits: list[LevelKey] = []

    def measure(_name: str, key: LevelKey) -> LevelResult:
        visits.append(key)
        return _level(key, error)

    sched.run_group([name], 0, measure)
    return run, visits, events


def test_a_level_refused_on_its_first_visit_is_visited_once_and_is_no_round() -> None:
    run, visits, events = _one_level_failing("bad", REFUSED, 10)
    assert len(visits) == 1  # not measured again in each of max_rounds rounds
    assert run.rounds.measured() == [] and run.rounds.group_rounds(0) == []
    assert [v.failed for r in run.rounds.rounds for v in r.order] == [True]  # the visit is kept, and says it failed
    vr = run.variant("bad")
    assert vr.status == "failed" and vr.error.startswith(REFUSED) and "not measured again in this session" in vr.error
    assert [e["variant"] for e in events if e["event"] == "variant_failed"] == ["bad"]
    assert run.rounds.ended == "no variant left in contention" and "max_rounds" not in run.rounds.ended
    assert spent_words(run.rounds, (0, 0), 1.0, 2.0, None).startswith("rounds: 0 rounds (1 visit, 1 failed)")


def test_a_failed_level_of_a_variant_beside_a_good_one_does_not_count_rounds_or_stop_the_good_one() -> None:
    rules = RoundRules(max_rounds=4)
    run, events = _run(("good", "bad"), rules), []
    sched = _engine(run, (1,), False, events)
    seen: dict[str, int] = {"good": 0, "bad": 0}

    def measure(name: str, key: LevelKey) -> LevelResult:
        seen[name] += 1
        return _level(key, REFUSED if name == "bad" else None)

    sched.run_group(["good", "bad"], 0, measure)
    assert seen["bad"] == 1 and seen["good"] > 1
    assert len(run.rounds.group_rounds(0)) == seen["good"]  # each round measured `good`: a round
    assert run.variant("bad").status == "failed"


def test_a_failed_level_ends_an_adaptive_ladder_and_is_not_visited_again() -> None:
    rules = RoundRules(max_rounds=6)
    levels, adaptive = ladder("auto", SearchRules())
    run, events = _run(("v",), rules), []
    sched = _engine(run, levels, adaptive, events)
    top_ok = 4
    visits: list[int] = []

    def measure(name: str, key: LevelKey) -> LevelResult:
        visits.append(key[0])
        return _level(key, REFUSED if key[0] > top_ok else None)

    sched.run_group(["v"], 0, measure)
    failed = sorted({c for c in visits if c > top_ok})
    assert failed and all(visits.count(c) == 1 for c in failed)  # each failed level visited once
    assert all(c <= top_ok or c in failed for c in visits)
    d = run.search.decision("v")
    assert d is not None and d.rule == "failed" and d.concurrency == failed[0] and REFUSED in d.reason
    assert run.variant("v").status != "failed"  # ranked on its good levels


def test_a_round_is_counted_when_one_visit_measured_something() -> None:
    ok, bad = Visit("a", 1), Visit("b", 1, failed=True)
    rec = RoundsRecord(seed=0, rounds=[RoundRecord(0, 0, 0, "now", 1.0, [bad]), RoundRecord(1, 0, 1, "now", 1.0, [bad, ok])])
    assert [r.index for r in rec.measured()] == [1]


#: perf_analyzer's words when a window saw no request complete (load-dependent: trial 14, T14-3).
NO_REQUEST = "Pass [3] cb::Error: No valid requests recorded within time interval. Please use a larger time window."


#: perf_analyzer's words when the server's index did not have the version at that moment (re-check of trial 14,
#: NEW-3: at c=16 and c=64 under load while server.log had the models loaded throughout).
NO_VERSION = "perf_analyzer reported request errors: failed to find the requested model version"


@pytest.mark.parametrize("error", [NO_REQUEST, NO_VERSION])
@pytest.mark.parametrize("adaptive", [False, True])
def test_a_transient_error_in_one_round_of_a_level_other_rounds_measured_does_not_end_its_ladder(
    adaptive: bool, error: str
) -> None:
    """Trial 14, T14-3: c=1 measured in round 1 and saw no request in round 2's window on a busy host;
    that one round ended the ladder at c=1 ("its level at concurrency 1 failed") and it was not measured again.
    Re-check of trial 14, NEW-3: the same with "failed to find the requested model version" while the model
    was loaded (a server-state error under load, failed at once before)."""
    levels, _ = ladder("auto", SearchRules()) if adaptive else ((1, 2), False)
    run, events = _run(("v",), RoundRules(max_rounds=4)), []
    sched = _engine(run, levels, adaptive, events)
    ones: list[int] = []

    def measure(name: str, key: LevelKey) -> LevelResult:
        ones.extend([key[2]] if key[0] == 1 else [])
        return _level(key, error if key[0] == 1 and len(ones) == 2 else None)  # its second visit only

    sched.run_group(["v"], 0, measure)
    assert len(ones) > 2, ones  # the visit that met the error happened, and the level was visited again
    d = run.search.decision("v")
    assert d is None or d.rule != "failed", d
    if not adaptive:  # an explicit list: every level each round, the one that met the error too
        assert len(ones) == len(run.rounds.rounds) > 2, ones
    vr = run.variant("v")
    assert vr.status != "failed" and sum(1 for lv in vr.levels if lv.concurrency == 1 and not lv.ok) == 1


def _failing_above(error: str, top_ok: int) -> tuple[RunResult, list[int]]:
    """An adaptive ladder each visit of whose levels above ``top_ok`` fails with ``error``: the run and each
    visit's concurrency."""
    levels, adaptive = ladder("auto", SearchRules())
    run = _run(("v",), RoundRules(max_rounds=6))
    sched = _engine(run, levels, adaptive, [])
    visits: list[int] = []

    def measure(name: str, key: LevelKey) -> LevelResult:
        visits.append(key[0])
        return _level(key, error if key[0] > top_ok else None)

    sched.run_group(["v"], 0, measure)
    return run, visits


@pytest.mark.parametrize("error", [NO_REQUEST, NO_VERSION])
def test_a_level_that_meets_a_transient_error_in_every_visit_fails_after_its_window_visits(error: str) -> None:
    from perf.search.failed import WINDOW_VISITS

    run, visits = _failing_above(error, 2)
    slow = sorted({c for c in visits if c > 2})
    assert slow and visits.count(slow[0]) == WINDOW_VISITS  # visited again once, then no more
    d = run.search.decision("v")
    assert d is not None and d.rule == "failed" and d.concurrency == slow[0]


def test_a_level_whose_windows_see_no_request_in_every_visit_says_so() -> None:
    run, _ = _failing_above(NO_REQUEST, 2)
    d = run.search.decision("v")
    assert d is not None
    assert d.reason.startswith(f"no request completed at concurrency {d.concurrency} within its windows in any visit (")
    assert "a resumed run measures it again" not in d.reason  # a resumed run keeps its window


def test_a_level_whose_every_visit_finds_no_version_says_the_model_was_loaded_not_the_repository() -> None:
    from perf.records.levels import TRANSIENT_WORDS

    run, _ = _failing_above(NO_VERSION, 2)
    d = run.search.decision("v")
    assert d is not None
    assert "while this sweep had the model loaded" in d.reason and TRANSIENT_WORDS in d.reason
    assert f"its level at concurrency {d.concurrency} failed" not in d.reason  # not worded as the repository's


def test_a_variant_whose_only_level_sees_no_request_fails_after_its_window_visits() -> None:
    from perf.search.failed import WINDOW_VISITS

    run, visits, _ = _one_level_failing("slow", NO_REQUEST, 10)
    assert len(visits) == WINDOW_VISITS
    vr = run.variant("slow")
    assert vr.status == "failed" and vr.error.startswith(NO_REQUEST)
    assert f"no request completed within the window in any of its {WINDOW_VISITS} visits" in vr.error
    assert "fails the same way each time" not in vr.error


@pytest.mark.parametrize(
    "error",
    [
        "perf_analyzer reported request errors: unexpected shape for input 'x' for model 'v'. Expected [-1,3], got [1,4]",
        "perf_analyzer reported request errors: Request for unknown model: 'v' is not found",
        "perf_analyzer reported request errors: expected datatype FP32 for input 'x', got INT64",
        "tritonserver died while measuring bad at concurrency 1 batch 1 (its log: server.log); perf_analyzer: "
        "Connection reset by peer",
    ],
)
def test_a_permanent_request_error_still_fails_its_level_at_once(error: str) -> None:
    run, visits, _ = _one_level_failing("bad", error, 10)
    assert len(visits) == 1
    vr = run.variant("bad")
    assert vr.status == "failed" and "not measured again in this session" in vr.error


@pytest.mark.parametrize(
    "error",
    [
        NO_VERSION,
        "Request for unknown model: 'v' version 1 is not at ready state",
        "Request for unknown model: 'v' has no available versions",
        "failed to get model metadata: Connection reset by peer",
        "HTTP client failed: Timeout was reached",
        "[StatusCode.DEADLINE_EXCEEDED] Deadline Exceeded",
    ],
)
def test_a_server_state_error_is_transient(error: str) -> None:
    from perf.records.levels import transient_failure, window_failure

    assert transient_failure(error) and not window_failure(error)
