"""Shared rounds the paired rule does not call move the leader only when they are one-sided (as one-sided as 3 of 3),
and a level with a higher median over more rounds is named first over one the rule did not separate from it
(perf.analysis.ranking.leader: favoured, supported). Trial 28, T28-1, run t28a after ``--resume``: "Best measured
throughput" named ``nodb`` c=4 (1,634.1 infer/s, p99 16.04 ms over 3 rounds) over ``db500`` c=4 (1,980.8 infer/s,
p99 8.36 ms over 14 rounds), because in the 3 rounds they shared ``nodb`` was ahead in 2 (one a one-off 3,271
infer/s); the same report said ``db500`` was ahead on both medians, Conclusions said "the best throughput measured
is 1,634.1" beside "the runner-up ... measured up to 1,980.8", and a 20 ms what-if deployed ``nodb``."""

from __future__ import annotations

from factories import level_result, run_result, variant_result

from perf.analysis.ranking.leader import ONE_SIDED_P, favoured
from perf.analysis.ranking.operating import operating_point
from perf.analysis.ranking.rank import rank_variants
from perf.analysis.recommendation.recommend import recommend
from perf.analysis.stats.paired import paired
from perf.deploy.choose import choose_variant
from perf.records.results import RunResult
from perf.records.rounds import RoundsRecord

DB500, NODB = "grucls_onnx_cpu2_db500_mbs64", "grucls_onnx_cpu2_nodb_mbs64"
#: Run t28a's levels (results.json): variant -> concurrency -> round -> (infer/s, p99 ms). Rounds 8-10 are the
#: resume's final group, the only ones ``nodb`` had (host busy: db500 at 1,280 / 911 / 1,544 there).
T28A = {
    DB500: {
        1: {0: (823.77, 3.706)},
        4: {
            0: (2364.69, 5.468), 1: (2190.46, 5.511), 2: (1962.45, 9.641), 3: (2241.77, 8.45), 4: (1905.46, 10.339),
            5: (1999.06, 6.101), 6: (1847.62, 7.581), 7: (1649.75, 11.615), 8: (1280.21, 17.256), 9: (910.82, 16.939),
            10: (1543.57, 13.817), 11: (2706.28, 4.459), 12: (2200.2, 8.264), 13: (2284.99, 5.95),
        },
    },
    NODB: {
        1: {8: (433.8, 14.659), 9: (764.92, 11.997), 10: (506.88, 12.061)},
        4: {8: (1090.55, 20.063), 9: (1634.09, 16.04), 10: (3271.0, 4.038)},
    },
}  # fmt: skip


def _run(levels: dict[str, dict[int, dict[int, tuple[float, float]]]], budget_ms: float | None = 10.0) -> RunResult:
    variants = [
        variant_result(
            name,
            [level_result(c, t, p, spread=True, trial=r) for c, per in by_c.items() for r, (t, p) in per.items()],
        )
        for name, by_c in levels.items()
    ]
    settings = {"latency_budget_ms": budget_ms, "latency_percentile": 99} if budget_ms is not None else {}
    return run_result(variants, settings=settings, finished="x", rounds=RoundsRecord(seed=28))


def test_two_of_three_shared_rounds_do_not_name_first_a_level_behind_on_both_medians_with_fewer_rounds() -> None:
    run = _run(T28A)
    for budget in (None, 20.0):  # the best peak; a what-if budget both levels are within
        ranking = rank_variants(run.variants, budget, cores=None)
        assert ranking.leader is not None and (ranking.leader.side.variant, ranking.leader.side.concurrency) == (DB500, 4)
        assert ranking.names == [DB500, NODB]  # still not separated by the rule: the tie set says it
    rec = recommend(run)
    assert rec.best_peak is not None and (rec.best_peak.variant, rec.best_peak.concurrency) == (DB500, 4)
    assert round(rec.best_peak.throughput_infer_per_s, 1) == 1980.8 and rec.best_peak.dominated is None
    assert "not as the winner" in rec.best_peak.describe()  # "not decided" stays beside the pick
    under = recommend(run, 20.0).best_under_budget
    assert under is not None and (under.variant, under.concurrency) == (DB500, 4)
    assert under.dominated is None
    chosen = choose_variant(run, None, 20.0)  # export-deployment's what-if: the old code deployed nodb
    assert (chosen.variant, chosen.level.concurrency) == (DB500, 4)
    op = operating_point(run.variants[1], cores=None)  # nodb's own best level: c=4 (3 of 3 ahead of its c=1)
    assert op is not None and op.side.concurrency == 4


