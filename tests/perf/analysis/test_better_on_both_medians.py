"""A tie-set member better on both medians (a higher median throughput and a lower median latency, each over its own
rounds: the report's Pareto rule) is named first whatever the rounds each has, where the rounds it shared with the
pick are not one-sided for the pick (perf.analysis.ranking.leader: overtaken). Trial 30, F10: run dae-s5 named
``dae_onnx_cpu1_nodb_mbs8`` at c=2 (512.0 infer/s, p99 25.45 ms) "best measured" for its round-adjusted throughput
above ``dae_ts_cpu1_nodb_mbs8`` at c=1 (527.7 infer/s, p99 10.43 ms), the pick ahead in 2 of the 4 rounds they
shared. Where the medians and the round adjustment disagree without that (make demo: the bundle went to the member
of the lower median, 1,740 against 2,076 infer/s, the pick ahead in 4 of 6 shared rounds), the words say which
numbers named the pick; where the pick was ahead one-sidedly of a level better on both medians, its line says that
the two are not decided, as a best under the budget's does. The console's "best measured ...: the same level" keeps
the best peak's tie."""

from __future__ import annotations

import random

from factories import level_result, run_result, variant_result

from perf.analysis.ranking.leader import overtakes
from perf.analysis.ranking.operating import Comparison, Operating, compare, operating_point
from perf.analysis.ranking.rank import rank_variants
from perf.analysis.recommendation.recommend import recommend
from perf.cli.summary import recommendation_line
from perf.deploy.choose import choose_variant
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundsRecord

ONNX, TS, ORT = "dae_onnx_cpu1_nodb_mbs8", "dae_ts_cpu1_nodb_mbs8", "dae_ort_cpu1_nodb_mbs8"
Levels = dict[str, dict[int, dict[int, tuple[float, float]]]]
#: dae-s5's pair (variant -> concurrency -> round -> (infer/s, p99 ms)): ``onnx`` c=2 over 6 rounds, median 512.0
#: infer/s, p99 26.50 ms, round-adjusted 545.8 (its rounds 1-2 were slow ones for every variant: ``ort`` shows them);
#: ``ts`` c=1 over rounds 3-6, median 527.85 infer/s, p99 10.41 ms, round-adjusted 527.5; ``onnx`` ahead in rounds 3
#: and 6 of the 4 they shared.
DAE_S5: Levels = {
    ORT: {1: {r: ((300.0, 12.0) if r >= 2 else (200.0, 16.0)) for r in range(6)}},
    ONNX: {2: {0: (470.0, 30.0), 1: (480.0, 28.0), 2: (560.0, 22.0), 3: (500.0, 26.0), 4: (524.0, 24.9), 5: (545.0, 27.0)}},
    TS: {1: {2: (527.7, 10.43), 3: (527.0, 10.4), 4: (528.0, 10.5), 5: (540.0, 10.3)}},
}  # fmt: skip
#: One variant's levels: c=8 over 8 rounds (median 1,155.0 infer/s, p99 31.00 ms; first by round-adjusted throughput,
#: its first 3 rounds slow ones for every level: c=1 shows them) and c=2 over the last 5 (median 1,240.0, p99 6.10 ms),
#: c=8 ahead in 3 of the 5 they shared.
ONE_VARIANT: Levels = {
    "v": {
        1: {r: ((500.0, 3.5) if r < 3 else (700.0, 3.0)) for r in range(8)},
        8: {0: (1150.0, 30.0), 1: (1160.0, 30.5), 2: (1140.0, 31.0), 3: (1260.0, 31.0), 4: (1210.0, 32.0),
            5: (1250.0, 31.5), 6: (1150.0, 30.0), 7: (1140.0, 30.8)},
        2: {3: (1240.0, 6.0), 4: (1200.0, 6.1), 5: (1245.0, 6.2), 6: (1230.0, 6.0), 7: (1250.0, 6.3)},
    }
}  # fmt: skip


