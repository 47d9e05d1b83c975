"""A shape sweep's picks at each size, for the console table (:mod:`perf.report.write`): every
swept input size gets its own (a size is the client's, not a setting to pick), each mark naming
the size it is for (trial 7, F21: the console marked one size "best peak" with no word of the
other size or of why)."""

from __future__ import annotations

import dataclasses

from perf.analysis.recommendation import Recommendation, recommend
from perf.records.results import RunResult


def series_sizes(run: RunResult) -> dict[str, str]:
    """Series name -> the swept size its levels were measured at, for a run split by shape
    (:func:`perf.records.results.split_by_shape`); empty for a run of one size."""
    sizes = {v.name: s for v in run.variants if (s := next((lv.shape for lv in v.levels if lv.shape), None))}
    return sizes if len(set(sizes.values())) > 1 else {}


def size_marks(run: RunResult, rec: Recommendation) -> dict[str, list[str]]:
    """Series name -> its pick marks at its own size, ``"best peak for ncat=1 clients"``: the
    recommendation's rule over each size's series alone; empty for a run of one size."""
    sizes, out = series_sizes(run), dict[str, list[str]]()
    for size in sorted(set(sizes.values())):
        series = [v for v in run.variants if sizes.get(v.name) == size]
        sub = recommend(dataclasses.replace(run, variants=series), rec.latency_budget_ms, rec.latency_percentile)
        for what, c in (("best under budget", sub.best_under_budget), ("best peak", sub.best_peak)):
            if c is not None:
                level = f"c={c.concurrency}" + (f", b={c.batch_size}" if c.batch_size != 1 else "")
                out.setdefault(c.variant, []).append(f"{what} for {size} clients ({level})")
    return out
