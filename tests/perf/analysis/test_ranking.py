"""The paired ranking (perf.analysis.ranking.rank): comparisons by the sign-test rule, round-adjusted
ordering, operating points under a budget, tie sets."""

from __future__ import annotations

import dataclasses

import pytest

from core.units import p_number
from perf.analysis.ranking.operating import MIN_ROUNDS, Adjusted, Side, compare, operating_point
from perf.analysis.ranking.rank import dropped_by_search, rank_variants
from perf.records.levels import LevelResult
from perf.records.results import VariantResult
from perf.records.search import SearchDecision


def _vr(name: str, thr: dict[tuple[int, int], float], p99: float = 5.0) -> VariantResult:
    """``thr``: (concurrency, round) -> infer/s; p99 grows with concurrency."""
    lv = [LevelResult(c, 1, r, throughput_infer_per_s=t, latency_p99_ms=p99 * c) for (c, r), t in thr.items()]
    return VariantResult(name, status="ok", levels=lv)


def test_a_comparison_pairs_rounds_and_cancels_what_the_host_did_between_them() -> None:
    load = [1.0, 0.5, 0.8, 0.3, 0.9, 0.4]  # the host's capacity left per round: it changes 3x between rounds
    a = _vr("a", {(4, r): 1100 * f for r, f in enumerate(load)})
    b = _vr("b", {(4, r): 1000 * f for r, f in enumerate(load)})
    c = compare(a, Side("a", 4), b, Side("b", 4))
    assert MIN_ROUNDS == 6 and c.verdict == "a" and c.rounds == tuple(range(6))
    assert c.median_ratio == pytest.approx(1.1) and c.median_latency_diff_ms == 0.0
    assert "`a` beats `b`" in c.sentence() and "ahead in 6 of 6" in c.sentence()
    # unpaired the numbers say little: b's quiet rounds beat most of a's
    assert sum(1000 * load[0] > 1100 * f for f in load) == 5
    five = compare(
        _vr("a", {(4, r): 1050.0 for r in range(5)}), Side("a", 4), _vr("b", {(4, r): 1000.0 for r in range(5)}), Side("b", 4)
    )  # a 5 % gap: too small for the large-gap tier, too few rounds for the sign test
    # ahead in each of the 5 rounds: said so, with why the rule did not call it (trial 15, T15-2)
    said = (
        "`a` ahead of `b` in each of the 5 rounds, but not called: not every round apart by 1.1× or more, so only the sign test"
    )
    assert five.verdict == "not distinguishable" and five.verdict_words().startswith(said)
    assert five.can_separate(1) and not five.can_separate(0)
    # a 2x gap over 3 rounds, every one agreeing: the large-gap tier calls it; over 2 it cannot yet
    a2, b2 = _vr("a", {(4, r): 2000.0 + 90 * r for r in range(3)}), _vr("b", {(4, r): 1000.0 for r in range(3)})
    three = compare(a2, Side("a", 4), b2, Side("b", 4))
    assert three.verdict == "a" and three.result.by_gap and "large consistent gap t-test)" in three.sentence()
    two = compare(
        _vr("a", {(4, r): 2000.0 for r in range(2)}), Side("a", 4), _vr("b", {(4, r): 1000.0 for r in range(2)}), Side("b", 4)
    )
    assert (
        two.verdict == "not distinguishable"
        and "too few rounds for the rule to call it (a large gap needs 3, else 6)" in two.verdict_words()
    )
    assert two.can_separate(1)  # one more round agreeing could reach the large-gap tier


def test_levels_measured_in_different_rounds_are_ordered_on_the_round_adjusted_scale() -> None:
    # round 0 quiet, rounds 1-3 busy (x0.5); truly c=2: 600, c=8: 500 infer/s. c=8 was measured in
    # rounds 0 and 1 only: its plain median (375) beats c=2's (300), an artefact of when it ran.
    load = [1.0, 0.5, 0.5, 0.5]
    v = _vr("v", {**{(2, r): 600 * load[r] for r in range(4)}, **{(8, r): 500 * load[r] for r in (0, 1)}})
    adj = Adjusted([v])
    assert adj.of(Side("v", 2)) == pytest.approx(300) and adj.of(Side("v", 8)) == pytest.approx(250)  # the median round's scale
    assert operating_point(v, cores=None).side.concurrency == 2


