"""Each client workload has its own concurrency ladder (perf.search.ladder, rule "Per client workload").

With ``--shapes seq=8,seq=128`` the ladder grew, stopped (knee, budget) and refined on the search series
(seq=8) alone: a seq=8 knee at c=16 ended the ladder while seq=128's throughput still doubled with each
doubling of concurrency, so seq=128 was never measured above c=16 and its best measured level was
reported as its peak. Each workload's ladder now grows, stops and refines on its own numbers; the rounds
end when each workload's ranking is decided on its own ladders; a ladder the time budget cut is that
workload's cut, and the report says its peak was not reached.
"""

from __future__ import annotations

from typing import Any

from perf.analysis.saturation.peaks import unreached, unreached_mark
from perf.analysis.stats.points import aggregate
from perf.records.levels import LevelResult
from perf.records.provenance import stamp
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import Cut, RoundRules, RoundsRecord
from perf.records.search import SearchDecision, SearchRecord, SearchRules
from perf.records.workloads import split_by_workload
from perf.report.sections.search import search_lines
from perf.search import ladder
from perf.search.plan import LevelKey, plan_levels
from perf.search.policy import AUTO, Budget, Search
from perf.search.policy import ladder as ladder_of
from perf.search.rounds import Rounds, Setup

LADDER = ladder_of(AUTO, SearchRules())[0]
SMALL, LARGE = "seq=8", "seq=128"
EARLY, LATE = (1, SMALL), (1, LARGE)


def _true(shape: str, c: int) -> tuple[float, float]:
    """(infer/s, p99 ms): seq=8 saturates at c=4 (flat above: its knee), seq=128 still doubles up to c=64."""
    if shape == SMALL:
        return 100.0 * min(c, 4), 1.0 * c
    return 10.0 * c, 4.0 * c


def _measure(name: str, key: LevelKey) -> LevelResult:
    c, b, t, _, shape = key
    thr, p99 = _true(shape or SMALL, c)
    wobble = 1.0 + (0.01 if t % 2 else -0.01)
    return LevelResult(c, b, t, throughput_infer_per_s=thr * wobble, latency_p99_ms=p99, status="ok", shape=shape)


def _sweep(budget: Budget | None = None, deadline: float | None = None) -> tuple[Rounds, RunResult, list[dict[str, Any]]]:
    run = RunResult("r", "now", variants=[VariantResult("v", status="ok")])
    stamp(run)  # swept by today's code, as perf.sweep.run stamps a sweep: its saved words are today's
    run.search, run.rounds = SearchRecord("prune", True), RoundsRecord(seed=1)
    plans = {"v": plan_levels("v", 8, LADDER, [1], shapes=(SMALL, LARGE))}
    setup = Setup(plans, LADDER, True, SearchRules(), RoundRules(max_rounds=10), "prune", budget)
    now = [0.0]

    def measure(name: str, key: LevelKey) -> LevelResult:
        now[0] += 1.0  # one visit, one second
        return _measure(name, key)

    events: list[dict[str, Any]] = []
    sched = Rounds(run, setup, 1.0, clock=lambda: now[0], deadline=deadline, events=events.append)
    sched.run_group(["v"], 0, measure)
    return sched, run, events


def _measured(run: RunResult, shape: str) -> set[int]:
    return {lv.concurrency for lv in run.variants[0].levels if lv.shape == shape and lv.ok}


def test_a_knee_at_one_workload_does_not_stop_another_workloads_ladder() -> None:
    sched, run, events = _sweep()
    assert max(_measured(run, SMALL)) == 16  # seq=8: flat from c=4 to 16, its knee
    assert max(_measured(run, LARGE)) == 64  # seq=128 climbed on to the ladder's top (was: stopped at 16 too)
    knee, cap = sched.search.decision("v", EARLY), sched.search.decision("v", LATE)
    assert knee is not None and knee.rule == "knee" and knee.concurrency == 16 and knee.workload == EARLY
    assert cap is not None and cap.rule == "cap" and cap.concurrency == 64 and cap.workload == LATE
    assert knee.measured == sorted(_measured(run, SMALL))  # each stop's evidence is its own workload's
    said = [e for e in events if e["event"] == "search_decision" and e.get("decision") is not None]
    assert {(e["workload"], e["decision"].rule) for e in said} == {(SMALL, "knee"), (LARGE, "cap")}


