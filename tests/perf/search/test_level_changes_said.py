"""Every change of which levels a rounds ladder measures is said and recorded (perf.search.retirement.changes).

Trial 20 (T20-10), a mixed-size sweep with a 30 ms budget: ``c=1 ...: no longer measured: concurrency 4 ahead by
213.0 %``; then c=4 retired as over the budget, c=2 joined and c=1 was measured 3 more rounds, neither said, and
then ``c=1 ...: no longer measured`` again. The README promises a line when a ladder changes.
"""

from __future__ import annotations

from typing import Any

from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundRules, RoundsRecord
from perf.records.search import SearchRecord, SearchRules
from perf.search.events import change_words
from perf.search.plan import LevelKey, plan_levels
from perf.search.policy import AUTO, Budget
from perf.search.policy import ladder as ladder_of
from perf.search.rounds import Rounds, Setup

LADDER = ladder_of(AUTO, SearchRules())[0]
BUDGET = Budget(30.0, cores=None)
#: Variant -> concurrency -> (infer/s, p99 ms); ``a``'s c=4 is 3x ahead of its c=1 and within the budget in rounds 1-3,
#: over it from round 4 (T20-10's c=4: p99 17-110 ms on a busy host): c=1 retires once the rule calls c=4 higher (3
#: rounds: s22z, Z-16), then is its best.
#: ``b`` is ``a`` with its rounds' wobble the other way: the rule never tells them apart, so the rounds go on (up to
#: 20: c=4 is over the budget from its 7th round).
TRUE = {"a": {1: (200.0, 9.0), 2: (420.0, 12.0), 4: (600.0, 40.0)}, "b": {1: (200.0, 9.0), 2: (420.0, 12.0), 4: (600.0, 40.0)}}


def _measure(name: str, key: LevelKey) -> LevelResult:
    c, b, t, _, shape = key
    thr, p99 = TRUE[name][min(c, 4)]
    p99 = 20.0 if c == 4 and t < 3 else p99
    wobble = 1.0 + (0.02 if (t + (name == "b")) % 2 else -0.02)
    return LevelResult(c, b, t, throughput_infer_per_s=thr * wobble, latency_p99_ms=p99, status="ok", shape=shape)


def _sweep(events: list[dict[str, Any]]) -> RunResult:
    names = list(TRUE)
    run = RunResult("r", "now", variants=[VariantResult(n, status="ok") for n in names])
    run.search, run.rounds = SearchRecord("prune", True), RoundsRecord(seed=1)
    plans = {n: plan_levels(n, 64, LADDER, [1]) for n in names}
    setup = Setup(plans, LADDER, True, SearchRules(), RoundRules(max_rounds=20), "prune", BUDGET, 4)
    Rounds(run, setup, 1.0, events=events.append).run_group(names, 0, _measure)
    return run


def _rounds_at(run: RunResult, c: int) -> list[int]:
    return sorted({lv.trial for lv in run.variant("a").levels if lv.concurrency == c and lv.ok})


def test_a_level_that_joins_or_is_measured_again_is_said_and_recorded() -> None:
    events: list[dict[str, Any]] = []
    run = _sweep(events)
    said = [change_words(e["change"]) for e in events if e["event"] == "level_changed" and e["change"].variant == "a"]
    ones = _rounds_at(run, 1)
    assert ones[:3] == [0, 1, 2] and len(ones) > 3 and ones[3] > 3, ones  # retired after round 3, measured again later
    assert _rounds_at(run, 2), "c=2 joined (next to the best within the budget)"
    assert any(w.startswith("a c=1 b=1: no longer measured: ") for w in said), said
    again = [w for w in said if w.startswith("a c=1 b=1: measured again: ")]
    assert again == ["a c=1 b=1: measured again: it is the variant's best level within the budget now"], said
    assert "a c=2 b=1: joins its ladder: next to its best level within the budget, concurrency 1" in said, said
    at = {(ch.concurrency, ch.change): ch.after_round for ch in run.search.level_changes if ch.variant == "a"}
    assert at[1, "measured again"] == at[2, "joined"] == 7, at  # the update that found c=4 over the budget said both
    # every line is recorded with the search's decisions, in order, each with its round
    recorded = [change_words(ch) for ch in run.search.level_changes if ch.variant == "a"]
    assert recorded == said
    assert all(ch.after_round is not None and ch.after_round >= 1 for ch in run.search.level_changes)
    kinds = {ch.change for ch in run.search.level_changes}
    assert {"retired", "joined", "measured again"} <= kinds
