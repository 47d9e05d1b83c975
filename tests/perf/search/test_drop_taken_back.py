"""A drop whose beating level has left the latency budget is taken back (perf.search.drops), in the
engine after a round and in the ranking the report shows (trial 8: `make demo` recommended and bundled
`mlp_ts_cpu1_nodb_mbs64`, which the search had dropped on the word of `mlp_onnx_cpu2_db500_mbs64` at
c=2, whose p99 had gone from 24.4 to 25.03 ms over a 25 ms budget since; three other variants were
listed as beaten by that level)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from perf.analysis.ranking.rank import dropped_by_search, rank_variants
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundRecord, RoundRules, RoundsRecord
from perf.records.search import SearchDecision, SearchRecord, SearchRules
from perf.report.sections.ranking import OTHER_SIDE, comparison_lines
from perf.search import after_round, drops, ladder
from perf.search.events import log_event
from perf.search.plan import plan_levels
from perf.search.policy import AUTO, Budget
from perf.search.policy import ladder as ladder_of
from perf.search.rounds import Rounds, Setup

LADDER = ladder_of(AUTO, SearchRules())[0]
BUDGET = 25.0


def _levels(c: int, rows: list[tuple[float, float]], start: int = 0, batch: int = 1) -> list[LevelResult]:
    """One level's rounds ``start``...: (throughput infer/s, p99 ms) each, at client batch size ``batch``."""
    return [
        LevelResult(c, batch, start + r, throughput_infer_per_s=t, latency_p99_ms=p, status="ok") for r, (t, p) in enumerate(rows)
    ]


def _engine(variants: list[VariantResult], rules: RoundRules | None = None) -> tuple[RunResult, Rounds, list[dict[str, Any]]]:
    """A pruning run of ``variants`` under the p99 :data:`BUDGET`, its rounds engine (one ladder level,
    concurrency 1, each) and the events the engine says."""
    run = RunResult("r", "now", variants=variants)
    run.search, run.rounds = SearchRecord("prune", True), RoundsRecord(seed=1)
    names = [v.name for v in variants]
    plans = {n: plan_levels(n, 8, LADDER, [1]) for n in names}
    events: list[dict[str, Any]] = []
    setup = Setup(plans, LADDER, True, SearchRules(), rules or RoundRules(), "prune", Budget(BUDGET, cores=None))
    sched = Rounds(run, setup, 1.0, events=events.append)
    end = SearchDecision(variant="x", rule="cap", concurrency=1, reason="")
    sched.ladders = {n: {(1, None): ladder.Ladder([1], [1], end=end)} for n in names}
    return run, sched, events


def _pruned(lead: VariantResult, slow: VariantResult) -> tuple[RunResult, Rounds, list[dict[str, Any]]]:
    """:func:`_engine` of ``lead`` and ``slow`` after its prune, which drops ``slow`` on ``lead``'s word."""
    run, sched, events = _engine([lead, slow])
    after_round.prune(sched, ["lead", "slow"])
    d = run.search.decision("slow")
    assert d is not None and d.rule == "pruned" and d.best_variant == "lead"
    return run, sched, events


def test_the_engine_takes_a_drop_back_once_the_level_that_beat_it_is_over_the_budget() -> None:
    lead = VariantResult("lead", status="ok", levels=_levels(1, [(1000.0 + r, 24.0) for r in range(6)]))
    slow = VariantResult("slow", status="ok", levels=_levels(1, [(600.0 + r, 10.0) for r in range(6)]))
    run, sched, events = _pruned(lead, slow)
    assert run.search.decision("slow").best_concurrency == 1
    group = ["lead", "slow"]  # run_group gives the contenders (not the dropped) and the whole group
    after_round.step(sched, sched.contenders(group), RoundRecord(5, 0, 1, "now"), 4, group)  # still within: the drop stands
    assert run.search.decision("slow") is not None and sched.contenders(["lead", "slow"]) == ["lead"]
    # the next rounds take the leader's p99 over the budget (its median of 13 rounds now 31 ms)
    lead.levels += _levels(1, [(1000.0, 31.0)] * 7, start=6)
    after_round.step(sched, sched.contenders(group), RoundRecord(12, 0, 1, "now"), 2, group)
    assert run.search.decision("slow") is None or run.search.decision("slow").best_variant != "lead"
    assert "slow" in sched.contenders(["lead", "slow"])
    (said,) = [e for e in events if e.get("reopened")]
    assert said["variant"] == "slow" and said["why"].startswith(
        "`lead` at concurrency 1, the level that beat it, is over the p99 budget of 25.00 ms now: p99 31.00 ms (median of 13 rounds)"
    )


