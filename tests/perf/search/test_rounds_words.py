"""A group's "(after N rounds)" counts what the report's "measured in N rounds" counts, or says
why not (trial 6, a resumed run: "measured in 9 rounds" beside "ranking settled ... (after 8 rounds)":
one round, cut short by the interrupt, did not measure every variant)."""

from __future__ import annotations

from perf.records.rounds import RoundRecord, RoundsRecord, Visit
from perf.search.rounds import _rounds_words


def test_rounds_not_all_whole_are_said_beside_every_round() -> None:
    whole = [RoundRecord(r, 0, r, "now", 1.0, [Visit("a", 4), Visit("b", 4)]) for r in range(8)]
    cut = RoundRecord(8, 0, 8, "now", None, [Visit("a", 4)])
    assert _rounds_words(RoundsRecord(seed=1, rounds=whole), ["a", "b"], 8) == "8 rounds"
    said = _rounds_words(RoundsRecord(seed=1, rounds=[*whole, cut]), ["a", "b"], 8)
    assert said == "8 rounds in which all of them were measured, of 9"
