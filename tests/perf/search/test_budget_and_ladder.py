"""The time budget (perf.search.budget) and the rounds ladder (perf.search.ladder) on hand-made rounds."""

from __future__ import annotations

import pytest

from core.errors import PerfError
from perf.analysis.ranking.operating import MIN_ROUNDS
from perf.records.levels import LevelResult
from perf.records.results import VariantResult
from perf.records.rounds import RoundRules
from perf.records.search import SearchDecision, SearchRules
from perf.search import after_round, budget, ladder
from perf.search.plan import plan_levels
from perf.search.policy import AUTO, Budget
from perf.search.policy import ladder as ladder_of

LADDER = ladder_of(AUTO, SearchRules())[0]  # 1, 2, 4 ... 64


@pytest.mark.parametrize(
    "text, seconds",
    [("10m", 600.0), ("90s", 90.0), ("1m30s", 90.0), ("1h", 3600.0), ("300", 300.0), ("2.5m", 150.0), ("none", None)],
)
def test_durations(text: str, seconds: float | None) -> None:
    assert budget.parse_duration(text) == seconds


def test_a_typed_number_without_a_unit_is_said_to_be_seconds(caplog: pytest.LogCaptureFixture) -> None:
    # the trial: --time-budget 3 ran as 3 s without a word
    with caplog.at_level("WARNING"):
        assert budget.parse_duration("3") == 3.0
    assert "time budget '3' has no unit: read as 3 s (write 3s, 3m or 3h)" in caplog.text
    caplog.clear()
    with caplog.at_level("WARNING"):
        assert budget.parse_duration("3m") == 180.0 and budget.parse_duration(120.0) == 120.0  # a saved budget
    assert not caplog.text


@pytest.mark.parametrize("text", ["10 minutes", "-5", "0", "5x", "m"])
def test_a_bad_duration_is_one_clear_error(text: str) -> None:
    with pytest.raises(PerfError) as e:
        budget.parse_duration(text)
    assert repr(text) in e.value.message and ("none" in (e.value.hint or ""))


def test_the_estimate_follows_the_window_settings_and_the_fit_cuts_levels_before_variants() -> None:
    names = [f"v{i}" for i in range(8)]
    rules = RoundRules(window_ms=300)
    assert budget.visit_s(300) == pytest.approx(3 * 0.3 + budget.VISIT_OVERHEAD_S)
    assert budget.visit_s(600) > budget.visit_s(300)
    free = budget.fit(names, LADDER, True, 1, rules, SearchRules(), None, True)
    assert free.rounds == MIN_ROUNDS + 1 and not free.cuts and free.cap is None and free.variants == names
    # a budget that the full ladder does not fit: the ladder's top comes down first, said
    tight = budget.fit(names, LADDER, True, 1, rules, SearchRules(), free.estimate_s * 0.9, True)
    assert tight.cap is not None and tight.cap < LADDER[-1] and tight.variants == names
    assert tight.estimate_s <= free.estimate_s * 0.9 and tight.cuts[0].kind == "levels"
    # its rounds said with the verdict's, as the variant cuts name those (trial 22: "7 rounds" beside "the 6 rounds a
    # verdict needs" in one line)
    assert f"would not leave time for {MIN_ROUNDS + 1} rounds (the {MIN_ROUNDS} a verdict needs and 1 to spare)" in (
        tight.cuts[0].reason
    )
    # a budget too small for the rounds a verdict needs: the least promising variants go, at least 2 stay
    tiny = budget.fit(names, LADDER, True, 1, rules, SearchRules(), 60.0, True)
    gone = [c.variant for c in tiny.cuts if c.kind == "variant"]
    assert gone == names[len(tiny.variants) :][::-1] and len(tiny.variants) >= 2
    assert all("rounds a verdict needs" in c.reason for c in tiny.cuts if c.kind == "variant")


def test_the_time_planned_in_is_named_as_the_time_left_with_one_number_per_fact() -> None:
    """A run's output said "within the budget of 119 s" beside "a 120 s budget": the plan is made in
    what is left after set-up, and says so."""
    from perf.sweep.rounds import of_budget

    names = [f"v{i}" for i in range(8)]
    tight = budget.fit(names, LADDER, True, 1, RoundRules(window_ms=300), SearchRules(), 119.4, True)
    assert tight.cuts and all("the 119 s left of the time budget" in c.reason for c in tight.cuts)
    assert not any("budget of" in c.reason for c in tight.cuts)
    assert of_budget(120.0, 119.4) == " of the 119 s left of a 120 s budget"
    assert of_budget(120.0, 119.7) == " of a 120 s budget"  # the same number: said once
    assert of_budget(None, None) == " (no time budget)"


