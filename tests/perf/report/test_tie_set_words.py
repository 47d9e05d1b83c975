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
    assert f"`{other}` shared at least 6 rounds with it: as good a choice on this evidence" in words
    assert "behind it in every round it shared, not called by the rule: `early` (3 rounds, " in words
    assert "That is no evidence that it is as good" in words
    assert "the search stopped measuring `early`, so this ranking has only their early rounds" in words
    assert "`early` shared at least" not in words and "any of them is as good" not in words