def test_a_real_group_of_rounds_takes_a_stale_drop_back_and_keeps_only_a_valid_one() -> None:
    """The reviewer's case: run_group gives after_round.step only the contenders, so a dropped variant was
    never judged for taking back. `mid` at c=2 drops `slow`; from round 6 its p99 is 40 ms, over the
    25 ms budget: the drop is taken back, and `slow` is dropped again only on `lead`'s comparison
    (its level within the budget), in the same step, since `lead` beats it on the rounds they shared."""
    names = ["lead", "slow", "mid"]
    run, sched, events = _engine([VariantResult(n, status="ok") for n in names], RoundRules(max_rounds=20))

    def measure(name: str, key: Any) -> LevelResult:
        c, _, t, _, _ = key
        wobble = -30.0 if t % 2 else 30.0
        thr, p99 = {"lead": (1000.0 + t + wobble, 24.0), "mid": (1000.0 + t - wobble, 24.0 if t < 6 else 40.0)}.get(
            name, (600.0 + t, 10.0)
        )
        return LevelResult(c, 1, t, throughput_infer_per_s=thr, latency_p99_ms=p99, status="ok")

    sched.run_group(names, 0, measure)
    back = [e for e in events if e.get("reopened") and e.get("why")]
    # `mid`'s levels measure alike (its numbers do not depend on concurrency): which one beat `slow` is the leader
    # rule's choice among equals (c=4 since fc0e357 sorts candidates itself), the drop taken back is the point
    assert (
        back
        and back[0]["variant"] == "slow"
        and re.match(r"`mid` at concurrency \d+, the level that beat it, is over", back[0]["why"])
    )
    d = run.search.decision("slow")
    assert d is not None and d.rule == "pruned" and d.best_variant == "lead"  # dropped again, by a level within the budget


