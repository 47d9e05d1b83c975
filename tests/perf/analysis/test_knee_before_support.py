"""Under a latency budget the knee rule comes before the better-supported median, and the pick does not depend on the
order the levels are listed in (perf.analysis.ranking.leader: choose, supported, knee; review s23r, M1). ``db500``
c=4 (1,634.5 infer/s, p99 7.68 ms over 4 rounds) and c=16 (1,652.4 infer/s, p99 28.32 ms over 6 rounds), 2-2 in the
4 rounds they shared: c=4 is at c=16's knee and c=16 has the higher median over more rounds; ``choose([c4, c16])``
named c=16, ``choose([c16, c4])`` c=4, and the variant's best level under the budget was c=16 (1 % more throughput at
3.7x the p99, the case the knee rule was written against)."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

from factories import level_result, variant_result

from perf.analysis.ranking.leader import choose, knee, supported
from perf.analysis.ranking.operating import Adjusted, Comparison, Operating, compare, levels_of, operating_point, summary
from perf.analysis.ranking.rank import rank_variants
from perf.records.results import VariantResult

#: concurrency -> round -> (infer/s, p99 ms): medians c=4 1,634.5 / 7.68 ms (4 rounds), c=16 1,652.4 / 28.32 ms (6).
KNEE_AND_SUPPORT = {
    4: {0: (1600.0, 7.5), 1: (1700.0, 7.7), 2: (1620.0, 7.66), 3: (1649.0, 7.9)},
    16: {0: (1650.0, 28.0), 1: (1660.0, 28.64), 2: (1610.0, 27.9), 3: (1654.8, 28.3), 4: (1649.8, 29.0), 5: (1700.0, 28.34)},
}  # fmt: skip


def _variant(name: str, levels: dict[int, dict[int, tuple[float, float]]]) -> VariantResult:
    return variant_result(
        name, [level_result(c, t, p, spread=True, trial=r) for c, per in levels.items() for r, (t, p) in per.items()]
    )


def _levels(vr: VariantResult, budget_ms: float | None) -> list[Operating]:
    adjusted = Adjusted([vr])
    ops = [summary(vr, s, budget_ms, "latency_p99_ms", adjusted, cores=None) for s in levels_of(vr)]
    return [o for o in ops if o is not None]


def _cmp(vr: VariantResult) -> Callable[[Operating, Operating], Comparison]:
    return lambda x, y: compare(vr, x.side, vr, y.side, "latency_p99_ms")


def test_a_level_at_the_others_knee_is_named_first_whatever_the_order_and_the_others_rounds() -> None:
    vr = _variant("v", KNEE_AND_SUPPORT)
    c4, c16 = sorted(_levels(vr, 50.0), key=lambda o: o.side.concurrency)
    assert (c4.throughput_infer_per_s, c4.latency_ms, c4.rounds) == (1634.5, 7.68, 4)
    assert (c16.throughput_infer_per_s, c16.latency_ms, c16.rounds) == (1652.4, 28.32, 6)
    cmp = _cmp(vr)
    assert cmp(c4, c16).verdict != "a" and cmp(c16, c4).verdict != "a"  # the rule separates neither
    assert knee(c4, c16, cmp)  # as much throughput by the medians, 3.7x lower p99, lower in every shared round
    assert not supported(c16, c4, cmp)  # old: True, so whichever was listed first lost
    assert choose([c4, c16], cmp) is c4  # old: c16
    assert choose([c16, c4], cmp) is c4
    best = operating_point(vr, 50.0, cores=None)
    assert best is not None and best.side.concurrency == 4  # old: c=16
    peak = operating_point(vr, None, cores=None)  # without a budget no knee: the better-supported median names c=16
    assert peak is not None and peak.side.concurrency == 16


def test_two_variants_at_each_others_knee_and_support_rank_the_same_whatever_their_order() -> None:
    a = _variant("a", {4: KNEE_AND_SUPPORT[4]})
    b = _variant("b", {16: KNEE_AND_SUPPORT[16]})
    for variants in ([a, b], [b, a]):
        ranking = rank_variants(variants, 50.0, cores=None)
        assert ranking.leader is not None and ranking.leader.side.variant == "a", [v.name for v in variants]


def _random_variant(rng: random.Random, n_levels: int) -> VariantResult:
    """Levels of nearly the same throughput (within 8 %), latencies 1x to 4x apart, each over its own run of
    rounds (3 to 8, overlapping): where the paired rule calls nothing and the knee, better-supported and overtaking
    rules decide."""
    levels: dict[int, dict[int, tuple[float, float]]] = {}
    for c in rng.sample([1, 2, 4, 8, 16, 32], n_levels):
        base, lat = rng.uniform(1000.0, 1080.0), rng.choice([5.0, 8.0, 12.0, 20.0])
        start, n = rng.randint(0, 3), rng.randint(3, 8)
        levels[c] = {r: (base * rng.uniform(0.96, 1.04), lat * rng.uniform(0.9, 1.1)) for r in range(start, start + n)}
    return _variant("v", levels)


def test_the_pick_of_a_variants_levels_is_the_same_whatever_order_they_come_in() -> None:
    rng = random.Random(2323)
    for case in range(60):
        vr = _random_variant(rng, rng.choice([3, 4]))
        cmp = _cmp(vr)
        for budget in (None, 50.0):
            ops = _levels(vr, budget)
            picks = {(p := choose(list(order), cmp)) and p.side.concurrency for order in itertools.permutations(ops)}
            assert len(picks) == 1, (
                case,
                budget,
                picks,
                [(o.side.concurrency, o.throughput_infer_per_s, o.latency_ms, o.rounds) for o in ops],
            )
