"""A level's notes over its rounds are said once, with the count and the range (perf.analysis.stats.notes)."""

from __future__ import annotations

from factories import level_result

from perf.analysis.stats.notes import notes_text
from perf.analysis.stats.points import aggregate

BUSY = "other processes used {} % of one core during the visit (threshold 10 %)"
SPREAD = "its 3 windows' throughput spread {} % (more than ±10 %)"


def test_notes_that_differ_only_in_their_numbers_are_said_once_with_the_count_and_range():
    notes = [SPREAD.format(79), BUSY.format(92), SPREAD.format(132), BUSY.format(112), SPREAD.format(21), BUSY.format(92)]
    assert notes_text(notes, "round") == (
        "in 3 rounds, its 3 windows' throughput spread 21–132 % (more than ±10 %); "
        "in 3 rounds, other processes used 92–112 % of one core during the visit (threshold 10 %)"
    )


def test_a_single_note_is_kept_as_it_is_and_none_gives_nothing():
    assert notes_text([BUSY.format(1_234)]) == BUSY.format(1_234)
    assert notes_text([]) == ""
    assert notes_text([BUSY.format(50), BUSY.format(50)], "round") == "in 2 rounds, " + BUSY.format(50)


def test_a_level_keeps_one_note_per_round_so_the_count_is_the_rounds():
    """Two rounds with the same numbers are two rounds, not one (the aggregate keeps repeats)."""
    rounds = [level_result(1, 100.0, 2.0, trial=t, host_busy=True, notes=[BUSY.format(92)]) for t in range(2)]
    (point,) = aggregate(rounds, "v")
    assert notes_text(point.notes, "round") == "in 2 rounds, " + BUSY.format(92)
