"""A variant whose level never shared a round with the pick's is *not compared*: neither beaten nor
tied (perf.analysis.ranking.standing.kind, one rule for every place that words a tie set).

Trial 11, F9: the best peak's level (c=2) joined the ladder after the runner-ups' levels (c=4)
retired, so the two never shared a round; the report said "not distinguishable at this noise from
... (0 rounds; further rounds could not have separated them ...)", "as good a choice on this
evidence" and put them in the pick's tie set, beside a table row "never in the same round".
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from factories import level_result, run_result, variant_result
from tables import bullet_block

from perf.analysis.ranking.operating import MIN_ROUNDS
from perf.analysis.ranking.rank import rank_variants
from perf.analysis.ranking.standing import NOT_COMPARED, contention, kind, rounds_left, settled, settled_words, uncompared
from perf.analysis.recommendation.recommend import recommend
from perf.records import results
from perf.records.results import RunResult
from perf.records.rounds import LoadGroup, RoundRecord, RoundRules, RoundsRecord, Visit
from perf.report.write import write_report

ROUNDS = 8  # of a group of at most RoundRules().max_rounds: the rounds left are fewer than a verdict needs


def _levels(c: int, rounds: range, thr: list[float], p99: float) -> list:
    return [level_result(c, t, p99, trial=r, spread=True) for r, t in zip(rounds, thr)]


def _run() -> RunResult:
    """``lead``'s best level (c=2) joined at round 3; ``apart``'s only level (c=4) retired after round 2."""
    lead = variant_result(
        "lead",
        _levels(1, range(ROUNDS), [1000, 1010, 990, 1005, 995, 1000, 1003, 998], 2.0)
        + _levels(2, range(3, ROUNDS), [1400, 1420, 1390, 1410, 1405], 3.0),
    )
    apart = variant_result("apart", _levels(4, range(3), [1010, 990, 1005], 6.0))
    peer = variant_result(  # shares every round with lead's c=2: a tie the rule could have called
        "peer",
        _levels(2, range(3, ROUNDS), [1410, 1400, 1400, 1400, 1410], 3.0),
    )
    rounds = [
        RoundRecord(r, 0, 1 + r, "now", order=[Visit("lead", 1)]) for r in range(ROUNDS)
    ]  # the visits' detail is not what is read here
    record = RoundsRecord(seed=1, groups=[LoadGroup(0, ["lead", "apart", "peer"], "every contender fits")], rounds=rounds)
    return run_result([lead, apart, peer], settings={"design": "rounds"}, rounds=record)


def test_a_pair_without_a_common_round_is_not_compared_and_not_in_the_tie_set() -> None:
    run = _run()
    rank = rank_variants(run.variants, cores=None)
    assert rank.leader is not None and rank.leader.side.variant in ("lead", "peer")
    apart = next(c for c in rank.comparisons if c.b.variant == "apart")
    assert not apart.rounds and apart.result is None
    assert "apart" not in rank.names and [c.b.variant for c in uncompared(rank)] == ["apart"]
    assert contention(rank) == [*rank.names, "apart"]  # the rounds keep it in contention (a final group holds it)
    assert set(rank.names) == {"lead", "peer"}  # the pair that shared rounds stays a tie
    left = dataclasses.replace(apart, rounds_left=rounds_left(run, apart))
    assert left.rounds_left == RoundRules().max_rounds - ROUNDS and left.rounds_left < MIN_ROUNDS
    assert kind(left) == NOT_COMPARED and not settled(left)  # "further rounds could not have separated them": never of 0 rounds


def test_the_recommendation_and_the_bundle_words_say_not_compared_never_a_tie() -> None:
    pick = recommend(_run()).best_peak
    assert pick is not None and pick.uncompared == ["apart"] and "apart" not in pick.tie_set
    said = pick.describe()  # the console, report.md and the deployment bundle's README say this
    assert (
        "not compared (never measured in the same round as the pick's level, c=2; it ranked at its best level): `apart` at c=4"
        in said
    )
    assert "from `apart`" not in said and "(0 rounds" not in said


def test_the_report_never_calls_a_pair_without_a_common_round_as_good_a_choice(tmp_path: Path) -> None:
    results.save(_run(), tmp_path)
    text = write_report(tmp_path).read_text()
    heads = ("- **Best peak throughput", "- **Best measured throughput")  # peer's peak is not reached: the latter
    peak = bullet_block(text, heads, " — the rule")  # the pick, its tie set and the others as bullets under it
    assert (
        "not compared (never measured in the same round as the pick's level, c=2; it ranked at its best level): `apart` at c=4"
        in peak
    )
    assert "from `apart`" not in peak and "(0 rounds" not in text
    tie = next(ln for ln in text.splitlines() if ln.startswith("- **Tie set**"))
    good = tie.split("not distinguishable from it at this noise")[0]
    assert "`apart`" not in good  # the tie set's members only
    row = next(ln for ln in text.splitlines() if ln.startswith("| `apart`") and "same round" in ln)  # the ranking's table
    assert "not compared: never measured in the same round as the pick's level" in row


def test_the_rounds_end_names_a_member_never_compared_apart_from_the_tie_set() -> None:
    run = _run()
    rank = rank_variants(run.variants, cores=None)
    tied = [c for c in rank.comparisons if c.verdict != "a"]
    said = settled_words(tied, RoundRules().max_rounds - ROUNDS, RoundRules().max_rounds)
    names = "`lead`, `peer`"
    assert f"could not separate the tie set {names}, even all going one way" in said
    assert "`apart` at c=4 never measured in the same round as the leader's level (c=2)" in said and said.endswith("not compared")
    assert "too few rounds to tell" not in said
