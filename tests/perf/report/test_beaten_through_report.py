"""Every output that states what the pick beats gives one level one verdict, its own (trial 26, T26-1: report.md's
Recommendation and Paired ranking, export-deployment's chosen level and the bundle's README said the pick "beats
every other ranked variant (7, 4 by the sign test ...)" where it had 3 verdicts of its own and another variant had
beaten the other 4). perf.report.sections.recommendation, perf.report.sections.ranking, perf.deploy.choose."""

from __future__ import annotations

from drop_runs import BUDGET_MS, drop_run

from perf.analysis.recommendation.recommend import recommend
from perf.analysis.stats.points import run_points
from perf.deploy.choose import choose_variant
from perf.report.sections.ranking import VERDICT_ABOVE, comparison_lines, ranking_lines
from perf.report.sections.recommendation import recommendation_section

OWN = "it beats 3 of the 7 others by its own paired rounds, by the sign test after 8 rounds"
THROUGH = (
    "4 were beaten by `x` at c=4, which the pick beats by the rule, and dropped by the search: not compared with the pick itself"
)


def test_the_recommendation_and_the_paired_ranking_count_only_the_picks_own_verdicts() -> None:
    run = drop_run()
    rec = recommend(run, BUDGET_MS)
    said = "\n".join(recommendation_section(rec, run_points(run), run=run))
    ranking = "\n".join(ranking_lines(run, rec))  # the Recommendation names its picks: pointed to, said once
    alone = "\n".join(comparison_lines(rec.ranking_under_budget, "Best under the budget", 99, BUDGET_MS, run=run))
    for text in (said, ranking, alone):
        assert "beats every other ranked variant" not in text and "(7," not in text, text
        assert "4 by the sign test" not in text, text  # the dropped ones' verdicts are x's, not the pick's
    assert f"{OWN}; {THROUGH}" in said, said
    assert f"- By the rule (paired rounds at 5 %) {OWN}; {THROUGH}: `y0` at c=4" in alone, alone
    assert ranking.count(f"- {VERDICT_ABOVE}") == 2, ranking
    # the best measured of the same level: the same count, its own 3
    assert said.count("it beats 3 of the 7 others") == 2


def test_the_chosen_level_of_a_bundle_says_the_same_verdict() -> None:
    """export-deployment's ``chosen level:`` line and the README's "Why this variant" both print this."""
    chosen = choose_variant(drop_run(), allow_unfinished=True)
    said = chosen.level.describe()
    assert chosen.variant == "p" and "beats every other ranked variant" not in said, said
    assert f"{OWN}; {THROUGH}" in said, said


def test_a_tied_pick_in_the_paired_ranking_names_what_the_other_member_beat() -> None:
    run = drop_run("ties")
    rec = recommend(run, BUDGET_MS)
    text = "\n".join(recommendation_section(rec, run_points(run), run=run)) + "\n".join(ranking_lines(run, rec))
    assert "it beats 6" not in text and "it beats 2 by the rule; 4 were beaten by `x` at c=4" in text, text
