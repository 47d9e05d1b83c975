"""A group's "(after N rounds)" counts what the report's "measured in N rounds" counts (trial 6, a
resumed run: "measured in 9 rounds" beside "ranking settled ... (after 8 rounds)": one round, cut
short by the interrupt, did not measure every variant). A round with a visit is a round of its
group, whole or not (perf.records.rounds.RoundsRecord.group_rounds); one with none is no round."""

from __future__ import annotations

from perf.records.rounds import LoadGroup, RoundRecord, RoundsRecord, Visit


def test_a_round_cut_short_is_a_round_and_an_empty_one_is_none() -> None:
    whole = [RoundRecord(r, 0, r, "now", 1.0, [Visit("a", 4), Visit("b", 4)]) for r in range(8)]
    cut = RoundRecord(8, 0, 8, "now", None, [Visit("a", 4)])
    empty = RoundRecord(9, 0, 9, "now", None, [])
    rec = RoundsRecord(seed=1, groups=[LoadGroup(0, ["a", "b"], "fits")], rounds=[*whole, cut, empty])
    assert len(rec.group_rounds(0)) == len(rec.measured()) == 9
