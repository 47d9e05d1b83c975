"""What a group's rounds are, counted one way everywhere (perf.records.rounds.RoundsRecord.group_rounds):
a round with no visit is no round, another group's rounds are not this group's, and a resumed group's
earlier rounds count towards max_rounds whether or not every contender was measured in them (a settled
tie member rests: perf.search.focus). Reviewer, session 6: "measured in 10 rounds (36 visits)" of a
run whose last 7 rounds held no visit; "3 rounds in which all of them were measured, of 10" of a final
group whose 7 other rounds were other groups'."""

from __future__ import annotations

from simulated_host import TRUE, VISIT_S, SimHost, rounds_run

from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import LoadGroup, RoundRecord, RoundRules, RoundsRecord, Visit
from perf.records.search import SearchRecord, SearchRules
from perf.search.plan import LevelKey, plan_levels
from perf.search.rounds import Rounds, Setup


def _round(index: int, group: int, *names: str) -> RoundRecord:
    return RoundRecord(index, group, index, "now", 1.0, [Visit(n, 4) for n in names])


def test_a_groups_rounds_are_its_own_and_its_earlier_sessions_each_with_a_visit() -> None:
    groups = [
        LoadGroup(0, ["a", "b", "c"], "fits"),
        LoadGroup(1, ["d", "e"], "memory"),
        LoadGroup(2, ["a", "d"], "the final"),
        LoadGroup(3, ["a", "b"], "a resumed session, `c` pruned before"),
    ]
    rounds = [_round(0, 0, "a", "b", "c"), _round(1, 1, "d", "e"), _round(2, 0, "a"), _round(3, 2, "a", "d")]
    rounds += [RoundRecord(4, 2, 4, "now")]  # interrupted before its first visit: no round
    rounds += [_round(5, 2, "a"), _round(6, 3, "b")]  # a rested member: still the group's round
    rec = RoundsRecord(seed=0, groups=groups, rounds=rounds)
    assert [r.index for r in rec.measured()] == [0, 1, 2, 3, 5, 6]
    assert [r.index for r in rec.group_rounds(2)] == [3, 5]  # not group 0's rounds that measured `a`
    assert [r.index for r in rec.group_rounds(3)] == [0, 2, 6]  # group 0 held every variant it holds
    assert [r.index for r in rec.group_rounds(1)] == [1]


def _vr(name: str, thr: dict[int, float]) -> VariantResult:
    levels = [LevelResult(1, 1, r, throughput_infer_per_s=t, latency_p99_ms=1.0) for r, t in thr.items()]
    return VariantResult(name, status="ok", levels=levels)


def test_a_resumed_group_counts_its_rounds_with_a_resting_member_towards_max_rounds() -> None:
    """`b` rested in rounds 7-9 (a settled tie member): those are rounds of the group all the same,
    so the resumed group has had its 10 and measures no 11th."""
    a = _vr("a", {r: 1020.0 for r in range(10)})
    b = _vr("b", {r: 1000.0 if r else 1030.0 for r in range(7)})  # behind in 6 of 7 shared rounds: 3 more could call it
    run = RunResult("r", "now", variants=[a, b])
    run.search = SearchRecord("brute", False)
    rules = RoundRules(max_rounds=10)
    rounds = [_round(r, 0, "a", "b") for r in range(7)] + [_round(r, 0, "a") for r in range(7, 10)]
    groups = [LoadGroup(0, ["a", "b"], "fits"), LoadGroup(1, ["a", "b"], "fits")]
    run.rounds = RoundsRecord(seed=0, rules=rules, groups=groups, rounds=rounds)
    plans = {n: plan_levels(n, 8, (1,), [1]) for n in ("a", "b")}
    sched = Rounds(run, Setup(plans, (1,), False, SearchRules(), rules, "brute"), 1.0)

    def measure(name: str, key: LevelKey) -> LevelResult:
        return LevelResult(key[0], 1, key[2], throughput_infer_per_s=1020.0 if name == "a" else 1000.0, latency_p99_ms=1.0)

    sched.run_group(["a", "b"], 1, measure)
    assert len(run.rounds.rounds) == 10  # no 11th round
    assert run.rounds.ended is not None and run.rounds.ended.endswith("(after 10 rounds)")
    assert "in which all of them were measured" not in run.rounds.ended


def _groups_run(seed: int) -> tuple[RunResult, Rounds]:
    """Two groups of the simulated host's variants, then the final of their tie sets, in one engine."""
    host = SimHost(seed)
    plans = {n: plan_levels(n, 8, (1, 4), [1]) for n in TRUE}
    run = RunResult("sim", "now", variants=[VariantResult(n) for n in TRUE])
    run.search, run.rounds = SearchRecord("brute", False), RoundsRecord(seed=seed)
    sched = Rounds(run, Setup(plans, (1, 4), False, SearchRules(), RoundRules(), "brute"), VISIT_S, host.clock)
    ties: list[str] = []
    for index, names in enumerate((["v_best", "v_third"], ["v_second", "v_fourth"])):
        run.rounds.groups.append(LoadGroup(index, names, "memory"))
        ties += sched.run_group(names, index, host.measure)[:1]
    run.rounds.groups.append(LoadGroup(2, ties, "the final: the tie sets of the groups"))
    sched.run_group(ties, 2, host.measure)
    return run, sched


def test_a_final_groups_end_counts_its_own_rounds_not_the_other_groups() -> None:
    run, _ = _groups_run(3)
    final = run.rounds.groups[2]
    own = [r for r in run.rounds.rounds if r.group == 2]
    assert own and len(run.rounds.rounds) > len(own)  # the groups before it had rounds of their own
    # the group's count said as the group's, with the run's (issue 26: "(after 6 rounds)" read as the run's 13)
    said = f"(after {len(own)} rounds of this group, {len(run.rounds.measured())} in the run)"
    assert final.ended is not None and final.ended.endswith(said), final.ended
    assert run.rounds.group_rounds(2) == own


def test_no_recorded_round_is_empty_under_a_latency_budget_no_level_meets() -> None:
    """Every level over the budget: the engine ranks by peak (perf.search.rounds.Rounds.ranked), so
    each variant's peak level stays measured (perf.search.ladder, rule "Retirement"), and a round
    never goes by without a visit."""
    for seed in range(6):
        run, sched, tie = rounds_run(seed, latency_ms=0.125)
        rr = run.rounds
        assert rr.rounds and all(r.order for r in rr.rounds), (seed, [len(r.order) for r in rr.rounds])
        n = len(rr.rounds)
        assert rr.ended is not None and n <= rr.rules.max_rounds
        if not rr.ended.startswith(f"{n} rounds, the most a group gets"):
            assert rr.ended.startswith("no variant in contention has a level within the p99 budget of 0.125 ms: peak ranking")
            assert rr.ended.endswith(f"(after {n} rounds)"), rr.ended
        assert tie and tie[0] not in sched.resting
        for name in sched.contenders(list(TRUE)):  # every level over the budget, yet a level of each is measured
            assert any(lad.active for lad in sched.ladders[name].values()) or name in sched.resting, (
                seed,
                name,
                sched.ladders[name],
            )


def test_a_one_group_run_says_its_rounds_plainly() -> None:
    from perf.search.ending.ends import after

    rec = RoundsRecord(seed=0, groups=[LoadGroup(0, ["a", "b"], "fits")], rounds=[_round(r, 0, "a", "b") for r in range(3)])
    assert after(rec, 3) == "after 3 rounds"
