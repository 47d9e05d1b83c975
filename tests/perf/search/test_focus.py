"""What the next round measures beyond each ladder (perf.search.focus), on hand-made rounds, and in
the rounds engine on the simulated host (tests/support/simulated_host.py)."""

from __future__ import annotations

from perf.analysis.ranking.rank import rank_variants
from perf.records.levels import LevelResult
from perf.records.results import VariantResult
from perf.records.rounds import RoundRules
from perf.records.search import SearchDecision, SearchRules
from perf.search import ladder
from perf.search.focus import FAR_GAP, focus
from perf.search.plan import plan_levels
from perf.search.policy import AUTO
from perf.search.policy import ladder as ladder_of

LADDER = ladder_of(AUTO, SearchRules())[0]
END = SearchDecision(variant="x", rule="cap", concurrency=4, reason="")


def _vr(name: str, by_c: dict[int, list[float]]) -> VariantResult:
    levels = [
        LevelResult(c, 1, r, throughput_infer_per_s=t, latency_p99_ms=1.0) for c, ts in by_c.items() for r, t in enumerate(ts)
    ]
    return VariantResult(name, status="ok", levels=levels)


def _focus(variants: list[VariantResult], lads: dict[str, ladder.Ladder], rounds_left: int) -> dict[str, list[int]]:
    plans = {v.name: plan_levels(v.name, 8, LADDER, [1]) for v in variants}
    rank = rank_variants(variants, cores=None)
    return focus(rank, lads, plans, {v.name: v for v in variants}, SearchRules(), RoundRules(), rounds_left)


def test_a_settled_tie_rests_only_on_six_rounds_that_the_rounds_left_cannot_separate() -> None:
    a = _vr("a", {4: [1000.0, 1000.0, 1000.0, 1000.0, 1000.0, 1000.0]})
    b = _vr("b", {4: [1010.0, 990.0, 1010.0, 990.0, 1010.0, 990.0]})  # 3 rounds each way
    lads = {n: ladder.Ladder([4], [4], end=END) for n in ("a", "b")}
    rested = _focus([a, b], lads, rounds_left=4)
    assert rested == {"b": []} or rested == {"a": []}  # the one behind on the round-adjusted mean rests
    assert _focus([a, b], lads, rounds_left=10) == {}  # 10 more rounds, all one way, could still call it
    short = [_vr("a", {4: [1000.0] * 4}), _vr("b", {4: [1010.0, 990.0, 1010.0, 990.0]})]
    assert _focus(short, lads, rounds_left=0) == {}  # 4 rounds: too few for "not distinguishable at this noise"
    # a ladder that may still move its operating point is measured on
    lads["b"] = ladder.Ladder([4, 8], [4, 8], end=END)  # 8: just added, no round yet
    lads["a"] = ladder.Ladder([4, 8], [4, 8], end=END)
    assert _focus([a, b], lads, rounds_left=4) == {}


def test_a_variant_far_behind_in_every_round_is_measured_at_its_compared_level_only() -> None:
    a = _vr("a", {16: [1000.0, 1100.0]})
    b = _vr("b", {4: [300.0, 420.0], 16: [400.0, 450.0]})  # 2.4-2.5x behind at its best, 16: not called on 2 rounds
    lads = {"a": ladder.Ladder([16], [16], end=END), "b": ladder.Ladder([4, 8, 16], [4, 8, 16], end=END)}
    assert _focus([a, b], lads, rounds_left=7) == {"b": [16]}
    assert 1000.0 / 450.0 > FAR_GAP
    # not far in one round (1.9x): its ladder's levels, as planned
    near = _vr("b", {4: [300.0, 420.0], 16: [400.0, 580.0]})
    assert _focus([a, near], lads, rounds_left=7) == {}
    # a ladder still climbing (not ended, its top step paid) may still lift it
    lads["b"] = ladder.Ladder([4, 16], [4, 16])
    assert _focus([a, b], lads, rounds_left=7) == {}


def test_a_settled_member_of_a_tie_set_rests_in_the_engines_rounds() -> None:
    """On the simulated host with its drifting load, whose tie sets the rule cannot always split: a
    variant neither pruned nor failed is left out of some rounds (the true best stays found: the
    interleaved-rounds test in test_rounds_simulation.py holds it to 95 % of seeds). Rests are rare
    there: one seed in 20 to 60 (seed 0 before the retirement rule judged a level sharing no round
    with its best against the levels it was measured beside, seed 26 after; none of seeds 0-119 once a
    variant's best level followed the leader's rule, issue 26, and seed 11 at 0.06 noise; seeds 26, 29 and 109 of
    0-119 once a level retired only by the paired rule, trial 26, T26-4; seeds 38 and 50 of 0-59 once a far-behind
    level too waited for the rule's rounds, s22z Z-16; none of 0-59, seeds 64, 68, 106, 135, 160 and 162 of 60-169
    once shared rounds moved the leader only when one-sided, trial 28, T28-1)."""
    from simulated_host import TRUE, SimHost, rounds_run

    rested = 0
    for seed in range(60, 70):
        run, _, _ = rounds_run(seed, host=SimHost(seed, noise=0.06))
        names = set(TRUE)
        for r in run.rounds.rounds:
            seen = {v.variant for v in r.order}
            alive = {n for n in names if not (d := run.search.decision(n)) or d.rule != "pruned"}
            rested += len(alive - seen)
    assert rested > 0