def _vr(thr: dict[int, list[float]], p99: float = 1.0) -> VariantResult:
    """``thr``: concurrency -> throughput per round (round = index)."""
    lv = [
        LevelResult(c, 1, r, throughput_infer_per_s=t, latency_p99_ms=p99 * c) for c, ts in thr.items() for r, t in enumerate(ts)
    ]
    return VariantResult("v", status="ok", levels=lv)


def _update(
    lad: ladder.Ladder, vr: VariantResult, budget_ms: float | None = None, levels: tuple[int, ...] = LADDER
) -> ladder.Ladder:
    plan = plan_levels("v", 8, levels, [1])
    b = Budget(budget_ms, cores=None) if budget_ms else None
    return ladder.update(lad, plan, vr, levels, True, SearchRules(), RoundRules(), b, None)


def test_a_ladder_walks_coarse_levels_first_stops_on_two_flat_doublings_judged_on_three_rounds_then_refines() -> None:
    tall = ladder_of(AUTO, SearchRules(max_concurrency=256))[0]  # 1, 2, 4 ... 256
    plan = plan_levels("v", 8, tall, [1])
    lad = ladder.start(plan, tall, True, RoundRules(), None)
    assert lad.levels == [1, 4, 16]  # every other doubling: 1 to 16 in three visits
    assert ladder.coarse(LADDER, RoundRules(), 32) == [1, 4, 16, 32]  # a cap's top is always in
    lad = _update(lad, _vr({1: [100], 4: [350], 16: [600]}), levels=tall)
    assert lad.levels == [1, 4, 16, 64] and lad.end is None  # 4 -> 16 paid: the next coarse level
    flat = {1: [100] * 2, 4: [350] * 2, 16: [600] * 2, 64: [610] * 2}
    lad = _update(lad, _vr(flat), levels=tall)
    assert lad.levels[-1] == 64 and lad.end is None  # two flat doublings, but on 2 rounds: not yet
    flat3 = {c: v + v[:1] for c, v in flat.items()}
    lad = _update(lad, _vr(flat3), levels=tall)
    assert lad.end is not None and lad.end.rule == "knee" and "2 doublings from concurrency 16 to 64" in lad.end.reason
    assert not ladder.climbing(lad, plan, _vr(flat3), SearchRules())
    # the best level (64, by a hair over 16) has 3 rounds, on a plateau from 16 (flat on 3 rounds): only the
    # half below the plateau, 8, joins (32 lies on it); 1 retires
    assert lad.levels == [1, 4, 8, 16, 64] and 8 in lad.active and 1 not in lad.active
    assert ladder.exploring(lad, plan, _vr(flat3), RoundRules())  # 32 has no round yet
    # a 5 ms budget (p99 = c ms here): the best within it is 4; 2 and 8 join (8 is below c=16, the
    # lowest level over the budget, so it may be within), nothing at or above 16
    lad = ladder.Ladder([1, 4, 16], [1, 4, 16])
    lad = _update(lad, _vr({c: [100.0 * c] * 3 for c in (1, 4, 16)}), 5.0)
    assert lad.levels == [1, 2, 4, 8, 16] and lad.end is not None and lad.end.rule == "budget"


def test_the_budget_ends_a_ladder_on_its_median_over_three_rounds_and_an_explicit_list_never_climbs() -> None:
    plan = plan_levels("v", 8, LADDER, [1])
    lad = ladder.Ladder([1, 2, 4, 8], [1, 2, 4, 8])
    # p99 = c ms: c=8 is over a 5 ms budget; two rounds are not enough to end on it
    assert _update(lad, _vr({c: [100.0 * c] * 2 for c in (1, 2, 4, 8)}), 5.0).end is None
    lad = ladder.Ladder([1, 2, 4, 8], [1, 2, 4, 8])
    end = _update(lad, _vr({c: [100.0 * c] * 3 for c in (1, 2, 4, 8)}), 5.0).end
    assert end is not None and end.rule == "budget" and "median of 3 rounds" in end.reason
    fixed = ladder.start(plan, (1, 4), False, RoundRules(), None)
    assert fixed.levels == [1, 4] and not ladder.climbing(fixed, plan, _vr({1: [1.0]}), SearchRules())


