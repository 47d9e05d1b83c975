"""Main effects of a rounds sweep are paired over the rounds both variants shared
(perf.analysis.effects.rounds): a busy round falls on both sides and does not disqualify a pair."""

from __future__ import annotations

import dataclasses

from factories import params

from perf.analysis.effects.main_effects import main_effects
from perf.analysis.effects.rounds import NEVER_TOGETHER
from perf.analysis.stats.points import run_points
from perf.records.build_check import BuildCheck
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundsRecord

#: The host's capacity left per round: it swings 3x between rounds; rounds 2 and 4 are flagged busy.
LOAD = [1.0, 0.8, 0.35, 0.9, 0.4, 0.95, 1.0, 0.9, 1.0]


def _variant(count: int, thr: float, rounds=range(6)) -> VariantResult:
    p = params(count, True)
    lv = [
        LevelResult(
            8,
            1,
            r,
            throughput_infer_per_s=thr * LOAD[r],
            latency_p99_ms=8000.0 / (thr * LOAD[r]),
            avg_server_batch_size=4.0,
            host_busy=LOAD[r] < 0.5,
            host_busy_pct=60.0 if LOAD[r] < 0.5 else 0.0,
        )  # fmt: skip
        for r in rounds
    ]
    return VariantResult(p["name"], p, "ok", None, lv, build_check=BuildCheck())


def _run(*variants: VariantResult) -> RunResult:
    run = RunResult("r", "now", {}, {}, list(variants))
    run.rounds = RoundsRecord(seed=1)
    return run


def test_a_rounds_sweep_pairs_each_effect_over_shared_rounds_despite_busy_ones() -> None:
    run = _run(_variant(1, 1000.0), _variant(2, 1300.0))
    (effect,) = [e for e in main_effects(run, run_points(run)) if e.factor.key == "count"]
    (pair,) = effect.pairs
    assert pair.throughput_note is None and pair.throughput_sig is True
    assert abs(pair.throughput_pct - 30.0) < 1e-6  # the per-round ratio, whatever the round's load
    assert pair.p99_sig is True and abs(pair.p99_pct - (1000.0 / 1300.0 - 1) * 100) < 1e-6
    # the same numbers measured one after another: the busy levels make the pair no evidence
    run.rounds = None
    (seq,) = [e for e in main_effects(run, run_points(run)) if e.factor.key == "count"]
    assert seq.pairs[0].throughput_note.startswith("not measured fairly")


def test_a_pair_that_never_shared_a_round_is_not_measured_fairly() -> None:
    run = _run(_variant(1, 1000.0, rounds=range(3)), _variant(2, 1300.0, rounds=range(3, 6)))
    (effect,) = [e for e in main_effects(run, run_points(run)) if e.factor.key == "count"]
    assert effect.pairs[0].throughput_note == NEVER_TOGETHER and effect.throughput is None


def test_two_shared_rounds_are_too_few_for_the_paired_rule() -> None:
    # a consistent 1.3x gap: 3 rounds all agreeing could call it (the large-gap tier), 2 cannot
    run = _run(_variant(1, 1000.0, rounds=range(2)), _variant(2, 1300.0, rounds=range(2)))
    (effect,) = [e for e in main_effects(run, run_points(run)) if e.factor.key == "count"]
    assert effect.pairs[0].throughput_sig is False and effect.pairs[0].throughput_note is None


def test_a_shape_sweep_in_rounds_folds_its_rounds_and_pairs_within_one_shape() -> None:
    # the trial's crash: `--shapes seq=8,64` in rounds; the shape string went into the medians
    from perf.analysis.recommendation.recommend import recommend
    from perf.analysis.stats.points import aggregate
    from perf.records.workloads import split_by_workload

    lv = [LevelResult(2, 1, r, throughput_infer_per_s=100.0 + r, latency_p99_ms=2.0, shape="seq=8") for r in range(2)]
    (p,) = aggregate(lv, "v")
    assert p.trials == 2 and "shape" not in p.median
    a, b = _variant(1, 1000.0), _variant(2, 1300.0)
    for v in (a, b):
        v.levels = [dataclasses.replace(x, shape=s) for x in v.levels for s in ("seq=8", "seq=64")]
    run = split_by_workload(_run(a, b))
    assert recommend(run).best_peak is not None
    (effect,) = [e for e in main_effects(run, run_points(run)) if e.factor.key == "count"]
    assert len(effect.pairs) == 2 and all(d.throughput_sig and abs(d.throughput_pct - 30.0) < 1e-6 for d in effect.pairs)


def test_an_effect_over_pairs_is_significant_only_when_every_pair_is_by_the_paired_rule() -> None:
    # the trial: "+26.1 % (min–max +19.0 to +33.2)" unqualified while both pairs were "not significant"
    from perf.analysis.effects.diffs import summarise

    assert summarise([19.0, 33.2]).significant is True  # one after another: the spread over pairs decides
    s = summarise([19.0, 33.2], paired=[False, False])
    assert s.significant is False and s.describe().endswith("; not significant: 2 of 2 pairs not separated by the paired rule)")
    assert summarise([19.0, 33.2], paired=[True, True]).significant is True
    one = summarise([30.0], True, paired=[True])
    assert one.describe() == "+30.0 % (1 pair; significant by the paired rule)"  # not "beyond its trial spread"


def test_the_conclusions_say_a_change_never_measured_together_in_a_sentence_that_reads_right() -> None:
    # the demo: "That is not measured fairly: the two levels were never measured in the same round over the
    # 1-instance, no-batching baseline ..."
    from perf.analysis.recommendation.recommend import recommend
    from perf.report.conclusions.written import conclusions

    base = _variant(1, 1000.0, rounds=range(3))
    base.params = params(1, False)
    base.name = base.params["name"]
    run = _run(base, _variant(2, 1300.0, rounds=range(3, 6)), _variant(1, 900.0, rounds=range(6, 9)))
    text = "\n".join(conclusions(run, recommend(run, None)))
    assert "That is not measured fairly" not in text
    assert (
        f"Its change over the 1-instance, no-batching baseline `{base.name}` (best measured " in text
    )  # its curve still rose: no peak
    assert f") is {NEVER_TOGETHER}." in text
    assert f"its change against the best is {NEVER_TOGETHER}." in text  # the runner-up