def test_a_drop_judged_while_ranking_by_peak_is_taken_back_once_a_level_is_within_the_budget(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # the drop compared two levels over the budget (no level within it then); now `slow` has one
    lead = VariantResult("lead", status="ok", levels=_levels(1, [(1000.0, 40.0)] * 6))
    slow = VariantResult("slow", status="ok", levels=_levels(1, [(600.0, 20.0)] * 6))
    d = SearchDecision("slow", "pruned", 1, "", [1], best_variant="lead", best_concurrency=1)
    search = SearchRecord("prune", True, decisions=[d])
    events: list[dict[str, Any]] = []
    back = drops.take_back(search, {"lead": lead, "slow": slow}, Budget(BUDGET, cores=None), events.append)
    assert back == ["slow"] and search.decisions == [] and events[0]["why"].endswith("p99 40.00 ms (median of 6 rounds)")
    search.decisions = [d]  # without a listener it is logged, once (perf.search.events)
    with caplog.at_level("INFO"):
        drops.take_back(search, {"lead": lead, "slow": slow}, Budget(BUDGET, cores=None), log_event)
    assert [r.getMessage() for r in caplog.records if "no longer dropped" in r.getMessage()] == [
        f"slow: measured again, no longer dropped: {events[0]['why']}"
    ]
    # a drop whose beater is within the budget, or of a variant outside the group, is left alone
    lead.levels = _levels(1, [(1000.0, 20.0)] * 6)
    search.decisions = [d, SearchDecision("gone", "pruned", 1, "", [1], best_variant="lead", best_concurrency=1)]
    assert drops.take_back(search, {"lead": lead, "slow": slow}, Budget(BUDGET, cores=None), events.append) == []
    assert len(search.decisions) == 2


def _run_with_stale_drop() -> RunResult:
    """`beater` at c=2 dropped `dropped` (1.6x in every round) and `third`; its p99 then went over the budget."""
    beater = VariantResult(
        "beater",
        status="ok",
        levels=_levels(1, [(110.0, 17.0)] * 8) + _levels(2, [(170.0, 24.0)] * 4 + [(175.0, 32.0)] * 5),
    )
    dropped = VariantResult("dropped", status="ok", levels=_levels(1, [(106.0 + r, 22.0) for r in range(8)]))
    third = VariantResult("third", status="ok", levels=_levels(1, [(100.0, 12.0)] * 4, start=4))
    run = RunResult("r", "now", variants=[beater, dropped, third])
    run.search = SearchRecord("prune", True)
    for name, at in (("dropped", 1), ("third", 1)):
        run.search.record(SearchDecision(name, "pruned", at, "", [1], best_variant="beater", best_concurrency=2))
    return run


def test_the_ranking_does_not_keep_a_drop_whose_beating_level_is_over_the_budget_now() -> None:
    run = _run_with_stale_drop()
    under = rank_variants(run.variants, BUDGET, "latency_p99_ms", dropped_by_search(run.search.decisions), cores=None)
    by_b = {c.b.variant: c for c in under.comparisons}
    # no comparison stands in for the pick's: each row is the pick against the runner-up
    assert all(c.a == under.leader.side for c in under.comparisons), under.comparisons
    assert set(by_b) | {under.leader.side.variant} == {"beater", "dropped", "third"}
    # with the beater's c=2 within the budget the drop stands, as before
    for lv in run.variant("beater").levels:
        lv.latency_p99_ms = min(lv.latency_p99_ms or 0.0, 24.0)
    under = rank_variants(run.variants, BUDGET, "latency_p99_ms", dropped_by_search(run.search.decisions), cores=None)
    kept = [c for c in under.comparisons if c.a.variant == "beater" and c.a.concurrency == 2]
    assert kept and all(c.verdict == "a" for c in kept)
    # a pick that is not the beater (measured only after the drops): the report's row of a drop that
    # holds says its numbers are that comparison's, not the pick's (trial 8, F6)
    run.variants.append(VariantResult("top", status="ok", levels=_levels(1, [(260.0, 20.0)] * 3, start=8)))
    under = rank_variants(run.variants, BUDGET, "latency_p99_ms", dropped_by_search(run.search.decisions), cores=None)
    assert under.leader.side.variant == "top"
    lines = comparison_lines(under, "Best under the p99 budget", 99, BUDGET, ["dropped", "third"], run)
    rows = [ln for ln in lines if ln.startswith("| `") and "(the search dropped it)" in ln]
    assert rows and all(f"{OTHER_SIDE} |" in r for r in rows), lines
    (note,) = [ln for ln in lines if ln.startswith(f"- {OTHER_SIDE}:")]
    assert f"not of the pick at c={under.leader.side.concurrency}" in note


def test_a_runner_up_ranked_below_a_level_with_too_few_rounds_says_that_level() -> None:
    """Trial 8 (F18): "the pick beats it" at c=1, 4.1x, beside the runner-up's 304.5 infer/s at c=4
    (2 rounds), 2.3x the pick's: the row names the higher level the ranking could not compare."""
    lead = VariantResult("lead", status="ok", levels=_levels(4, [(700.0, 9.0)] * 6))
    other = VariantResult("other", status="ok", levels=_levels(1, [(170.0, 5.0)] * 6) + _levels(4, [(304.5, 9.0)] * 2, start=4))
    run = RunResult("r", "now", variants=[lead, other])
    peak = rank_variants(run.variants, None, "latency_p99_ms", cores=None)
    (c,) = peak.comparisons
    assert (c.b.concurrency, c.verdict) == (1, "a")
    (row,) = [ln for ln in comparison_lines(peak, "Best measured throughput", 99, None, (), run) if ln.startswith("| `other`")]
    assert "the pick beats it; its c=4, 304.5 infer/s over 2 rounds, too few to compare" in row, row
    # under a budget its c=4 is over: nothing to add
    under = rank_variants(run.variants, 6.0, "latency_p99_ms", cores=None)
    assert not any("too few to compare" in ln for ln in comparison_lines(under, "Best under", 99, 6.0, (), run))


def test_the_resume_floor_is_never_cut_through_when_it_is_not_a_ladder_level() -> None:
    """The reviewer's case: ladder 1..32, a run with numbers at c=12 (floor 12): the top was lowered to 8."""
    from perf.search.shrink import shrink

    def cost(n: int, lv: Any, rounds: int) -> float:
        return float(n * len(lv) * rounds)

    out = shrink(["a", "b"], [1, 2, 4, 8, 16, 32], cost, 0.0, 7, 3, True, floor=12)
    assert out.levels == [1, 2, 4, 8, 16]  # 16 covers the 12 measured before
    assert shrink(["a", "b"], [1, 2, 4, 8, 16, 32], cost, 0.0, 7, 3, True, floor=16).levels == [1, 2, 4, 8, 16]
    assert shrink(["a", "b"], [1, 2, 4, 8, 16, 32], cost, 0.0, 7, 3, True).levels == [1, 2, 4]


def test_a_drop_at_several_client_workloads_is_taken_back_when_any_beating_level_leaves_the_budget() -> None:
    """Review of trial 10's F8 fix: a drop at several client workloads (``--batch-sizes 1,8``) stands on
    the leader's level at each one, but the take-back judged the leader's first level at the drop's
    concurrency whatever its batch size: the b=8 level that beat it went over the budget, the b=1
    level at the same concurrency stayed within it, and the drop stood."""
    lead = VariantResult(
        "lead",
        status="ok",
        levels=_levels(1, [(1000.0 + r, 10.0) for r in range(6)]) + _levels(1, [(4000.0 + r, 20.0) for r in range(6)], batch=8),
    )
    slow = VariantResult(
        "slow",
        status="ok",
        levels=_levels(1, [(600.0 + r, 10.0) for r in range(6)]) + _levels(1, [(2000.0 + r, 20.0) for r in range(6)], batch=8),
    )
    run, _, events = _pruned(lead, slow)
    d = run.search.decision("slow")
    assert d is not None and [(b.concurrency, b.batch_size) for b in d.beaten_at] == [(1, 1), (1, 8)]
    assert (
        drops.take_back(run.search, {"lead": lead, "slow": slow}, Budget(BUDGET, cores=None), events.append) == []
    )  # both within
    for lv in lead.levels:
        if lv.batch_size == 8:
            lv.latency_p99_ms = 31.0
    assert drops.take_back(run.search, {"lead": lead, "slow": slow}, Budget(BUDGET, cores=None), events.append) == ["slow"]
    (said,) = [e for e in events if e.get("reopened")]
    assert said["why"].startswith("`lead` at concurrency 1 (batch 8), the level that beat it, is over the p99 budget")


def test_a_whole_variants_ranking_is_refused_at_several_client_workloads() -> None:
    """Rounds.ranked ranks whole variants, right for a run of one client workload only; each caller
    checked Rounds.workloads first, nothing enforced it: levels at b=1 and b=8 were ranked together."""
    lead = VariantResult("lead", status="ok", levels=_levels(1, [(1000.0, 10.0)] * 3) + _levels(1, [(4000.0, 20.0)] * 3, batch=8))
    slow = VariantResult("slow", status="ok", levels=_levels(1, [(600.0, 10.0)] * 3) + _levels(1, [(2000.0, 20.0)] * 3, batch=8))
    _, sched, _ = _engine([lead, slow])
    with pytest.raises(ValueError, match="several client workloads"):
        sched.ranked(["lead", "slow"])
    per = sched.workloads(["lead", "slow"])
    assert per is not None and len(per) == 2 and all(sched.rank_series(group)[0].leader is not None for group in per.values())
    _, one, _ = _engine([VariantResult(v.name, status="ok", levels=v.levels[:3]) for v in (lead, slow)])
    assert one.ranked(["lead", "slow"])[0].leader is not None  # one workload: ranked as before
