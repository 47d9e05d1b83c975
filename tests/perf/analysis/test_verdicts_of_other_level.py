"""A pick whose verdicts its variant won at another of its levels says that level beside them (trial 30, F3: a what-if
report's Recommendation gave ``dae_onnx`` at c=2, measured in 3 rounds, "beats every other ranked variant (2, 1 by the
sign test after 7 rounds, 1 on a large, consistent gap after 4 rounds; ...)": both verdicts its c=4's; only the
Paired ranking's ‡ footnote said so). perf.analysis.ranking.standing_words.others_words, what the Recommendation,
the Paired ranking, export-deployment's chosen level and the bundle's README say."""

from __future__ import annotations

from pathlib import Path

from factories import level_result, run_result, variant_result

from perf.analysis.recommendation.recommend import recommend
from perf.deploy.choose import choose_variant
from perf.records import results
from perf.records.results import RunResult
from perf.records.rounds import RoundsRecord
from perf.report.write import write_report


def _run(levels: dict[str, dict[int, dict[int, float]]], budget_ms: float | None = None) -> RunResult:
    """``{variant: {concurrency: {round: infer/s}}}``, a p99 of 4 ms per request in flight."""
    variants = [
        variant_result(
            name, [level_result(c, t, 4.0 * c, spread=True, trial=r) for c, per in by_c.items() for r, t in per.items()]
        )
        for name, by_c in levels.items()
    ]
    settings = {"latency_budget_ms": budget_ms, "latency_percentile": 99} if budget_ms is not None else {}
    return run_result(variants, settings=settings, finished="x", rounds=RoundsRecord(seed=30))


#: The pick ``p``: c=4 in rounds 1-7 (median 1,003.0 infer/s, p99 16 ms), c=2 in rounds 5-7 only (1,036.0 infer/s, p99
#: 8 ms: better on both, its best level within a 20 ms budget); ``q`` and ``r`` in every round, behind c=4 in each (the
#: sign test after 7 rounds) and behind c=2 in the 3 rounds they shared by less than a large gap needs.
LEVELS = {
    "p": {4: {r: 1000.0 + r for r in range(7)}, 2: {4: 1040.0, 5: 1030.0, 6: 1036.0}},
    "q": {2: {r: 985.0 + r for r in range(7)}},
    "r": {2: {r: 980.0 - r for r in range(7)}},
}


def test_verdicts_won_at_another_level_name_that_level(tmp_path: Path) -> None:
    run = _run(LEVELS)
    rec = recommend(run, 20.0)
    pick = rec.best_under_budget
    assert pick is not None and (pick.variant, pick.concurrency) == ("p", 2) and sorted(pick.beats) == ["q", "r"]
    text = pick.describe()
    assert (
        "beats every other ranked variant (2, by the same variant at c=4, not at the pick's c=2: by the sign test after 7 rounds"
        in text
    )
    assert "(2, by the sign test after 7 rounds" not in text  # the old words: as if c=2's, measured in 3 rounds
    chosen = choose_variant(run, None, 20.0)  # export-deployment's chosen level and the bundle's README
    assert (chosen.variant, chosen.level.concurrency) == ("p", 2)
    assert "by the same variant at c=4, not at the pick's c=2" in chosen.level.describe()
    run_dir = tmp_path / "results" / "r"
    run_dir.mkdir(parents=True)
    results.save(run, run_dir)
    report = write_report(run_dir, latency_budget_ms=20.0).read_text()
    assert "after 7 rounds" in report
    for line in report.splitlines():  # every sentence with the verdicts' rounds says whose they are
        if "by the sign test after 7 rounds" in line and "the pick" in line.split("by the sign test after 7 rounds")[0][-200:]:
            assert "by the same variant at c=4" in line, line


def test_a_pick_whose_own_level_won_its_verdicts_is_said_as_before() -> None:
    run = _run({"p": {4: {r: 1900.0 + r for r in range(7)}}, "q": {2: {r: 1000.0 + r for r in range(7)}}})
    pick = recommend(run).best_peak
    assert pick is not None and pick.concurrency == 4
    assert "beats every other ranked variant (1, by the sign test after 7 rounds; paired rounds at 5 %)" in pick.describe()