def test_the_tie_set_holds_what_the_leader_does_not_beat_and_a_budget_picks_the_level() -> None:
    a = _vr("a", {(4, r): 1000.0 + r for r in range(6)})
    b = _vr("b", {(4, r): x for r, x in enumerate([990, 1020, 985, 1010, 1001, 999])})
    c = _vr("c", {(4, r): 500.0 + r for r in range(6)})
    rank = rank_variants([a, b, c], cores=None)
    assert rank.names[0] in ("a", "b") and set(rank.names) == {"a", "b"}
    assert [x.verdict for x in rank.comparisons if x.b.variant == "c"] == ["a"] and rank.beaten()[0].b.variant == "c"
    # a budget of 25 ms: c=4 (p99 20 ms) qualifies, c=8 (40 ms) does not
    d = _vr("d", {**{(4, r): 700.0 for r in range(3)}, **{(8, r): 900.0 for r in range(3)}})
    assert operating_point(d, 25.0, cores=None).side.concurrency == 4 and operating_point(d, cores=None).side.concurrency == 8
    assert operating_point(d, 25.0, cores=None).within_budget == 3
    assert operating_point(d, 1.0, cores=None) is None
    assert rank_variants([d], 1.0, cores=None).leader is None and rank_variants([d], 1.0, cores=None).unranked == ["d"]


def test_a_variant_the_search_dropped_stays_beaten_when_the_leader_climbed_past_the_compared_level() -> None:
    # the search compared x and b at c=4 over rounds 0-5 (x ahead in all six) and dropped b; the leader a
    # joined late at c=16 (rounds 4-9), sharing only 2 rounds with b (and with x): on operating points
    # alone b would sit in the tie set although the console said x beats it.
    a = _vr("a", {(16, r): 1500.0 + r for r in range(4, 10)})
    x = _vr("x", {(4, r): 1000.0 + r for r in range(6)})
    b = _vr("b", {(4, r): 800.0 + r for r in range(6)})
    plain = rank_variants([a, x, b], cores=None)
    assert plain.leader.side == Side("a", 16) and plain.names == ["a", "x", "b"]  # the contradiction this rule removes
    rank = rank_variants([a, x, b], dropped=dropped_by_search([_pruned("b", "x", 4, 4)]), cores=None)
    assert rank.names == ["a", "x"]
    dropped = next(c for c in rank.comparisons if c.b.variant == "b")
    assert dropped.a == Side("x", 4) and dropped.verdict == "a"
    # a drop the recorded rounds no longer back (b ahead in two rounds) ranks like any other variant
    b2 = _vr("b", {(4, r): (800.0 if r > 1 else 1100.0) + r for r in range(6)})
    assert rank_variants([a, x, b2], dropped=dropped_by_search([_pruned("b", "x", 4, 4)]), cores=None).names == ["a", "x", "b"]
    # only pruned decisions count; a knee is no drop
    assert dropped_by_search([dataclasses.replace(_pruned("b", "x", 4, 4), rule="knee")]) == {}


def _pruned(name: str, by: str, at: int, at_by: int) -> SearchDecision:
    return SearchDecision(variant=name, rule="pruned", concurrency=at, reason="", best_variant=by, best_concurrency=at_by)


