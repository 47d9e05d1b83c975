"""A serving-efficiency ratio on in-process points the sweep's time budget cut short says so where the
ratio stands, in the table and the conclusion (issue 26, F15: only the baseline's settings line said the
model was timed in 2 of 8 rounds; its ratio looked like any other)."""

from __future__ import annotations

from pathlib import Path

from factories import level_result, run_result, variant_result

from perf.analysis.efficiency import efficiency_rows
from perf.records.baseline import BaselineKey, BaselinePoint, BaselineResult, BaselineSettings, BaselineTarget
from perf.report.sections.efficiency import efficiency_section

KEY = BaselineKey("kws", "onnx", "fp32", "cpu", 2)
PLANNED = 8
CALL_MS = 4.0


def _run(rounds_timed: int):
    level = level_result(1, 200.0, 8.0, avg_server_batch_size=1.0, server_compute_infer_us=4500.0, server_queue_us=10.0)
    point = BaselinePoint(KEY, 1, latency_p50_ms=CALL_MS, throughput_infer_per_s=1e3 / CALL_MS)
    point.rounds_ms = [CALL_MS] * rounds_timed
    settings = BaselineSettings("timer", 0.1, 0.05, 3, 100, "inputs", 2, "rule", {}, rounds=PLANNED)
    baseline = BaselineResult("now", settings, [BaselineTarget("v", KEY, 1, [1])], [point])
    return run_result([variant_result("v", [level])], environment={"cpu_count": 2}, baseline=baseline)


def test_a_ratio_on_a_cut_baseline_is_marked_in_the_table_and_the_conclusion(tmp_path: Path) -> None:
    cut = _run(2)
    (row,) = efficiency_rows(cut)
    assert row.rounds_cut == (2, PLANNED)
    words = f"(in-process timed in 2 of {PLANNED} rounds: cut for time)"
    lines = efficiency_section(cut, tmp_path, tmp_path)
    numbers = next(ln for ln in lines if ln.startswith("**The numbers.**"))
    table_row = next(ln for ln in lines if ln.startswith("| v "))
    assert words in numbers and words in table_row
    whole = _run(PLANNED)
    assert efficiency_rows(whole)[0].rounds_cut is None
    assert "cut for time" not in "\n".join(efficiency_section(whole, tmp_path, tmp_path))
