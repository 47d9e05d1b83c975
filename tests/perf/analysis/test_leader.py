"""The variant named first in a tie set is never one another member was ahead of in the rounds both
had (perf.analysis.ranking.leader): the trial's report named a pick "for its higher round-adjusted throughput"
above a runner-up ahead of it in 3 of 3 shared rounds (median ratio 0.73), because the runner-up's
three later rounds in a late group, one of them an outlier, pulled its round-adjusted value down."""

from __future__ import annotations

from perf.analysis.ranking.rank import rank_variants
from perf.analysis.recommendation.recommend import recommend
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.rounds import RoundsRecord


def _vr(name: str, by_round: dict[int, float], p99: float = 5.0) -> VariantResult:
    levels = [LevelResult(4, 1, r, throughput_infer_per_s=t, latency_p99_ms=p99) for r, t in by_round.items()]
    return VariantResult(name, status="ok", levels=levels)


def test_a_member_ahead_in_the_shared_rounds_is_named_first_not_the_higher_round_adjusted() -> None:
    a = _vr("a", {0: 1000.0, 1: 1000.0, 2: 1000.0})
    b = _vr("b", {0: 1100.0, 1: 1090.0, 2: 1120.0, 3: 100.0, 4: 110.0, 5: 105.0})  # later rounds: far lower
    # measured in every round: the later rounds were not slower; a lower p99 than `b`'s, so `b` is not better on both
    # medians (then it is named first over `c` by those: trial 30, F10)
    c = _vr("c", {r: 500.0 for r in range(6)}, p99=4.0)
    rank = rank_variants([a, b, c], cores=None)
    assert rank.leader is not None and rank.leader.side.variant == "b"
    comp = next(x for x in rank.comparisons if x.b.variant == "a")
    assert comp.result is not None and comp.result.median > 1.0  # the leader is ahead of `a` in their shared rounds
    assert rank.names[:2] == ["b", "a"]  # a tie: 3 rounds cannot call it
    run = RunResult("r", "now", variants=[a, b, c])
    run.rounds = RoundsRecord(seed=1)
    text = recommend(run).best_peak.describe()
    assert text.startswith("`b`") and "named first by throughput in the rounds it shared" not in text
    # it trailed `c` in the (geometric) median of their 6 shared rounds; `c` is beaten by `a`, so it does not lead (T21-9)
    assert "named first by round-adjusted throughput, not by the rounds it shared with each: it trailed `c`" in text


def test_when_the_medians_go_round_the_round_adjusted_order_decides() -> None:
    # x ahead of y, y ahead of z, z ahead of x (each in the median of their two shared rounds): no one is
    # ahead of every other, and the round-adjusted order names the first
    x = _vr("x", {0: 1000.0, 1: 1000.0, 4: 990.0, 5: 1010.0})
    y = _vr("y", {0: 990.0, 1: 980.0, 2: 1000.0, 3: 1000.0})
    z = _vr("z", {2: 990.0, 3: 985.0, 4: 1000.0, 5: 1020.0})
    rank = rank_variants([x, y, z], cores=None)
    assert rank.leader is not None and set(rank.names) == {"x", "y", "z"}


def test_one_shared_round_does_not_name_first_a_variant_of_half_the_throughput() -> None:
    """Trial 19, T19-20: a resume's final group shared one round between the leader (1,567 infer/s over 7
    rounds; 926 in that busy round) and a variant it cut before (755 over 3; 1,001 in that round): the report
    named the second "best measured throughput"."""
    a = _vr("onnx", {0: 1704.0, 1: 1933.0, 2: 1433.0, 3: 1513.0, 4: 2252.0, 5: 1567.0, 6: 926.0})
    b = _vr("ts", {6: 1001.0, 7: 590.0, 8: 755.0})
    rank = rank_variants([a, b], cores=None)
    assert rank.leader is not None and rank.leader.side.variant == "onnx"
    run = RunResult("r", "now", variants=[a, b])
    run.rounds = RoundsRecord(seed=1)
    assert recommend(run).best_peak.describe().startswith("`onnx`")