def test_a_variant_whose_ladder_just_added_a_level_is_not_pruned_on_its_older_levels() -> None:
    """The trial's case: under a budget a variant was dropped on its c=1 while c=2 (its best's
    neighbour, just added) had no rounds yet and would have lifted it."""
    from perf.records.results import RunResult
    from perf.records.rounds import RoundsRecord
    from perf.records.search import SearchRecord
    from perf.search.rounds import Rounds, Setup

    a = VariantResult(
        "a", status="ok", levels=[LevelResult(1, 1, r, throughput_infer_per_s=1000.0 + r, latency_p99_ms=1.0) for r in range(6)]
    )
    b = VariantResult(
        "b", status="ok", levels=[LevelResult(1, 1, r, throughput_infer_per_s=600.0 + r, latency_p99_ms=1.0) for r in range(6)]
    )
    run = RunResult("r", "now", variants=[a, b])
    run.search, run.rounds = SearchRecord("prune", True), RoundsRecord(seed=1)
    plans = {n: plan_levels(n, 8, LADDER, [1]) for n in ("a", "b")}
    sched = Rounds(run, Setup(plans, LADDER, True, SearchRules(), RoundRules()), 1.0)
    end = SearchDecision(variant="b", rule="cap", concurrency=4, reason="")
    sched.ladders = {"a": {(1, None): ladder.Ladder([1], [1], end=end)}, "b": {(1, None): ladder.Ladder([1, 2], [1, 2], end=end)}}
    after_round.prune(sched, ["a", "b"])
    assert run.search.decision("b") is None  # c=2 has no round yet: it may lift b (up to 2x its c=1)
    sched.ladders["b"] = {(1, None): ladder.Ladder([1], [1], end=end)}
    after_round.prune(sched, ["a", "b"])
    assert run.search.decision("b").rule == "pruned"  # nothing left to lift it: a beats it on 6 rounds
    # more than 2x behind in every round: doubling its concurrency cannot lift it that far (Little's law)
    run.search.decisions = []
    for lv in b.levels:
        lv.throughput_infer_per_s = 400.0 + lv.trial
    sched.ladders["b"] = {(1, None): ladder.Ladder([1, 2], [1, 2], end=end)}
    after_round.prune(sched, ["a", "b"])
    assert run.search.decision("b").rule == "pruned"


def test_no_level_joins_below_a_best_at_the_top_of_the_ladder_while_the_step_into_it_still_pays() -> None:
    """bench_search's case: every variant rose from 4 to 16, the cap; refining 8 under a rising
    top cost three rounds per variant and blocked every prune until they were measured."""
    capped = (1, 2, 4, 8, 16)
    rising = _vr({1: [100.0] * 3, 4: [350.0] * 3, 16: [700.0] * 3})
    lad = _update(ladder.Ladder([1, 4, 16], [1, 4, 16]), rising, levels=capped)
    assert lad.end is not None and lad.end.rule == "cap" and lad.levels == [1, 4, 16]
    # the same top reached on a flat step (past the knee): the plateau reaches down to 4, and only whether
    # it reaches lower is open: the half below it joins (8 lies on the plateau)
    flat = _vr({1: [100.0] * 3, 4: [650.0] * 3, 16: [660.0] * 3})
    assert _update(ladder.Ladder([1, 4, 16], [1, 4, 16]), flat, levels=capped).levels == [1, 2, 4, 16]
    # the best past the plateau's top (16 ahead of 4 by 15 %): both neighbours of the best, as before
    peak = _vr({1: [100.0] * 3, 4: [600.0] * 3, 16: [690.0] * 3, 64: [680.0] * 3})
    assert _update(ladder.Ladder([1, 4, 16, 64], [1, 4, 16, 64]), peak).levels == [1, 4, 8, 16, 32, 64]
    # a best inside the ladder still gets both neighbours
    inside = _vr({1: [100.0] * 3, 4: [700.0] * 3, 16: [400.0] * 3})
    assert _update(ladder.Ladder([1, 4, 16], [1, 4, 16]), inside, levels=capped).levels == [1, 2, 4, 8, 16]