def test_the_picks_other_levels_separate_a_runner_up_its_operating_point_shares_too_few_rounds_with() -> None:
    # the pick's ladder reached c=16 in round 4; a 5x slower runner-up's c=2 retired after round 5: 2 common rounds
    a = _vr("a", {**{(2, r): 900.0 + r for r in range(10)}, **{(16, r): 2800.0 + r for r in range(4, 10)}})
    b = _vr("b", {(2, r): 500.0 + r for r in range(6)})
    assert len(compare(a, Side("a", 16), b, Side("b", 2)).rounds) == 2
    rank = rank_variants([a, b], cores=None)
    assert rank.leader.side == Side("a", 16) and rank.names == ["a"]
    c = rank.comparisons[0]
    assert c.a == Side("a", 2) and c.verdict == "a" and len(c.rounds) == 6
    # a runner-up that beats one of the pick's levels stays in the tie set
    b_fast = _vr("b", {(2, r): 950.0 + r for r in range(6)})
    assert rank_variants([a, b_fast], cores=None).names == ["a", "b"]
    # under a budget only the pick's levels within it count (p99 = 5 ms x c: c=2 is 10 ms, over a 5 ms budget)
    assert rank_variants([a, b], budget_ms=5.0, cores=None).leader is None
    a_fast = _vr("a", {**{(1, r): 700.0 + r for r in range(8)}, **{(2, r): 900.0 + r for r in range(5, 8)}})
    b1 = _vr("b", {(1, r): 400.0 + r for r in range(8)})
    assert rank_variants([a_fast, b1], budget_ms=10.0, cores=None).names == ["a"]  # a@1 (5 ms) beats b@1 over 8 rounds
    assert rank_variants([a_fast, b1], budget_ms=7.0, cores=None).names[0] == "a"  # a@2 (10 ms) over 7 ms: a's op is c=1


def test_an_operating_point_is_a_level_with_the_rounds_a_verdict_needs_when_the_variant_has_one() -> None:
    # c=2 looks best on 2 rounds (retired early); c=4 has 8 rounds: the comparison can rest on c=4 only
    v = _vr("v", {**{(2, r): 450.0 for r in range(2)}, **{(4, r): 400.0 for r in range(8)}})
    assert operating_point(v, cores=None).side.concurrency == 4
    # 3 rounds are enough (a large gap is called from 3): a variant pruned early is compared at its best level
    u = _vr("u", {**{(16, r): 1500.0 for r in range(3)}, **{(1, r): 400.0 for r in range(8)}})
    assert operating_point(u, cores=None).side.concurrency == 16
    # a variant without such a level is ranked on all its levels
    w = _vr("w", {**{(2, r): 450.0 for r in range(2)}, **{(4, r): 400.0 for r in range(2)}})
    assert operating_point(w, cores=None).side.concurrency == 2


def test_the_leader_is_named_at_its_peak_even_when_that_level_joined_late() -> None:
    # c=16 reached in round 6 (2 rounds, the highest throughput); c=4 measured in all 8 rounds
    a = _vr("a", {**{(4, r): 1000.0 + r for r in range(8)}, **{(16, r): 1900.0 + r for r in range(6, 8)}})
    b = _vr("b", {(4, r): 500.0 + r for r in range(8)})
    rank = rank_variants([a, b], cores=None)
    assert rank.leader.side == Side("a", 16) and rank.names == ["a"]
    assert rank.comparisons[0].a == Side("a", 4)  # beaten through the pick's level with the rounds


def test_a_shape_sweep_compares_the_leader_with_series_of_its_own_size_only() -> None:
    def series(name: str, shape: str, thr: float) -> VariantResult:
        lv = [LevelResult(4, 1, r, throughput_infer_per_s=thr + r, latency_p99_ms=2.0, shape=shape) for r in range(3)]
        return VariantResult(f"{name} [{shape}]", status="ok", levels=lv)

    rank = rank_variants(
        [series("a", "side=16", 3000.0), series("a", "side=64", 900.0), series("b", "side=16", 2900.0)], cores=None
    )
    assert rank.names == ["a [side=16]", "b [side=16]"]  # a at side=64 is another input size, not a rival
    assert all(c.b.shape == "side=16" for c in rank.comparisons)


def test_the_ranking_tables_p_is_the_p_of_the_tier_that_decided() -> None:
    # the trial: the table's p column showed the sign test's 0.25 beside "the pick beats it", decided by the gap t-test
    from perf.report.sections.ranking import comparison_lines

    a2, b2 = _vr("a", {(4, r): 2000.0 + 90 * r for r in range(3)}), _vr("b", {(4, r): 1000.0 for r in range(3)})
    ranking = rank_variants([a2, b2], cores=None)
    (c,) = ranking.comparisons
    rows = [[x.strip() for x in ln.strip("|").split("|")] for ln in comparison_lines(ranking, "Pick", 99) if ln.startswith("|")]
    head, row = rows[0], rows[2]
    assert row[head.index("verdict")] == "the pick beats it"
    assert row[head.index("p")] == f"{p_number(c.result.gap_p_value)} (gap)" and c.result.p_value == 0.25