def test_three_of_four_shared_rounds_by_a_small_margin_do_not_name_first_the_less_measured_level() -> None:
    # ``b`` (4 rounds, 1,010-1,030 infer/s) ahead of ``a`` (8 rounds, median 1,060) in 3 of the 4 rounds they shared by
    # 1-3 %, behind by 8 % in the fourth; the old code named ``b`` first on the median of those 4 rounds
    a = {4: {0: (1100.0, 5.0), 1: (1090.0, 5.0), 2: (1070.0, 5.0), 3: (1050.0, 5.0), 4: (1000.0, 5.0),
             5: (990.0, 5.0), 6: (1000.0, 5.0), 7: (1100.0, 5.0)}}  # fmt: skip
    b = {4: {4: (1010.0, 5.2), 5: (1020.0, 5.2), 6: (1030.0, 5.2), 7: (1010.0, 5.2)}}
    run = _run({"a": a, "b": b}, None)
    ranking = rank_variants(run.variants, cores=None)
    assert ranking.leader is not None and ranking.leader.side.variant == "a" and ranking.names == ["a", "b"]
    assert recommend(run).best_peak.variant == "a"  # type: ignore[union-attr]
    # the same levels as two of one variant: its best level is the same one
    one = {4: a[4], 8: b[4]}
    vr = _run({"v": one}, None).variants[0]
    for backed in (True, False):
        op = operating_point(vr, backed=backed, cores=None)
        assert op is not None and op.side.concurrency == 4, backed


def test_one_sided_means_as_one_sided_as_three_of_three() -> None:
    assert ONE_SIDED_P == 0.25
    for wins, losses, side in ((3, 0, "a"), (0, 4, "b"), (5, 1, "a"), (6, 1, "a"), (8, 2, "a"), (2, 1, None),
                               (3, 1, None), (4, 1, None), (7, 3, None), (2, 0, None), (1, 0, None)):  # fmt: skip
        a = [1.1] * wins + [0.9] * losses
        assert favoured(paired(a, [1.0] * len(a))) == side, (wins, losses)
    assert favoured(None) is None


#: ``p`` (3 rounds, the busy rounds 6-8 only) is first by round-adjusted throughput and ahead of ``r`` in 2 of the 3
#: rounds they shared; ``r``'s median over 9 rounds is twice ``p``'s; ``c`` (every round) shows rounds 6-8 busy.
BUSY = {
    "c": {4: {r: ((800.0, 5.0) if r < 6 else (400.0, 9.0)) for r in range(9)}},
    "r": {4: {0: (1000.0, 5.0), 1: (1010.0, 5.0), 2: (990.0, 5.0), 3: (1000.0, 5.0), 4: (1005.0, 5.0), 5: (995.0, 5.0),
              6: (500.0, 9.0), 7: (520.0, 9.0), 8: (480.0, 9.0)}},
    "p": {4: {6: (560.0, 9.0), 7: (500.0, 9.0), 8: (530.0, 9.0)}},
}  # fmt: skip


def test_a_higher_median_over_more_rounds_is_named_first_and_says_so() -> None:
    run = _run(BUSY, None)
    ranking = rank_variants(run.variants, cores=None)
    by = {o.side.variant: o for o in ranking.tie_set}
    assert ranking.leader is not None and ranking.leader.side.variant == "r" and "p" in by  # the old code: p
    assert by["p"].adjusted_infer_per_s > ranking.leader.adjusted_infer_per_s  # the round-adjusted scale puts p first
    pick = recommend(run).best_peak
    assert pick is not None and pick.variant == "r" and pick.supported == []  # said by its medians (overtook), not twice
    assert pick.overtook == ["`p` at c=4 (530.0 infer/s, p99 9.00 ms; ahead in 2 of 3 shared rounds)"]
    text = pick.describe()
    # `r` is also better on both medians (p99 5.00 against 9.00 ms): named first by those, with `p`'s numbers (F10)
    assert "named first by its medians, better on both than `p` at c=4 (530.0 infer/s, p99 9.00 ms; ahead in 2 of 3" in text
    assert "named first by round-adjusted throughput" not in text