def test_a_settled_tie_is_said_as_a_set_not_leader_first() -> None:
    """The rounds' "ended" line named the engine's leader first while the report, which ranks
    every variant, named another member of the same tie set the pick."""
    from perf.records.results import RunResult
    from perf.records.rounds import RoundsRecord
    from perf.records.search import SearchRecord
    from perf.search.rounds import Rounds, Setup

    wobble = [1000.0, 990.0, 1010.0, 1005.0, 995.0, 1002.0]
    zb = VariantResult(
        "zb", status="ok", levels=[LevelResult(1, 1, r, throughput_infer_per_s=1003.0, latency_p99_ms=1.0) for r in range(6)]
    )
    aa = VariantResult(
        "aa",
        status="ok",
        levels=[LevelResult(1, 1, r, throughput_infer_per_s=t, latency_p99_ms=1.0) for r, t in enumerate(wobble)],
    )
    run = RunResult("r", "now", variants=[zb, aa])
    run.search, run.rounds = SearchRecord("prune", True), RoundsRecord(seed=1)
    plans = {n: plan_levels(n, 8, LADDER, [1]) for n in ("zb", "aa")}
    sched = Rounds(run, Setup(plans, LADDER, True, SearchRules(), RoundRules()), 1.0)
    end = SearchDecision(variant="x", rule="cap", concurrency=1, reason="")
    sched.ladders = {n: {(1, None): ladder.Ladder([1], [1], end=end)} for n in ("zb", "aa")}
    said = sched.decided(["zb", "aa"], 0)
    assert said == "ranking settled: the rule did not separate the tie set `aa`, `zb` in the 10 rounds a group gets at most"
    said = sched.decided(["zb", "aa"], 1)
    assert said == "ranking settled: the round left could not separate the tie set `aa`, `zb`, even all going one way"


def test_a_level_far_behind_its_best_in_every_round_stops_being_measured_once_the_rule_calls_it() -> None:
    """s22z, Z-16: a level 2x behind in one round retired at once, and report.md then could not call the rise it
    needed ("too few rounds for the rule to call it"): a far gap waits for the rule's rounds (3), never fewer."""
    plan = plan_levels("v", 8, LADDER, [1])
    one = ladder.Ladder([4, 16], [4, 16])
    one = ladder.update(one, plan, _vr({4: [300.0], 16: [700.0]}), LADDER, True, SearchRules(), RoundRules(), None, 16)
    assert one.active == [4, 16]  # 2.3x behind in its one round: the rule calls nothing on one round
    lad = ladder.Ladder([4, 16], [4, 16])
    far = _vr({4: [300.0, 310.0, 290.0], 16: [700.0, 720.0, 690.0]})
    lad = ladder.update(lad, plan, far, LADDER, True, SearchRules(), RoundRules(), None, 16)
    assert lad.end is not None and lad.end.rule == "cap" and lad.active == [16]  # 2.3x behind in each of 3 rounds
    close = ladder.Ladder([4, 16], [4, 16])
    close = ladder.update(close, plan, _vr({4: [400.0], 16: [700.0]}), LADDER, True, SearchRules(), RoundRules(), None, 16)
    assert close.active == [4, 16]  # 1.75x: within what a few rounds must judge
    mixed = ladder.Ladder([4, 16], [4, 16])
    mixed = ladder.update(
        mixed, plan, _vr({4: [300.0, 500.0], 16: [700.0, 700.0]}), LADDER, True, SearchRules(), RoundRules(), None, 16
    )
    assert mixed.active == [4, 16]  # not far behind in every round
    # with a 5 ms budget (p99 = c ms here) 8 and 16 are over it: the best within it is 4, far behind
    # 16 but not retired; 2 (ahead of 4 in one round) is not either; 1 is 4x behind 4 in each of 3 rounds and is
    lad = ladder.Ladder([1, 2, 4, 8, 16], [1, 2, 4, 8, 16])
    lad = _update(
        lad, _vr({1: [100.0, 102, 98], 2: [250.0, 420, 245], 4: [400.0, 410, 390], 8: [800.0] * 3, 16: [1600.0] * 3}), 5.0
    )
    assert 4 in lad.active and 2 in lad.active and 1 not in lad.active
