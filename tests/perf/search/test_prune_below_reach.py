"""A variant is not dropped, nor narrowed to one level, on a level below where its own ladder still has levels to
measure that could lift it as far as the leader is ahead (trial 22, F-prune-c1: on a resume
``kws_onnx_cpu1_db500_mbs64``'s ladder had ended at the time budget's cap, concurrency 4, before its c=4 had a
round; it was measured at c=1 only ("far behind": only the level it is compared at), c=2 joined, and it was
dropped at once, "`kws_onnx_cpu2_nodb_mbs64` at concurrency 4 vs ... at concurrency 1: throughput ratio 4.24×";
its c=4 did 1.6× behind the pick in an earlier run). In a closed loop concurrency N at most lifts throughput
N / n times from level n (Little's law: :mod:`perf.search.focus`): a level its ladder has not measured yet, 4×
the concurrency, can lift it 4×; only a gap beyond that, in every shared round, drops or narrows it."""

from __future__ import annotations

import dataclasses
from typing import Any

from perf.analysis.ranking.rank import rank_variants
from perf.analysis.stats.points import aggregate
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundRecord, RoundRules, RoundsRecord
from perf.records.search import SearchDecision, SearchRecord, SearchRules
from perf.search import after_round, ladder
from perf.search.focus import focus, reach
from perf.search.plan import plan_levels
from perf.search.policy import AUTO, best_point, next_step
from perf.search.policy import ladder as ladder_of
from perf.search.rounds import Rounds, Setup

LADDER = ladder_of(AUTO, SearchRules())[0]
CAP = SearchDecision(
    variant="x", rule="cap", concurrency=4, reason="concurrency 4 is the top of the ladder the time budget allows"
)


def _vr(name: str, by_c: dict[int, list[float]]) -> VariantResult:
    levels = [
        LevelResult(c, 1, r, throughput_infer_per_s=t, latency_p99_ms=1.0, status="ok")
        for c, ts in by_c.items()
        for r, t in enumerate(ts)
    ]
    return VariantResult(name, status="ok", levels=levels)


def _trial22() -> tuple[VariantResult, VariantResult, dict[str, ladder.Ladder]]:
    """The pick measured at 1 and 4 over 3 rounds; the other at 1 only (its ladder ended at the cap, 4, not
    measured yet, and 2 just joined next to its best), 3.0-4.3x behind in every round."""
    pick = _vr("pick", {1: [500.0, 520.0, 510.0], 4: [1310.0, 1700.0, 1660.0]})
    slow = _vr("slow", {1: [393.0, 400.0, 390.0]})
    lads = {
        "pick": ladder.Ladder([1, 4], [1, 4], end=CAP),
        "slow": ladder.Ladder([1, 2, 4], [1, 2, 4], end=CAP, joined_why={2: "next to its best level, concurrency 1"}),
    }
    return pick, slow, lads


def _engine(variants: list[VariantResult], lads: dict[str, ladder.Ladder]) -> tuple[RunResult, Rounds, list[dict[str, Any]]]:
    run = RunResult("r", "now", variants=variants)
    run.search, run.rounds = SearchRecord("prune", True), RoundsRecord(seed=1)
    plans = {v.name: plan_levels(v.name, 8, LADDER, [1]) for v in variants}
    events: list[dict[str, Any]] = []
    setup = Setup(plans, LADDER, True, SearchRules(), RoundRules(), "prune", None)
    sched = Rounds(run, setup, 1.0, events=events.append)
    sched.ladders = {n: {(1, None): lad} for n, lad in lads.items()}
    return run, sched, events


def test_a_variant_is_not_dropped_on_its_lowest_level_while_a_level_4x_above_is_unmeasured() -> None:
    pick, slow, lads = _trial22()
    comp = rank_variants([pick, slow], cores=None).comparisons[0]
    assert (comp.a.concurrency, comp.b.concurrency, comp.verdict) == (4, 1, "a")  # the rule calls it, 3.3x+ each round
    run, sched, _ = _engine([pick, slow], lads)
    after_round.prune(sched, ["pick", "slow"])
    assert run.search.decision("slow") is None  # its c=4 may lift it up to 4x: not beaten yet
    assert sched.contenders(["pick", "slow"]) == ["pick", "slow"]


def test_a_gap_beyond_what_its_unmeasured_levels_could_lift_still_drops_it() -> None:
    pick, _, lads = _trial22()
    slow = _vr("slow", {1: [150.0, 160.0, 155.0]})  # over 8x behind: even its c=4, 4x the load, cannot close it
    run, sched, _ = _engine([pick, slow], lads)
    after_round.prune(sched, ["pick", "slow"])
    d = run.search.decision("slow")
    assert d is not None and d.rule == "pruned" and d.best_variant == "pick"