def test_each_workloads_ladder_measures_only_its_own_levels() -> None:
    """seq=8's ladder has no level above its knee; seq=128's levels are not added to it."""
    sched, run, _ = _sweep()
    lanes = sched.ladders["v"]
    assert set(lanes) == {EARLY, LATE}
    assert max(lanes[EARLY].levels) == 16 and 64 not in _measured(run, SMALL)
    assert lanes[LATE].levels == [1, 4, 16, 64]  # no half below a top still rising
    assert not any(k[0] == 64 and k[4] == SMALL for _, k in sched.visits(["v"], 99))


def test_a_budget_stop_at_one_workload_does_not_stop_another() -> None:
    """25 ms: seq=128 goes over it at c=8 (p99 32 ms), seq=8 stays within it up to c=16: seq=8 still reaches its knee."""
    sched, run, _ = _sweep(budget=Budget(25.0, cores=None))
    over = sched.search.decision("v", LATE)
    assert over is not None and over.rule == "budget" and over.workload == LATE
    assert max(_measured(run, LARGE)) <= 16 and max(_measured(run, SMALL)) == 16
    knee = sched.search.decision("v", EARLY)
    assert knee is not None and knee.rule == "knee"


def _unreached(run: RunResult, series: str, c: int) -> str | None:
    view = split_by_workload(run)  # as the report reads the run: one series per workload
    sr = view.variant(series)
    assert sr is not None
    points = aggregate(sr.levels, sr.name)
    return unreached(view, points, next(p for p in points if p.concurrency == c))


def test_a_ladder_cut_for_time_is_that_workloads_own() -> None:
    """The budget ends the rounds after one: seq=8's ladder looked flat into its top, seq=128's still climbed."""
    _, run, _ = _sweep(deadline=8.0)
    assert run.rounds is not None and any(c.kind == "rounds" for c in run.rounds.cuts)
    ladder_cuts = {c.variant: c for c in run.rounds.cuts if c.kind == "ladder"}
    assert set(ladder_cuts) == {"v [seq=128]"}  # was: none, seq=8's flat step judged the one ladder
    cut = ladder_cuts["v [seq=128]"]
    assert (cut.concurrency, cut.reason) == (16, "its ladder stopped at concurrency 16 before its search ended it")
    why = _unreached(run, "v [seq=128]", 16)  # one round: the rise is not told, and no peak is claimed
    assert why is not None and unreached_mark(why) == "peak not told"
    assert why.startswith("whether it is the peak is not told: the time budget ended the rounds before its ladder did, at c=16")


def test_the_report_says_the_peak_of_a_workload_cut_for_time_was_not_reached() -> None:
    """seq=8's ladder ended at its knee, seq=128's was cut for time at c=16 after 6 rounds rising: seq=128's best
    measured level is not its peak, said as the time budget's cut (was: read as the variant's knee)."""
    levels = [_measure("v", (c, 1, t, None, sh)) for t in range(6) for sh in (SMALL, LARGE) for c in (1, 4, 16)]
    run = RunResult("r", "now", variants=[VariantResult("v", status="ok", levels=levels)])
    run.search, run.rounds = SearchRecord("prune", True), RoundsRecord(seed=1)
    run.search.record(SearchDecision("v", "knee", 16, "past the knee", [1, 4, 16], batch_size=1, shape=SMALL))
    run.rounds.cut(Cut("ladder", "its ladder stopped at concurrency 16 while still rising", "v [seq=128]", 16))
    why = _unreached(run, "v [seq=128]", 16)
    assert why is not None and unreached_mark(why) == "peak not reached"
    assert why.startswith("the time budget ended the rounds before its ladder did, at c=16, with throughput still rising")
    assert _unreached(run, "v [seq=8]", 16) is None  # its knee: a measured peak


