"""A tie set's pick accounts for every variant, and says of each member the true reason the rule
did not call it (perf.analysis.ranking.standing), read back from the written report (trial 9):

- F17: a pick under a what-if budget named a tie set of 4 of 8 variants; the other 4 (none with a
  level within the budget) were said nowhere;
- F6: "too few rounds for the rule to call it" beside 3 rounds, which the large-gap tier had and
  failed on their spread, with the sign test's p shown, not that tier's;
- F18: "every one of its 1 round", "(1 round, 2.37–2.37 times)".
"""

from __future__ import annotations

from pathlib import Path

from factories import level_result, run_result, variant_result
from tables import bullet_block

from perf.analysis.ranking.operating import Side, compare
from perf.analysis.stats.paired import paired
from perf.records import results
from perf.records.rounds import RoundsRecord
from perf.report.write import write_report


def _variant(name: str, thr: list[float], p99: float):
    return variant_result(name, [level_result(4, t, p99, trial=r, spread=True) for r, t in enumerate(thr)])


def _run(tmp_path: Path) -> Path:
    variants = [
        _variant("lead", [1000, 1010, 990], 3.0),
        _variant("once", [420], 3.0),  # behind in its only round
        _variant("uneven", [120, 670, 115], 3.0),  # 1.5-8.6x behind in every round: too uneven, one round under 2x
        _variant("close", [950, 800, 700], 3.0),  # behind in every round, one by less than 1.1x
        _variant("half", [500, 505, 495], 3.0),  # 2x behind in every round, alike: the large-gap tier calls it
        _variant("over", [480, 520, 500], 50.0),  # no level within the budget
        _variant("slower", [300, 310, 290], 20.0),  # nor this one
    ]
    run = run_result(variants, settings={"latency_budget_ms": 10.0, "design": "rounds"}, rounds=RoundsRecord(seed=1))
    results.save(run, tmp_path)
    return tmp_path


def test_every_variant_outside_the_tie_set_is_accounted_for(tmp_path: Path) -> None:
    text = write_report(_run(tmp_path)).read_text()
    under = bullet_block(text, "- **Best under the p99 budget of 10.00 ms:** `lead`")  # the pick and its bullets
    assert "did not separate it from 3 others (the tie set follows)" in under
    outside = (
        "the 3 others outside the tie set: it beats 1 by the rule; 2 have no level within the budget: "
        "`over` (lowest p99 50.00 ms, at c=4), `slower` (lowest p99 20.00 ms, at c=4)"
    )
    assert under.count(outside) == 1  # under the pick: a bullet, or beside its tie set's where they fit one line (packed)
    # said once, in the Recommendation; the Paired ranking's tie set points to it (trial 19, T19-17)
    assert text.split("## Said by the sweep")[0].count(outside[4:]) == 1
    tie = next(ln for ln in text.splitlines() if ln.startswith("- **Tie set**"))
    assert "3 members besides the pick, each with its rounds, and the others: see Recommendation." in tie
    assert outside[4:] not in tie
    numbers = bullet_block(text, "**The numbers.**")  # not "the best is" a tie's first; a bullet a comparison
    assert "Under the p99 budget of 10.00 ms the pick, named first of a tie set (see Recommendation), is `lead`" in numbers
    assert "; the rule did not separate it from 3 others; measured in 3 rounds, fewer than the 6 a verdict needs;" in numbers
    assert "the best is `lead`" not in numbers


def test_each_member_says_why_the_rule_did_not_call_it(tmp_path: Path) -> None:
    text = write_report(_run(tmp_path)).read_text()
    tie = bullet_block(text, "- **Best under the p99 budget of 10.00 ms:** `lead`")  # its members, bullets under it
    assert "`once` at c=4 (1 round, 2.38 times; too few rounds)" in tie and "2.38–2.38" not in tie
    assert "`uneven` at c=4 (3 rounds, 1.51–8.61 times; too uneven for 3 rounds to tell, p 0.0" in tie
    assert "`close` at c=4 (3 rounds, 1.05–1.41 times; not every round apart by 1.1× or more)" in tie
    ranking = text.split("## Paired ranking", 1)[1].split("- **Tie set**", 1)[1].split("\n\n- ", 1)[0]  # its table
    rows = {ln.split("|")[1].strip(): ln for ln in ranking.splitlines() if ln.startswith("| `")}
    once, uneven, close = rows["`once`"], rows["`uneven`"], rows["`close`"]
    assert "behind the pick in its only round; too few rounds for the rule to call it (a large gap needs 3, else 6)" in once
    assert "every one of its 1 round" not in once and "2.381–2.381" not in once and "(one round)" in once
    assert "behind the pick in every one of its 3 rounds; by too uneven an amount for 3 rounds to tell" in uneven
    assert "too few rounds" not in uneven and "(gap)" in uneven  # the p of the test that failed, not the sign test's 0.25
    assert "not every round apart by 1.1× or more, so only the sign test could call it, and it needs 6 rounds" in close
    assert "0.25 (sign)" in close  # the sign test is the one that did not call it here


def test_the_p_shown_is_the_tier_that_could_have_called_it() -> None:
    uneven = paired([1000, 1010, 990], [120, 670, 115])
    assert uneven is not None and uneven.verdict == "not distinguishable" and uneven.gap_p_value is not None
    assert uneven.tier == "gap" and uneven.decided_p == uneven.gap_p_value
    close = paired([1000, 1010, 990], [950, 800, 700])
    assert close is not None and close.tier == "sign" and close.decided_p == close.p_value == 0.25
    one = paired([1000], [420])
    assert one is not None and "2.38× in the one round both were measured (p = 1, sign test)" == one.spread_text()


def test_one_round_is_said_as_one() -> None:
    lead, once = _variant("lead", [1000, 1010, 990], 3.0), _variant("once", [420], 3.0)
    c = compare(lead, Side("lead", 4), once, Side("once", 4))
    # ahead in its one round: said so, with why the rule did not call it, not "not distinguishable" (trial 15, T15-2)
    assert "`lead` ahead of `once` in the one round, but not called: too few rounds for the rule to call it (a large gap needs 3, else 6)" == c.verdict_words()  # fmt: skip
    assert "in the one round both were measured" in c.sentence() and "1 rounds" not in c.sentence()


def test_the_paired_rankings_tie_set_names_every_member_it_counts(tmp_path: Path) -> None:
    # trial 23, T23-13: "5 members besides the pick" then 4 names; a member behind in every round was named nowhere there
    text = write_report(_run(tmp_path)).read_text()
    tie = next(ln for ln in text.splitlines() if ln.startswith("- **Tie set**"))
    assert "3 members besides the pick" in tie
    assert all(f"`{n}`" in tie for n in ("once", "uneven", "close"))
    assert ": behind it in every round they shared, not called by the rule." in tie
