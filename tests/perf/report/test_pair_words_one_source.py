"""One pair, one verdict in words: the rounds engine's end line and the report's table, tie set and
recommendation read :func:`perf.analysis.ranking.standing.kind` with the rounds the pair's group
could still have had (:func:`perf.analysis.ranking.standing.rounds_left`).

Trial 12, F19: a run that swept one input size (``--shapes time=16000``) reports each variant as a
series (``kws_... [time=16000]``); the rounds left were looked up by the series' names, which no
load group holds, so the report said "too few rounds to tell (4 rounds)" of the pair the sweep's
end line had settled as "not distinguishable at this noise".
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from factories import level_result, run_result, variant_result

from perf.analysis.ranking.rank import rank_variants
from perf.analysis.ranking.standing import SETTLED, kind, rounds_left
from perf.analysis.recommendation.recommend import recommend
from perf.records import results
from perf.records.results import RunResult
from perf.records.rounds import LoadGroup, RoundRecord, RoundRules, RoundsRecord, Visit
from perf.records.workloads import split_by_workload
from perf.report.write import write_report

SHAPE = "time=16000"
#: Per-round throughput (infer/s) of the two variants: each ahead in 2 of the 4 rounds, as in t12rr.
THR = {"db": [101.2, 238.1, 113.9, 326.7], "nodb": [213.2, 112.4, 145.9, 165.3]}
ROUNDS = len(THR["db"])


def _run() -> RunResult:
    variants = [
        variant_result(n, [level_result(1, t, 20.0, spread=True, trial=r, shape=SHAPE) for r, t in enumerate(thr)])
        for n, thr in THR.items()
    ]
    rounds = [RoundRecord(r, 0, 1 + r, "now", order=[Visit(n, 1) for n in THR]) for r in range(ROUNDS)]
    record = RoundsRecord(seed=1, groups=[LoadGroup(0, list(THR), "every contender fits on the server")], rounds=rounds)
    return run_result(variants, settings={"design": "rounds", "sweep_axes": {"time": [16000]}}, rounds=record)


def test_the_rounds_left_of_a_series_pair_are_its_variants_group_s() -> None:
    view = split_by_workload(_run())
    assert all("[" in v.name for v in view.variants)  # series names, as the report ranks them
    comp = rank_variants(view.variants, cores=None).comparisons[0]
    assert rounds_left(view, comp) == RoundRules().max_rounds - ROUNDS


def test_the_report_says_of_a_settled_series_pair_what_the_end_line_says(tmp_path: Path) -> None:
    run = _run()
    rec = recommend(split_by_workload(run))
    assert rec.best_peak is not None and rec.best_peak.tied
    said = rec.best_peak.describe()
    assert "too few rounds to tell" not in said and "not distinguishable at this noise" in said
    results.save(run, tmp_path)
    text = write_report(tmp_path).read_text()
    assert "too few rounds to tell" not in text
    row = next(ln for ln in text.splitlines() if ln.startswith("| `nodb [") and "2 of 4" in ln)  # the runner-up table
    assert "not distinguishable at this noise" in row


def test_kind_of_the_report_s_comparison_is_settled() -> None:
    view = split_by_workload(_run())
    comp = rank_variants(view.variants, cores=None).comparisons[0]
    assert kind(dataclasses.replace(comp, rounds_left=rounds_left(view, comp))) == SETTLED