def _run(levels: Levels, budget_ms: float | None = None) -> RunResult:
    variants = [
        variant_result(
            name, [level_result(c, t, p, spread=True, trial=r) for c, per in by_c.items() for r, (t, p) in per.items()]
        )
        for name, by_c in levels.items()
    ]
    settings = {"latency_budget_ms": budget_ms, "latency_percentile": 99} if budget_ms is not None else {}
    return run_result(variants, settings=settings, finished="x", rounds=RoundsRecord(seed=30))


def test_a_tie_partner_better_on_both_medians_is_named_first_everywhere() -> None:
    run = _run(DAE_S5)
    ranking = rank_variants(run.variants, cores=None)
    by = {o.side.variant: o for o in ranking.tie_set}
    assert ranking.leader is not None and ranking.leader.side.variant == TS and ONNX in by  # the old code: ONNX
    assert by[ONNX].adjusted_infer_per_s > by[TS].adjusted_infer_per_s  # the round-adjusted scale puts ONNX first
    for budget in (None, 40.0):  # the best peak; a what-if budget both are within
        rec = recommend(run, budget)
        for pick in (rec.best_peak, rec.best_under_budget) if budget else (rec.best_peak,):
            assert pick is not None and (pick.variant, pick.concurrency) == (TS, 1), budget
            text = pick.describe()
            assert f"named first by its medians, better on both than `{ONNX}` at c=2 (512.0 infer/s, p99 26.50 ms" in text
            assert "ahead in 2 of 4 shared rounds)" in text and pick.dominated is None
            assert "not as the winner" in text  # the tie set stays beside it
        chosen = choose_variant(run, None, budget)  # export-deployment and the bundle's README: the same level
        assert (chosen.variant, chosen.level.concurrency) == (TS, 1)
        assert "named first by its medians" in chosen.level.describe()


def test_a_level_better_on_both_medians_is_a_variants_best_level_whatever_its_rounds() -> None:
    run = _run(ONE_VARIANT)
    vr = run.variants[0]
    for backed in (True, False):
        op = operating_point(vr, backed=backed, cores=None)
        assert op is not None and op.side.concurrency == 2, backed  # the old code: c=8 (fewer rounds for c=2)
    pick = recommend(run).best_peak
    assert pick is not None and pick.concurrency == 2
    assert (round(pick.throughput_infer_per_s, 1), round(pick.latency_p99_ms, 2)) == (1240.0, 6.1)


def test_a_pick_ahead_one_sidedly_of_a_level_better_on_both_keeps_its_place_and_says_not_decided() -> None:
    # ts ahead of the pick's medians, but the pick ahead in 3 of the 3 rounds they shared (ts's other rounds fast ones)
    levels: Levels = {
        ORT: {1: {r: ((300.0, 12.0) if r < 3 else (200.0, 16.0)) for r in range(6)}},
        ONNX: {2: {r: (500.0 if r < 3 else 340.0, 20.0) for r in range(6)}},
        TS: {1: {0: (560.0, 10.0), 1: (555.0, 10.0), 2: (565.0, 10.0), 3: (330.0, 12.0), 4: (335.0, 12.0), 5: (320.0, 12.0)}},
    }  # fmt: skip
    levels[ONNX] = {2: {r: v for r, v in levels[ONNX][2].items() if r >= 3}}  # the pick measured in rounds 4-6 only
    run = _run(levels)
    rec = recommend(run)
    pick = rec.best_peak
    assert pick is not None and pick.variant == ONNX  # 3 of 3 shared rounds: one-sided, the rule's leader stays
    assert pick.dominated is not None and pick.dominated.startswith(f"**not decided** between it and `{TS}` at concurrency 1")
    assert pick.dominated_mark is not None and "better on both by the medians; the pick ahead in 3 of 3" in pick.dominated_mark
    assert pick.dominated in pick.describe()  # report.md, export-deployment, the bundle's README
    assert pick.dominated_mark in pick.note()  # the console's note and the plot's mark


