"""A synthetic run with an in-process baseline, for the serving-efficiency plot and section tests."""

from __future__ import annotations

from perf.records.baseline import BaselineKey, BaselinePoint, BaselineResult, BaselineSettings, BaselineTarget
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult

KEY = BaselineKey("m", "onnx", "fp32", "cpu", 2)


def efficiency_run(n: int, faster: int = 0) -> RunResult:
    """``n`` variants; the first ``faster`` of them served faster than in-process (a negative overhead)."""
    run = RunResult("r", "now", environment={"cpu_count": 2})  # type: ignore[typeddict-item]
    targets = []
    for i in range(n):
        name = f"m_onnx_cpu{i}_nodb_mbs8"
        levels = [
            LevelResult(
                c,
                throughput_infer_per_s=100.0 * c,
                latency_p50_ms=1.0,
                latency_p99_ms=2.0,
                avg_server_batch_size=1.0,
                client_send_us=300.0,
                network_server_us=600.0,
                server_queue_us=400.0,
                server_compute_input_us=50.0,
                server_compute_infer_us=100.0 if i < faster else 900.0,
                server_compute_output_us=500.0,
                client_recv_us=400.0,
                host_busy_pct=1.0,
            )
            for c in (1, 4)
        ]
        run.variants.append(VariantResult(name, status="ok", levels=levels))
        targets.append(BaselineTarget(name, KEY, 1, [1], "python"))
    point = BaselinePoint(KEY, 1, latency_p50_ms=0.5, latency_median_ms=0.5, throughput_infer_per_s=2000.0)
    point.rounds_ms, point.host_busy_pct, point.host_busy = [0.5] * 8, 2.0, False
    settings = BaselineSettings("timer", 0.1, 0.05, 3, 100, "inputs", 2, "rule", {}, rounds=8, host_busy_threshold_pct=10.0)
    run.baseline = BaselineResult("now", settings, targets, [point])
    return run
