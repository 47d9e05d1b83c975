"""Each pick is said with its own client workload (review of trial 11, F20): with ``--batch-sizes 1,8``
and every b=8 level over the budget, the best under the budget stands at b=1 and the best peak at b=8;
report.md said "the picks above are for clients sending b=1", false for the best peak. The words
come from the picks' own series (:func:`perf.analysis.recommendation.frontier.workload_recommendations`)."""

from __future__ import annotations

from factories import level_result, params, run_result, variant_result
from tables import bullet_block

from perf.analysis.recommendation.frontier import workload_recommendations
from perf.analysis.recommendation.recommend import recommend
from perf.analysis.saturation.peaks import peak_mark
from perf.records.workloads import split_by_workload, workload
from perf.report.write import size_lines

BUDGET_MS = 10.0
A, B = params(1), params(2, True)
#: (variant, client batch size) -> (infer/s, p99 ms) at c=1; c=2 doubles throughput and adds half the p99.
#: Every b=8 level is over the budget and has more infer/s than any b=1 one.
SPEED = {
    (A["name"], 1): (1000.0, 3.0),
    (B["name"], 1): (600.0, 4.0),
    (A["name"], 8): (3000.0, 12.0),
    (B["name"], 8): (6000.0, 11.0),
}


def _run():
    variants = [
        variant_result(
            params=p,
            levels=[
                level_result(c, SPEED[p["name"], b][0] * c, SPEED[p["name"], b][1] * (1 + (c - 1) / 2), batch_size=b)
                for b in (1, 8)
                for c in (1, 2)
            ],
        )
        for p in (A, B)
    ]
    return split_by_workload(run_result(variants, settings={"latency_budget_ms": BUDGET_MS, "batch_sizes": [1, 8]}))


def test_picks_at_different_workloads_are_each_said_with_their_own() -> None:
    run = _run()
    rec = recommend(run, BUDGET_MS)
    under, peak = workload(run.variant(rec.best_under_budget.variant)), workload(run.variant(rec.best_peak.variant))
    assert under != peak  # the case: the two picks of the report stand at different workloads
    text = "\n".join(size_lines(run, rec))
    assert "the picks above are for clients sending" not in text  # F: one workload named for both
    assert f"the best under the budget above is for clients sending {under}" in text
    assert f"the {peak_mark(rec.best_peak)} above is for clients sending {peak}" in text
    per = workload_recommendations(run, rec)
    assert set(per) == {under, peak}
    for label, sub in per.items():  # each workload's bullet: the pick said above named so, the other described under it
        line = bullet_block(text, f"  - {label}:")
        for what, mine, above in (
            ("best under the budget", sub.best_under_budget, rec.best_under_budget),
            (peak_mark(sub.best_peak), sub.best_peak, rec.best_peak),
        ):
            said = "the one above" if mine is above else mine.describe(listed=True) if mine else "none"
            u = sub.best_under_budget
            if (
                mine is sub.best_peak
                and mine is not above
                and u is not None
                and (mine.variant, mine.concurrency) == (u.variant, u.concurrency)
            ):
                # at the level of the workload's best under the budget: one line, as the top picks (s18c)
                said = f"the same level as the best under the budget above, said there with its verdicts: `{mine.variant}` at"
            assert f"- {what}: {said}" in line
            assert mine is None or workload(run.variant(mine.variant)) == label  # a pick said at a workload is of it


def test_picks_at_one_workload_name_it_once_and_list_the_others() -> None:
    run = _run()
    rec = recommend(run, None)  # no budget: the best peak alone, at b=8
    at = workload(run.variant(rec.best_peak.variant))
    lines = size_lines(run, rec)
    assert f"the pick above is for clients sending {at}" in lines[0]
    others = [label for label in workload_recommendations(run, rec) if label != at]
    assert [ln.split(":")[0] for ln in lines[1:] if ln.startswith("  - ")] == [f"  - {label}" for label in others]
