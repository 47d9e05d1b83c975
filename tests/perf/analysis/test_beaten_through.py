"""What the pick beats by its own paired rounds, apart from what another variant beat in its place (trial 26, T26-1:
report.md said the pick "beats every other ranked variant (7, 4 by the sign test after 6–9 rounds, 3 on a large,
consistent gap after 4 rounds)" and, three lines below, of the same level, "it beats 3 of the 7 others ...; 4 not
compared": 4 runner-ups had been beaten by another variant, which the search dropped them on).
perf.analysis.ranking.rank.Ranking.beaten / beaten_through, perf.analysis.ranking.standing_words.others_words,
through_parts, beats_words, perf.analysis.recommendation.choice.Choice.verdict."""

from __future__ import annotations

from drop_runs import BUDGET_MS, drop_run

from perf.analysis.ranking.compared_at import elsewhere_words
from perf.analysis.recommendation.recommend import recommend
from perf.analysis.stats.points import run_points
from perf.plots.picks import PEAK, Pick, higher_words
from perf.report.conclusions.pairs import ranked_text

DROPPED = ["y0", "y1", "y2", "y3"]
#: The pick's own verdicts of the trial's shape: 3 of the 7 others, each by the sign test after its 8 rounds.
OWN = "it beats 3 of the 7 others by its own paired rounds, by the sign test after 8 rounds"
#: The 4 another variant beat: said with that variant and how the pick stands against it.
THROUGH = (
    "4 were beaten by `x` at c=4, which the pick beats by the rule, and dropped by the search: not compared with the "
    "pick itself: `y0` at c=4, `y1` at c=4, `y2` at c=4, `y3` at c=4"
)


def test_the_ranking_keeps_the_picks_own_verdicts_apart_from_another_variants() -> None:
    ranking = recommend(drop_run(), BUDGET_MS).ranking_under_budget
    assert ranking is not None and ranking.leader is not None and ranking.leader.side.variant == "p"
    assert sorted(c.b.variant for c in ranking.beaten()) == ["x", "z0", "z1"]
    through = ranking.beaten_through()
    assert sorted(c.b.variant for c in through) == DROPPED and {c.a.variant for c in through} == {"x"}


def test_a_pick_that_beats_the_variant_that_dropped_the_others_counts_only_its_own_verdicts() -> None:
    rec = recommend(drop_run(), BUDGET_MS)
    under, peak = rec.best_under_budget, rec.best_peak
    assert under is not None and peak is not None and (under.variant, under.concurrency) == (peak.variant, peak.concurrency)
    said = under.describe()
    assert "beats every other ranked variant" not in said and "(7," not in said, said
    assert f"by the rule (paired rounds at 5 %) {OWN}; {THROUGH}" in said, said
    assert sorted(under.beats) == ["x", "z0", "z1"] and sorted(under.through) == DROPPED
    # the same level by peak (the drops hold under the budget only): the same count of its own verdicts
    assert "it beats 3 of the 7 others, by the sign test after 8 rounds; 4 not compared" in peak.describe()


def test_a_pick_tied_with_that_variant_is_never_said_to_beat_what_it_beat() -> None:
    rec = recommend(drop_run("ties"), BUDGET_MS)
    u = rec.best_under_budget
    assert u is not None and u.tie_set == ["p", "x"], u
    said = u.describe()
    assert "it beats 6" not in said, said
    assert (
        "the 6 others outside the tie set: it beats 2 by the rule; 4 were beaten by `x` at c=4, which the rule did not "
        "separate from the pick (its tie set), and dropped by the search: not compared with the pick itself"
    ) in said, said
    assert sorted(u.beats) == ["z0", "z1"] and sorted(u.through) == DROPPED


def test_a_pick_with_only_its_own_verdicts_beats_every_other() -> None:
    u = recommend(drop_run(dropped=0), BUDGET_MS).best_under_budget
    assert u is not None and u.through == []
    assert "beats every other ranked variant (3, by the sign test after 8 rounds; paired rounds at 5 %)" in u.describe()


def test_a_dropped_runner_ups_other_words_name_the_variant_that_beat_it() -> None:
    """The Conclusions' comparison, the console row's note and a plot's legend: another variant's verdict is never the
    pick's ("the pick beats it", "the pick ahead", "behind it by the paired rule")."""
    run = drop_run(budget_ms=None)  # a drop by peak: it holds in the best peak's ranking
    rec = recommend(run, None)
    assert rec.ranking is not None and rec.best_peak is not None
    said = ranked_text(run, rec, "y0")
    assert said is not None and "the pick beats it" not in said and "`x` at c=4 beats it" in said, said
    c = next(c for c in rec.ranking.comparisons if c.b.variant == "y0")
    note = elsewhere_words(c, "best peak", rec.ranking)
    assert note.startswith("not compared with the best peak: `x` at c=4 beats it"), note
    pick = Pick(PEAK, rec.best_peak, rec.best_peak.latency_p99_ms, "best peak")
    legend = higher_words(pick, run_points(run)["y0"])  # as if y0's level were higher than the pick's
    assert "behind it by the paired rule" not in legend and "behind another variant" in legend, legend
