"""The Paired ranking table's "Δ p99 ms" column is said under it: which side minus which, and that it is the median of
the per-round differences, not the difference of the medians the other tables show (trial 23, T23-7: "+1.22" beside
medians 0.22 ms apart, explained nowhere)."""

from __future__ import annotations

import statistics

from factories import level_result, run_result, variant_result

from perf.analysis.recommendation.recommend import recommend
from perf.records import results
from perf.records.rounds import RoundsRecord


def test_the_delta_column_is_said_under_the_table_and_is_what_it_says(tmp_path) -> None:
    from perf.report.write import write_report

    # pick's p99 per round 6, 7, 9; runner-up's 5, 8, 6: per-round differences +1, -1, +3 (median +1); medians 7 vs 6
    pick = [level_result(1, 1000.0 + r, p99, trial=r) for r, p99 in enumerate((6.0, 7.0, 9.0))]
    other = [level_result(1, 900.0 + r, p99, trial=r) for r, p99 in enumerate((5.0, 8.0, 6.0))]
    run = run_result([variant_result("pick", pick), variant_result("other", other)], settings={"design": "rounds"})
    run.rounds = RoundsRecord(seed=1)
    c = recommend(run).ranking.comparisons[0]
    assert c.a.variant == "pick" and c.median_latency_diff_ms == statistics.median([1.0, -1.0, 3.0])
    results.save(run, tmp_path)
    text = write_report(tmp_path).read_text()
    ranking = text[text.index("## Paired ranking") :]
    row = next(ln for ln in ranking.splitlines() if ln.startswith("| `other`"))
    assert "+1.00" in row
    said = next(ln for ln in ranking.splitlines() if ln.startswith("- Δ p99 ms:"))
    assert "the pick's p99 minus the runner-up's, the median of their per-round differences" in said
    assert "not the difference of the medians" in said
