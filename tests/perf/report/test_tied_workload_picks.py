"""Every output that names a tied pick says its tie, from one source (:meth:`Choice.tie_mark`), in a run of several
client workloads as in a plain one (trial 27, T27-17: with ``--batch-sizes 1,4`` the console row, the console's last
line and the plot legend called a tied pick "best under budget" with no tie word, while report.md and
export-deployment said it was not the winner)."""

from __future__ import annotations

import pytest
from rich.console import Console
from tied_workloads import tied_run

from perf.analysis.recommendation.frontier import workload_recommendations
from perf.analysis.recommendation.recommend import recommend
from perf.cli.summary import recommendation_line, summary_table
from perf.plots.picks import pick_points
from perf.records.workloads import split_by_workload

TIE = "the Recommendation's pick of its tie set"


@pytest.mark.parametrize("batch_sizes", [(1, 4), (1,)], ids=["batch sizes 1,4", "plain"])
def test_each_output_naming_a_tied_pick_says_the_tie(batch_sizes: tuple[int, ...]) -> None:
    run = tied_run(batch_sizes)
    split = split_by_workload(run)
    rec = recommend(split, 20.0)
    subs = workload_recommendations(split, rec)
    picks = [c for s in subs.values() for c in (s.best_under_budget, s.best_peak) if c is not None]
    assert len(picks) == 2 * len(batch_sizes) and all(c.tied for c in picks)  # the factory's tie, at every workload
    console = Console(width=3000, record=True)
    console.print(summary_table(run))
    rows = [
        " ".join(line.split())
        for line in console.export_text().splitlines()
        if "best under budget" in line and line.startswith("│")
    ]
    assert len(rows) == len(batch_sizes)
    for row in rows:  # both marks of the row, under budget and best measured, say the tie
        under, _, peak = row.partition("best measured")
        assert TIE in under and TIE in peak, row
    assert f"({TIE} of 2, not the winner)" in (recommendation_line(rec) or "")
    legends = [p.label for p in pick_points(rec, subs if len(batch_sizes) > 1 else None)]
    assert len(legends) == 2 * len(batch_sizes) and all(TIE in w for w in legends), legends