def test_the_reports_search_section_says_each_workloads_stop() -> None:
    _, run, _ = _sweep()
    text = "\n".join(search_lines(split_by_workload(run), None))
    rows = [" ".join(line.split()) for line in text.splitlines()]
    assert "| `v [seq=8]` | 1, 2, 4, 8, 16 | past the knee |" in rows  # was: "every asked level" (no decision found)
    assert "| `v [seq=128]` | 1, 4, 16, 64 | top of the ladder |" in rows
    assert "- `v [seq=8]`: its ladder went no higher than concurrency 16 because its throughput gained no more" in text


END = SearchDecision(variant="x", rule="cap", concurrency=1, reason="")
BUDGET = Budget(20.0, cores=None)


def _level(r: int, thr: float, p99: float, busy: bool, shape: str) -> LevelResult:
    return LevelResult(
        1, 1, r, throughput_infer_per_s=thr, latency_p99_ms=p99, host_busy_pct=80.0 if busy else 1.0, host_busy=busy, shape=shape
    )


def test_the_ending_rule_asks_whether_a_rival_can_be_verified_at_its_own_workload() -> None:
    """perf.search.ending.decided: a rival over the budget on host-busy rounds at seq=8 only, whose seq=8 ladder has
    no level left to measure, cannot be verified by more rounds, though its seq=128 ladder has levels left (was:
    "any active level" of the variant kept the ranking open)."""
    pick = [_level(r, 1000.0, 10.0, True, sh) for r in range(3) for sh in (SMALL, LARGE)]
    rival = [_level(r, t, 24.0, sh == SMALL, sh) for r, t in enumerate((1010.0, 990.0, 1005.0)) for sh in (SMALL, LARGE)]
    run = RunResult("r", "now", variants=[VariantResult("pick", levels=pick), VariantResult("rival", levels=rival)])
    run.search, run.rounds = SearchRecord("prune", True), RoundsRecord(seed=1)
    plans = {n: plan_levels(n, 8, LADDER, [1], shapes=(SMALL, LARGE)) for n in ("pick", "rival")}
    sched = Rounds(run, Setup(plans, LADDER, True, SearchRules(), RoundRules(), budget=BUDGET), 1.0)
    sched.ladders = {n: {w: ladder.Ladder([1], [1], end=END) for w in (EARLY, LATE)} for n in ("pick", "rival")}
    assert sched.decided(["pick", "rival"], 4) is None  # seq=8: more rounds may verify the rival there
    sched.ladders["rival"][EARLY].active = []  # its seq=8 level retired: no round can verify it there
    said = sched.decided(["pick", "rival"], 4)
    assert said is not None and f"at {SMALL}: " in said and "assuming `rival [seq=8]`'s p99 over the budget" in said


def test_the_sequential_design_climbs_each_workloads_ladder_on_its_own() -> None:
    """``--design sequential``: seq=8 is flat from c=4 to 8 (its knee), seq=128 climbs on to the ladder's top (was:
    both stopped at seq=8's knee, seq=128 measured up to c=8 only)."""
    plans = {"v": plan_levels("v", 8, LADDER, [1], shapes=(SMALL, LARGE))}
    search = Search(plans, SearchRecord("brute", True, SearchRules()), LADDER)
    vr = VariantResult("v", status="pending")
    run, tried = RunResult("r", "now", variants=[vr]), set[LevelKey]()
    while keys := search.next_keys(vr, run, tried):
        for k in keys:
            vr.levels.append(_measure("v", k))
            tried.add(k)
    assert max(_measured(run, SMALL)) == 8 and max(_measured(run, LARGE)) == 64
    knee, cap = search.record.decision("v", EARLY), search.record.decision("v", LATE)
    assert knee is not None and (knee.rule, knee.concurrency, knee.measured) == ("knee", 8, [1, 2, 4, 8])
    assert cap is not None and (cap.rule, cap.concurrency) == ("cap", 64)
