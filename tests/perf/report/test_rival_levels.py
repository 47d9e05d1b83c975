"""Every comparison's words name the rival's level they compared (perf.analysis.ranking.levels_said).

Trial 24, T24-15 (run s2, ``--shapes H=64..256 --shapes W=64..256 --latency-budget-ms 80``): the two picks of the
same level (best under the p99 budget, best peak) said of the same rival "shared at least 6 rounds with it" and
"never measured in the same round as the pick's level": the budget's ranking compared the rival's c=2, the peak
ranking its c=16, and neither line named the level. The plots' legend drew a star and a cross on that one point
with no word that they were one level.

Trial 24, T24-9 (run s3): "`db500` shared 4 rounds with the leader: too few rounds to tell" after 10 rounds in which
both variants were measured every round: the levels compared (db500's c=4, the leader's c=1) and the rounds each was
measured in were not said.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

from factories import level_result, run_result, variant_result
from tables import bullet_block

from perf.analysis.ranking.budget_latency import host_cores
from perf.analysis.ranking.levels_said import rounds_span
from perf.analysis.ranking.rank import rank_variants
from perf.analysis.ranking.standing import settled_words
from perf.analysis.recommendation.recommend import recommend
from perf.plots.picks import PEAK, UNDER, pick_points
from perf.records import results
from perf.records.results import RunResult, load
from perf.records.rounds import LoadGroup, RoundRecord, RoundsRecord, Visit
from perf.report.write import write_report

DATA = Path(__file__).resolve().parents[2] / "data"
MIX = " [H=64..256,W=64..256 (mixed)]"
DB, NODB = f"segnet_onnx_cpu1_db500_mbs8{MIX}", f"segnet_onnx_cpu1_nodb_mbs8{MIX}"
ROUNDS = 9


def _trial(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "results.json").write_bytes(gzip.decompress((DATA / f"trial24_{name}" / "results.json.gz").read_bytes()))
    return folder


def _levels(c: int, rounds: range, thr: list[float], p99: float) -> list:
    return [level_result(c, t, p99, trial=r, spread=True) for r, t in zip(rounds, thr)]


def _same_level_run() -> RunResult:
    """T24-15's shape: ``a``'s c=2 (from round 4 on) is both picks; ``b``'s c=2 (every round) ties with it under the
    budget, ``b``'s c=16 (rounds 1-3, over the budget) is its peak and never shared a round with ``a``'s c=2."""
    a = variant_result("a", _levels(1, range(ROUNDS), [600] * ROUNDS, 3.0) + _levels(2, range(3, ROUNDS), [1000] * 6, 5.0))
    b = variant_result("b", _levels(2, range(ROUNDS), [985, 1005] * 4 + [985], 5.0) + _levels(16, range(3), [998] * 3, 100.0))
    rounds = [RoundRecord(r, 0, 1 + r, "now", order=[Visit("a", 1)]) for r in range(ROUNDS)]
    record = RoundsRecord(seed=1, groups=[LoadGroup(0, ["a", "b"], "every contender fits")], rounds=rounds)
    return run_result([a, b], settings={"design": "rounds", "latency_budget_ms": 10.0}, rounds=record)


def test_two_picks_of_one_level_name_the_level_of_the_rival_each_compared() -> None:
    rec = recommend(_same_level_run(), 10.0)
    under, peak = rec.best_under_budget, rec.best_peak
    assert (
        under is not None
        and peak is not None
        and (under.variant, under.concurrency) == ("a", 2) == (peak.variant, peak.concurrency)
    )
    assert "not distinguishable at this noise from `b` at c=2" in under.describe()  # old: "from `b`"
    said = peak.describe()
    assert "never measured in the same round as the pick's level, c=2; it ranked at its best level): `b` at c=16" in said
    assert "level): `b`;" not in said  # old: the rival named without the level compared


def test_the_legend_says_two_marks_on_one_point_are_one_level() -> None:
    picks = pick_points(recommend(_same_level_run(), 10.0))
    under = next(p for p in picks if p.kind == UNDER)
    peak = next(p for p in picks if p.kind == PEAK)
    assert "one point" not in under.label
    assert f"the same level as the {under.what}: one point, two marks" in peak.label


def test_the_trial_runs_report_names_each_rivals_level(tmp_path: Path) -> None:
    text = write_report(_trial(tmp_path, "s2")).read_text()
    peak = bullet_block(text, "- **Best peak throughput")
    assert f"(never measured in the same round as the pick's level, c=2; it ranked at its best level): `{NODB}` at c=16" in peak
    under = bullet_block(text, "- **Best under the p99 budget")
    assert f"not distinguishable at this noise from `{DB}` at c=2" in under
    tie = next(ln for ln in text.splitlines() if ln.startswith("- **Tie set**"))
    assert f"`{DB}` at c=2 shared at least 6 rounds with it at c=2" in tie
    # the kind: wherever a rival is said to be tied with, or not compared with, the pick, its level follows its name
    for phrase in ("not distinguishable at this noise from ", "level, c=2; it ranked at its best level): "):
        for m in re.finditer(re.escape(phrase) + r"(`[^`]+`)(.{0,8})", text):
            assert m.group(2).startswith(" at c="), m.group(0)


def test_the_rounds_end_names_the_levels_and_the_rounds_each_was_measured_in(tmp_path: Path) -> None:
    run = load(_trial(tmp_path, "s3"))
    rank = rank_variants(run.variants, 80.0, cores=host_cores(run))
    tied = [c for c in rank.comparisons if c.verdict != "a"]
    said = settled_words(tied, 0, 10, True)
    db = "`segnet_onnx_cpu1_db500_mbs8`"
    assert f"{db} at c=4 (its best level within the budget) shared 4 rounds with the leader at c=1" in said
    assert "(c=4 was measured in rounds 1, 2 and 4–10, the leader's c=1 in rounds 1–3, 6 and 7)" in said
    assert f"{db} shared 4 rounds with the leader:" not in said  # old


def test_rounds_are_said_as_a_reader_counts_them() -> None:
    assert rounds_span([]) == "no round"
    assert rounds_span([2]) == "round 3"
    assert rounds_span([0, 1]) == "rounds 1 and 2"
    assert rounds_span(range(10)) == "rounds 1–10"
    assert rounds_span([0, 1, 3, 4]) == "rounds 1, 2, 4 and 5"
    assert rounds_span([0, 1, 2, 6, 7, 8, 9]) == "rounds 1–3 and 7–10"


def test_a_saved_run_reports_the_levels_too(tmp_path: Path) -> None:
    results.save(_same_level_run(), tmp_path)
    text = write_report(tmp_path).read_text()
    assert "`b` at c=16" in bullet_block(text, ("- **Best peak throughput", "- **Best measured throughput"))
