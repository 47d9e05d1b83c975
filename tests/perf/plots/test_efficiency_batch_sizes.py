"""The serving-efficiency plot draws every client batch size's rows (review of trial 11, F20): its
ratio panel drew the b=1 rows alone, so a b=8 series (or level) got no line and no word while the
report's table listed it. One line per variant and batch size, read back from the artists."""

from __future__ import annotations

from pathlib import Path

import pytest

from perf.analysis.efficiency import efficiency_rows
from perf.plots import efficiency as plot_efficiency
from perf.records.baseline import BaselineKey, BaselinePoint, BaselineResult, BaselineSettings, BaselineTarget
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.records.workloads import split_by_workload

KEY = BaselineKey("m", "onnx", "fp32", "cpu", 2)
NAME = "m_onnx_cpu1_nodb_mbs8"


def _run() -> RunResult:
    levels = [
        LevelResult(
            c,
            b,
            throughput_infer_per_s=100.0 * c * (1 + b // 8),
            latency_p50_ms=1.0,
            latency_p99_ms=2.0,
            avg_server_batch_size=float(b),
            server_compute_infer_us=600.0 * b,
            host_busy_pct=1.0,
        )
        for b in (1, 8)
        for c in (1, 4)
    ]
    run = RunResult("r", "now", environment={"cpu_count": 2}, settings={"batch_sizes": [1, 8]})  # type: ignore[typeddict-item]
    run.variants.append(VariantResult(NAME, status="ok", levels=levels))
    points = [
        BaselinePoint(KEY, b, latency_p50_ms=0.5 * b, latency_median_ms=0.5 * b, throughput_infer_per_s=2000.0) for b in (1, 8)
    ]
    for point in points:
        point.rounds_ms, point.host_busy_pct, point.host_busy = [point.latency_p50_ms] * 8, 2.0, False
    settings = BaselineSettings("timer", 0.1, 0.05, 3, 100, "inputs", 2, "rule", {}, rounds=8, host_busy_threshold_pct=10.0)
    run.baseline = BaselineResult("now", settings, [BaselineTarget(NAME, KEY, 1, [1, 8], "python")], points)
    return run


@pytest.mark.parametrize("split", [False, True], ids=["one variant", "series per batch size"])
def test_every_batch_sizes_ratios_are_drawn(tmp_path: Path, keep_figures, split: bool) -> None:
    figures = keep_figures(plot_efficiency)
    run = split_by_workload(_run()) if split else _run()
    rows = [r for r in efficiency_rows(run) if r.ratio is not None and not r.served_faster]
    assert {r.point.batch_size for r in rows} == {1, 8}  # the case: rows at both batch sizes
    assert plot_efficiency.write_plot(efficiency_rows(run), tmp_path / "e.png") is not None
    (fig,) = figures
    (ax,) = [ax for ax in fig.axes if ax.get_title() == plot_efficiency.RATIO_TITLE]
    series = [ln for ln in ax.get_lines() if ln.get_transform() == ax.transData]  # not the ceilings (axes-wide lines)
    lines = [ln for ln in series if not ln.get_label().startswith("_") and len(ln.get_xdata())]
    drawn = sorted((float(x), float(y)) for ln in lines for x, y in zip(ln.get_xdata(), ln.get_ydata()))
    assert drawn == sorted((float(r.point.concurrency), r.ratio) for r in rows)
    assert len(lines) == 2  # one line per batch size, never one line through both