def test_focus_keeps_measuring_the_levels_that_could_lift_a_far_behind_variant() -> None:
    pick, _, lads = _trial22()
    pick = _vr("pick", {1: [500.0, 520.0], 4: [1310.0, 1700.0]})  # 2 rounds: the rule has not called it yet
    slow = _vr("slow", {1: [393.0, 400.0]})  # 3.3-4.3x behind
    plans = {v.name: plan_levels(v.name, 8, LADDER, [1]) for v in (pick, slow)}
    rank = rank_variants([pick, slow], cores=None)
    assert rank.comparisons[0].verdict != "a"
    got = focus(rank, lads, plans, {"pick": pick, "slow": slow}, SearchRules(), RoundRules(), 5)
    assert "slow" not in got  # its c=2 and c=4 are measured next round, not its c=1 only
    assert reach(lads["slow"], plans["slow"], slow, RoundRules(), 1) == 4.0
    failed = SearchDecision(variant="slow", rule="failed", concurrency=4, reason="")  # not measured again this session
    assert reach(ladder.Ladder([1, 4], [1, 4], end=failed), plans["slow"], slow, RoundRules(), 1) == 1.0
    far = _vr("slow", {1: [150.0, 160.0]})  # over 8x behind at c=1: its c=4 cannot close it, c=1 only
    assert focus(rank_variants([pick, far], cores=None), lads, plans, {"pick": pick, "slow": far}, SearchRules(), RoundRules(), 5) == {"slow": [1]}  # fmt: skip
    # once c=4 has its rounds, nothing unmeasured is above it
    slow.levels += _vr("slow", {4: [820.0, 830.0, 829.0]}).levels
    assert reach(lads["slow"], plans["slow"], slow, RoundRules(), 4) == 1.0


def test_a_resumed_round_ends_the_ladder_at_the_cap_and_measures_its_top_before_any_drop() -> None:
    """The trial's sequence through the engine's own update after a round (:func:`perf.search.after_round.step`): a resume whose
    ladder is capped at 4 by the time budget, the variant measured at c=1 only so far."""
    pick = _vr("pick", {1: [500.0, 520.0, 510.0], 4: [1310.0, 1700.0, 1660.0]})
    slow = _vr("slow", {1: [393.0, 400.0, 390.0]})
    run, sched, events = _engine([pick, slow], {})
    plans = sched.setup.plans
    sched.ladders = {v.name: ladder.lanes(plans[v.name], v, LADDER, True, RoundRules(), 4) for v in (pick, slow)}
    sched.setup = dataclasses.replace(sched.setup, cap=4)
    group = ["pick", "slow"]
    after_round.step(sched, group, RoundRecord(3, 0, 1, "now"), 5, group)
    lad = sched.ladders["slow"][(1, None)]
    assert lad.end is not None and lad.end.rule == "cap"  # "its ladder stops at concurrency 4 for now"
    assert [c.concurrency for c in run.search.level_changes if c.variant == "slow"] == [2]  # "c=2 b=1: joins its ladder"
    d = run.search.decision("slow")
    assert d is not None and d.rule == "cap", d  # not "pruned": not beaten on its c=1
    assert sched.contenders(group) == group
    assert 4 in lad.active  # measured next round, at the pick's level


def test_the_sequential_design_does_not_drop_a_variant_measured_only_below_the_best_level_so_far() -> None:
    """The sequential design compares a variant first at the probe level, the best's concurrency; a resumed run's
    variant measured only at an earlier, lower probe (c=2) was dropped on it against the best's c=8 while its
    ladder still went up to the probe level."""
    lead = aggregate([LevelResult(c, 1, 0, throughput_infer_per_s=t, latency_p99_ms=1.0, status="ok") for c, t in ((2, 500.0), (8, 1300.0))], "lead")  # fmt: skip
    top = best_point({"lead": lead}, None, 10.0)
    assert top is not None and top.concurrency == 8
    low = aggregate([LevelResult(2, 1, 0, throughput_infer_per_s=390.0, latency_p99_ms=1.0, status="ok")], "v")
    assert next_step("v", low, LADDER, True, SearchRules(), best=top) == 4  # measured on, not pruned at c=2
    at_probe = aggregate([LevelResult(8, 1, 0, throughput_infer_per_s=390.0, latency_p99_ms=1.0, status="ok")], "v")
    d = next_step("v", at_probe, LADDER, True, SearchRules(), best=top)
    assert isinstance(d, SearchDecision) and d.rule == "pruned"  # at the best's own level: dropped as before
