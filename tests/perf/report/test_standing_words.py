"""The pick's standing in words (perf.analysis.ranking.standing), read back from the written report: a
tie-set member behind the pick in every one of its few rounds is said so with its ratios, never
"not distinguishable at this noise" (trial 6: 3.5-17.8x slower in every round, listed as a tie of
the pick); "beats every other ranked variant" says what the others were (trial 6: "(5; ...)" with 8
variants, 2 without a level within the budget, and in a short budget 5 never measured)."""

from __future__ import annotations

from pathlib import Path

from factories import level_result, run_result, variant_result
from tables import bullet_block

from perf.records import results
from perf.records.rounds import Cut, RoundsRecord
from perf.report.sections.ranking import VERDICT_ABOVE
from perf.report.write import write_report


def _variant(name: str, thr: list[float], p99: float):
    return variant_result(name, [level_result(4, t, p99, trial=r, spread=True) for r, t in enumerate(thr)])


def _run(tmp_path: Path) -> Path:
    variants = [
        _variant("lead", [1000, 1010, 990], 5.0),
        _variant("half", [500, 505, 495], 5.0),  # 2x behind, every round alike: the large-gap tier calls it
        _variant("slow", [120, 670, 115], 50.0),  # 1.5-8.6x behind in every round: too uneven, one round under 2x
        _variant("over", [480, 520, 500], 50.0),  # no level within the 10 ms budget
        variant_result("cut"),  # never measured
    ]
    rounds = RoundsRecord(seed=1, cuts=[Cut("variant", "not measured: 5 variants need about 200 s", "cut")])
    run = run_result(variants, settings={"latency_budget_ms": 10.0, "design": "rounds"}, rounds=rounds)
    results.save(run, tmp_path)
    return tmp_path


def test_a_member_behind_in_every_one_of_its_few_rounds_is_not_called_a_tie(tmp_path: Path) -> None:
    text = write_report(_run(tmp_path)).read_text()
    lines = text.splitlines()
    peak = next(
        bullet_block(text, ln) for ln in lines if ln.startswith("- **Best measured throughput") and ":** `lead`" in ln
    )  # the pick, its tie set's members on its line or in bullets under it
    assert "did not separate it from 1 other (the tie set follows)" in peak
    assert "behind the pick in every round it shared, not called by the rule: " in peak
    assert "`slow` at c=4 (3 rounds, 1.51–8.61 times; too uneven for 3 rounds to tell, p 0.0" in peak
    assert "not distinguishable" not in peak
    tie = next(ln for ln in lines if ln.startswith("- **Tie set**"))  # the Paired ranking's: said once, above
    assert "see Recommendation" in tie and "`slow` at c=4 (3 rounds" not in tie and "not distinguishable" not in tie
    assert text.count("`slow` at c=4 (3 rounds, 1.51–8.61 times; too uneven") == 1
    ranking = text.split("## Paired ranking", 1)[1]
    row = next(ln for ln in ranking.splitlines() if ln.startswith("| `slow`"))
    # its 3 rounds were enough for the large-gap tier, which failed on their spread: said so, with that test's p
    # (trial 9: "too few rounds for the rule to call it" beside "0.25 (sign)")
    assert (
        "behind the pick in every one of its 3 rounds; by too uneven an amount for 3 rounds to tell (large consistent gap t-test p = 0.0"
        in row
    )
    assert (
        "needs ≤ 0.005, or every round more than 2× apart), and the sign test needs 6 rounds all one way: more rounds could tell"
        in row
        and "too few rounds" not in row
    )
    assert "(gap)" in row and "(sign)" not in row


def test_beats_every_other_says_what_the_others_were(tmp_path: Path) -> None:
    text = write_report(_run(tmp_path)).read_text()
    under = next(ln for ln in text.splitlines() if ln.startswith("- **Best under the p99 budget of 10.00 ms:**"))
    assert (
        "beats every other ranked variant (1 of the 4 others, on a large, consistent gap after 3 rounds; 2 have no level "
        "within the budget: `slow` (lowest p99 "
        "50.00 ms, at c=4), `over` (lowest p99 50.00 ms, at c=4); 1 was not measured: cut for time: `cut`; paired rounds at 5 %)"
    ) in under
    ranking = text.split("## Paired ranking", 1)[1]  # the same verdict, said once: pointed to (trial 26, T26-1)
    assert f"- {VERDICT_ABOVE}" in ranking and "(1 of the 4 others" not in ranking


def test_the_pick_of_a_run_of_one_variant_counts_no_others(tmp_path: Path) -> None:
    """A run of one variant: its pick is the only variant ranked, said without a count of others (issue 26:
    "the only ranked variant (0)" in report.md's Recommendation and the console's note)."""
    run = run_result([_variant("lead", [1000, 1010, 990], 5.0)], settings={"latency_budget_ms": 10.0, "design": "rounds"})
    run.rounds = RoundsRecord(seed=1)
    results.save(run, tmp_path)
    text = write_report(tmp_path).read_text()
    picks = [ln for ln in text.splitlines() if ln.startswith("- **") and ":** `lead`" in ln and " — " in ln]
    assert picks and all("the only variant ranked: no other to compare it with" in ln for ln in picks), picks
    assert "(0)" not in text and "0 of the" not in text
