"""The tie set in words (perf.report.sections.ranking.tie_set_words): a member that shared too few rounds
with the pick is not called "as good a choice" (the demo's peak tie set held all 8 variants, a
pruned one 8.8x behind in each of its 3 rounds, under "any of them is as good a choice")."""

from __future__ import annotations

from perf.analysis.ranking.rank import rank_variants
from perf.records.levels import LevelResult
from perf.records.results import VariantResult
from perf.report.sections.ranking import tie_set_words


def _vr(name: str, per_round: list[float]) -> VariantResult:
    lv = [LevelResult(4, 1, r, throughput_infer_per_s=t, latency_p99_ms=5.0) for r, t in enumerate(per_round)]
    return VariantResult(name, status="ok", levels=lv)


def test_members_with_too_few_shared_rounds_are_not_called_as_good() -> None:
    lead = _vr("lead", [1000, 1010, 990, 1005, 995, 1000, 1002, 998])
    close = _vr("close", [1001, 1000, 995, 1000, 1001, 990, 1003, 1001])  # 8 rounds, alternating: a true tie
    early = _vr("early", [120, 670, 115])  # 3 rounds, 1.5-8.8x behind, too noisy for the large-gap tier
    rank = rank_variants([lead, close, early], cores=None)
    assert rank.names[0] in ("lead", "close") and set(rank.names) == {"lead", "close", "early"}
    words = tie_set_words(rank, pruned={"early"})
    other = "close" if rank.names[0] == "lead" else "lead"
    assert f"`{other}` at c=4 shared at least 6 rounds with it at c=4: not distinguishable from it at this noise" in words
    assert "behind the pick in every round it shared, not called by the rule: `early` at c=4 (3 rounds, " in words
    assert "That is no evidence that it is as good" in words
    assert "the search stopped measuring `early`, so this ranking has only their early rounds" in words
    assert "`early` at c=4 shared at least" not in words and "any of them is as good" not in words


def test_a_member_the_rule_did_not_separate_is_not_distinguishable_never_as_good_a_choice() -> None:
    """Trial 22, F-tie-words: a member 1.75x behind the pick in the median of 6 shared rounds, ahead in 2 (sign test
    p 0.69), was "as good a choice on this evidence"; a tie is the rule not telling them apart, not a recommendation.
    Both words of a member the rule's rounds did not separate: it shared 6 rounds, or the rounds left could not have."""
    import dataclasses

    from perf.analysis.ranking.standing import SETTLED, kind

    lead = _vr("lead", [1618, 1700, 1500, 1650, 900, 1600])
    slow = _vr("slow", [870, 980, 860, 940, 1000, 700])  # behind in 4 of 6 (1.75x and more), ahead in 1
    slow.levels[3] = LevelResult(4, 1, 3, throughput_infer_per_s=1700.0, latency_p99_ms=5.0)  # ahead in 2 of 6
    rank = rank_variants([lead, slow], cores=None)
    assert rank.names == ["lead", "slow"] and rank.comparisons[0].verdict == "not distinguishable"
    words = tie_set_words(rank)
    assert "as good a choice" not in words
    assert "`slow` at c=4 shared at least 6 rounds with it at c=4: not distinguishable from it at this noise" in words
    short = dataclasses.replace(rank.comparisons[0], rounds=(0, 1, 2, 3, 4), rounds_left=1)  # settled: 1 left cannot separate
    assert kind(short) == SETTLED
    words = tie_set_words(dataclasses.replace(rank, comparisons=[short]))
    assert (
        "as good a choice" not in words and "`slow` at c=4: not distinguishable from it at this noise (the rounds left" in words
    )
