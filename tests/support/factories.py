"""Factories of sweep records for tests: hand-made levels, variants and runs (no server).

One place for them: every test that needs a ``RunResult`` builds it here (``tests/support/synthetic_runs.py``
holds the larger synthetic grids made from a real demo run).
"""

from __future__ import annotations

from perf.records.results import LevelResult, RunResult, VariantResult

CONC = [1, 2, 4, 8, 16]


def params(count: int, db: bool, fmt: str = "onnx") -> dict:
    name = f"mlp_{fmt}_cpu{count}_{'db500' if db else 'nodb'}_mbs64"
    return {
        "model": "mlp",
        "format": fmt,
        "precision": "fp32",
        "kind": "cpu",
        "count": count,
        "max_batch_size": 64,
        "dynamic_batching": db,
        "max_queue_delay_us": 500 if db else 0,
        "preferred_batch_sizes": [],
        "gpus": [],
        "name": name,
    }


def levels(thr, p99, batch=None, gpu=None, unstable=(), trial=0) -> list[LevelResult]:
    out = []
    for i, c in enumerate(CONC[: len(thr)]):
        out.append(
            LevelResult(
                c,
                1,
                trial,
                throughput_infer_per_s=thr[i],
                latency_p50_ms=p99[i] * 0.5,
                latency_p90_ms=p99[i] * 0.8,
                latency_p95_ms=p99[i] * 0.9,
                latency_p99_ms=p99[i],
                latency_avg_ms=p99[i] * 0.6,
                server_queue_us=50.0 * c,
                server_compute_input_us=10.0,
                server_compute_infer_us=400.0 * (batch[i] if batch else 1),
                server_compute_output_us=8.0,
                avg_server_batch_size=batch[i] if batch else 1.0,
                cpu_utilization_pct=min(100.0, 20.0 * c),
                gpu_utilization_pct=None if gpu is None else gpu[i],
                stable=c not in unstable,
            )
        )
    return out


def variant(count: int, db: bool, lvls: list[LevelResult], status: str = "ok", error: str | None = None) -> VariantResult:
    p = params(count, db)
    return VariantResult(p["name"], p, status, error, lvls)


def make_run(gpu: list | None = None) -> RunResult:
    """cpu1 nodb saturates at 4; cpu1 db500 keeps scaling; cpu2 nodb saturates at 4 with an
    unstable level at 8; cpu2 db500 failed after one (huge) level."""
    env = {
        "host": "testhost",
        "os": "Linux",
        "cpu": "Test CPU",
        "cpu_count": 8,
        "memory_bytes": 16 * 2**30,
        "gpus": [],
        "versions": {"python": "3.11"},
        "server": {"runtime": "bundled", "version": "2.51.0", "command": "tritonserver ..."},
        "perf_analyzer": {"path": "/bin/perf_analyzer", "version": "2.51.0"},
    }
    return RunResult(
        "20240101-000000",
        "2024-01-01T00:00:00",
        env,
        {"concurrency": CONC, "batch_sizes": [1], "protocol": "grpc", "measurement_interval_ms": 1000},
        [
            variant(1, False, levels([100, 180, 200, 205, 206], [1.2, 1.5, 2.5, 5.0, 10.0], gpu=gpu)),
            variant(1, True, levels([95, 185, 340, 600, 900], [1.8, 2.0, 2.4, 3.0, 4.0], batch=[1, 1.8, 3.5, 7, 14], gpu=gpu)),
            variant(2, False, levels([101, 190, 360, 380, 385], [1.2, 1.3, 1.6, 3.0, 6.0], gpu=gpu, unstable=(8,))),
            variant(2, True, levels([5000], [0.5]), "failed", "server crashed while loading: CUDA out of memory"),
        ],
        finished="2024-01-01T00:10:00",
    )
