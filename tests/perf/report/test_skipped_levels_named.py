"""Skipped levels are said of the variant, once, never of one of its client-workload series (trial 30, F19: tab-s1's
report said "Skipped levels: `tabnet_onnx_cpu1_nodb_mbs0 [b=1]`: batch 4 at c=1,4", a b=4 level labelled as of the
b=1 series: a run of two batch sizes is split into one series per batch size, each a copy of the variant's skipped
levels)."""

from __future__ import annotations

from factories import level_result, run_result, variant_result

from perf.records.levels import SkippedLevel
from perf.records.workloads import split_by_workload
from perf.search.plan import skipped_lines

MBS0, MBS8 = "tabnet_onnx_cpu1_nodb_mbs0", "tabnet_onnx_cpu1_nodb_mbs8"


def test_a_variants_skipped_levels_are_named_by_the_variant_once() -> None:
    reason = "batch size 4 > 1: max_batch_size 0 does not batch"
    mbs0 = variant_result(MBS0, [level_result(c, 100.0, 2.0) for c in (1, 4)])
    mbs0.skipped = [SkippedLevel(4, reason, c) for c in (1, 4)]
    mbs8 = variant_result(MBS8, [level_result(c, 100.0, 2.0, batch_size=b) for c in (1, 4) for b in (1, 4)])
    mbs8.skipped = [SkippedLevel(16, "batch size 16 > max_batch_size 8", 1)]
    view = split_by_workload(run_result([mbs0, mbs8]))
    assert any(v.name.endswith("[b=4]") for v in view.variants)  # split: the series the old words named
    lines = skipped_lines(view.variants)
    assert lines == [f"`{MBS0}`: batch 4 at c=1,4: {reason}", f"`{MBS8}`: batch 16 at c=1: batch size 16 > max_batch_size 8"]