def test_where_the_round_adjustment_names_the_pick_over_a_higher_median_the_words_say_so() -> None:
    # make demo's kind: db500 c=4 ahead in 4 of 6 shared rounds and first by round-adjusted throughput, nodb's median
    # higher at a higher p99 (not better on both): db500 stays, named by the round adjustment, said with its numbers
    p, q = "dae_onnx_cpu1_db500_mbs8", "dae_onnx_cpu1_nodb_mbs8"
    levels: Levels = {
        p: {4: {0: (1700.0, 6.0), 1: (1740.0, 6.0), 2: (1760.0, 6.0), 3: (1720.0, 6.0), 4: (1000.0, 9.0), 5: (2400.0, 5.0)}},
        q: {4: {0: (1600.0, 7.5), 1: (1650.0, 7.5), 2: (2076.0, 7.0), 3: (2076.0, 7.2), 4: (900.0, 9.5), 5: (2200.0, 7.8)}},
    }  # fmt: skip
    rec = recommend(_run(levels))
    pick = rec.best_peak
    assert pick is not None and pick.variant == p and pick.tied
    assert pick.adjusted == [
        f"`{q}` at c=4 (round-adjusted 1,739.2 infer/s against the pick's 1,841.0; its median higher, 1,863.0 against "
        "1,730.0; the pick ahead in 4 of 6 shared rounds)"
    ]
    text = pick.describe()
    assert "named first by its round-adjusted throughput, not by the medians over all rounds" in text
    assert "named first by throughput in the rounds it shared with each" not in text  # the old words: not what decided
    assert (
        f"`{q}`'s median at c=4 higher, 1,863.0: the pick ahead in 4 of 6 shared rounds, named by round-adjusted " in pick.note()
    )


def test_the_consoles_same_level_keeps_the_best_peaks_tie() -> None:
    # under a 12 ms budget onnx (p99 26.50 ms) has no level within it: ts is the budget's pick alone, and the best
    # peak, the same level, is the pick of its tie set with onnx (trial 30, F10: dae-s4's line dropped it)
    slower = {r: (t * 0.9, p) for r, (t, p) in DAE_S5[ONNX][2].items()}  # ts first by every rule, old and new
    run = _run({**DAE_S5, ONNX: {2: slower}}, 12.0)
    rec = recommend(run, 12.0)
    u, b = rec.best_under_budget, rec.best_peak
    assert u is not None and b is not None and (u.variant, u.concurrency) == (b.variant, b.concurrency) == (TS, 1)
    assert b.tied and not u.tied
    line = recommendation_line(rec)
    assert line is not None and f"the same level ({b.tie_word()})" in line  # the old line: "the same level" alone


def test_no_leader_is_one_a_tie_member_overtakes() -> None:
    """60 random runs of 3 variants, 2-3 levels each in 3-8 rounds: the leader is never one another unbeaten member is
    better than on both medians over rounds not one-sided for the leader (the report's Pareto words say so of none)."""
    rng = random.Random(30)
    for _ in range(60):
        levels: Levels = {}
        for name in ("a", "b", "c"):
            first = rng.randrange(0, 4)
            levels[name] = {
                c: {
                    r: (rng.uniform(400, 600) * c**0.3, rng.uniform(4, 12) * c**0.5)
                    for r in range(first, first + rng.randrange(3, 6))
                }
                for c in rng.sample([1, 2, 4, 8], rng.randrange(2, 4))
            }
        run = _run(levels)
        ranking = rank_variants(run.variants, cores=None)
        lead = ranking.leader
        assert lead is not None
        by, metric = {v.name: v for v in run.variants}, ranking.latency_metric

        def cmp(x: Operating, y: Operating, by: dict[str, VariantResult] = by, metric: str = metric) -> Comparison:
            return compare(by[x.side.variant], x.side, by[y.side.variant], y.side, metric)

        assert not [o.side for o in ranking.tie_set[1:] if overtakes(o, lead, cmp)], levels
