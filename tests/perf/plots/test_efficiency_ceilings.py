"""Trial 25, T25-24: serving_efficiency.png's legend said levels with "served throughput above ...
in-process" were left out, yet two 2-instance variants were drawn at 1.41 and 1.09, above the only
line, at 1. The rule is the instances' (a 2-instance variant may reach 2): the legend says it whole and
each instance count drawn has its line. Hand-made records; the plot read back from its artists."""

from __future__ import annotations

from pathlib import Path

from perf.analysis.efficiency import efficiency_rows
from perf.plots.efficiency import RATIO_TITLE, write_plot
from perf.records.baseline import BaselineKey, BaselinePoint, BaselineResult, BaselineSettings, BaselineTarget
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult

KEY = BaselineKey("mlp", "onnx", "fp32", "cpu", 2)
ONE, TWO, OVER = "mlp_onnx_cpu1_nodb_mbs64", "mlp_onnx_cpu2_nodb_mbs64", "mlp_onnx_cpu1_db500_mbs64"
INSTANCES = {ONE: 1, TWO: 2, OVER: 1}


def _level(c: int, thr: float) -> LevelResult:
    return LevelResult(
        c,
        throughput_infer_per_s=thr,
        latency_p50_ms=1.0,
        latency_p99_ms=2.0,
        avg_server_batch_size=1.0,
        server_compute_infer_us=1200.0,
        server_queue_us=100.0,
        throughput_window_spread_pct=5.0,
        host_busy_pct=1.0,
    )


def _run() -> RunResult:
    """In-process 1,000 infer/s: ONE at 0.5 and 0.9, TWO (2 instances) at 0.9 and 1.41, OVER (1 instance) at 1.3."""
    run = RunResult("r", "now", environment={"cpu_count": 4})  # type: ignore[typeddict-item]
    run.variants += [
        VariantResult(ONE, status="ok", levels=[_level(1, 500.0), _level(4, 900.0)]),
        VariantResult(TWO, status="ok", levels=[_level(1, 900.0), _level(16, 1410.0)]),
        VariantResult(OVER, status="ok", levels=[_level(1, 1300.0)]),
    ]
    p = BaselinePoint(KEY, 1, latency_p50_ms=1.0, latency_median_ms=1.0, throughput_infer_per_s=1000.0)
    p.rounds_ms, p.host_busy_pct, p.host_busy = [1.0] * 8, 2.0, False
    settings = BaselineSettings("timer", 0.1, 0.05, 3, 100, "inputs", 2, "rule", {}, rounds=8, host_busy_threshold_pct=10.0)
    targets = [BaselineTarget(name, KEY, n, [1], "python") for name, n in INSTANCES.items()]
    run.baseline = BaselineResult("now", settings, targets, [p])
    return run


def test_every_drawn_ratio_sits_under_the_line_of_its_instances_and_the_legend_says_that_rule(tmp_path: Path) -> None:
    drawn = write_plot(efficiency_rows(_run()), tmp_path / "e.png")
    assert drawn is not None
    panel = drawn[RATIO_TITLE]
    (note,) = [k for k in panel if "left out" in k]
    assert note.startswith("1 level left out: served throughput above what its instances can give in-process"), note
    assert OVER not in panel and max(panel[TWO][1]) > 1.4  # the 1-instance level above 1 is out, the 2-instance one in
    lines = {label: ys[0] for label, (_, ys) in panel.items() if "most a" in label}  # the ceilings, by their words
    for name in (ONE, TWO):
        n = INSTANCES[name]
        (ceiling,) = [y for label, y in lines.items() if f"most a {n}-instance variant" in label]
        assert ceiling == n and max(panel[name][1]) <= ceiling, (name, lines)
    assert sorted(lines.values()) == [1.0, 2.0]
