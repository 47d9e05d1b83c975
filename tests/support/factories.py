"""Factories of sweep records for tests: hand-made levels, variants and runs (no server).

One place for them: a test that needs a ``LevelResult``, ``VariantResult`` or ``RunResult``
builds it here (``tests/support/synthetic_runs.py`` holds the larger synthetic grids made from a
real demo run).

- :func:`level_result`, :func:`variant_result`, :func:`run_result`: one record, every field by
  keyword (the defaults are the least a record needs);
- :func:`served_model`: what a server ran for a variant (the stamp a measurement is filed with);
- :func:`params`, :func:`levels`, :func:`make_run`: the canned ``mlp`` grid of the report tests.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from clients.runtimes.served import ServedModel, ServedSettings
from perf.records.build_check import BuildCheck
from perf.records.levels import LevelResult
from perf.records.provenance import TOOLKIT_KEY, code_id
from perf.records.results import RunResult, VariantResult

CONC = [1, 2, 4, 8, 16]
#: The other latencies ``level_result(..., spread=True)`` and :func:`levels` give a level, as fractions of its p99.
SPREAD = {"latency_p50_ms": 0.5, "latency_p90_ms": 0.8, "latency_p95_ms": 0.9, "latency_avg_ms": 0.6}


def level_result(
    concurrency: int = 1,
    thr: float | None = None,
    p99: float | None = None,
    *,
    spread: bool = False,
    settle: bool = False,
    **fields: Any,
) -> LevelResult:
    """One level at ``concurrency``: ``thr`` infer/s and a p99 of ``p99`` ms.

    Args:
        spread: also set p50/p90/p95/mean latency as the :data:`SPREAD` fractions of ``p99``.
        settle: apply :meth:`LevelResult.settle` (a level without throughput gets its error), as a sweep does.
        fields: any other ``LevelResult`` field (``batch_size``, ``trial``, ``stable``, ``error``, ...);
            an explicit latency wins over the spread.
    """
    if spread and p99 is not None:
        fields = {name: p99 * f for name, f in SPREAD.items()} | fields
    lv = LevelResult(concurrency, throughput_infer_per_s=thr, latency_p99_ms=p99, **fields)
    return lv.settle() if settle else lv


def served_model(
    name: str = "v",
    *,
    count: int = 1,
    kind: str = "KIND_CPU",
    backend: str = "python",
    max_batch_size: int = 64,
    dynamic_batching: str | None = None,
    parameters: dict[str, str] | None = None,
    **fields: Any,
) -> ServedModel:
    """What a server ran for ``name``: one instance group (``kind`` x ``count``), the given
    batching and parameters; any other ``ServedModel`` field (``threads_per_instance``,
    ``others_loaded``, ``moment``, ...) by keyword."""
    settings = ServedSettings(backend, max_batch_size, [f"{kind} x{count}"], dynamic_batching, dict(parameters or {}))
    return ServedModel(name, "now", settings, **fields)


def variant_result(
    name: str | None = None,
    levels: Iterable[LevelResult] = (),
    *,
    params: dict[str, Any] | None = None,
    status: str = "ok",
    error: str | None = None,
    **fields: Any,
) -> VariantResult:
    """One variant's results: ``name`` (default ``params["name"]``, else ``"v"``), its ``levels``,
    ``status`` and ``error``; any other ``VariantResult`` field by keyword. Its build check is recorded
    ``ok`` unless ``build_check`` is given (``None``: a run saved before build checks were recorded)."""
    name = name or (params or {}).get("name") or "v"
    fields.setdefault("build_check", BuildCheck())
    return VariantResult(name, params, status, error, list(levels), **fields)  # type: ignore[arg-type]


def run_result(
    variants: Iterable[VariantResult] = (),
    *,
    run_id: str = "r",
    created: str = "now",
    environment: dict[str, Any] | None = None,
    settings: dict[str, Any] | None = None,
    **fields: Any,
) -> RunResult:
    """One run (``results.json``) of ``variants``; any other ``RunResult`` field (``finished``,
    ``baseline``, ``servers``, ...) by keyword. Its sessions were run by today's code (the words it
    saved are today's, :func:`perf.records.provenance.written_by_today`) unless ``environment`` says
    otherwise (``{"toolkit": []}``: a run saved before the toolkit was recorded)."""
    env = {TOOLKIT_KEY: [code_id()], **(environment or {})}
    return RunResult(run_id, created, env, dict(settings or {}), list(variants), **fields)  # type: ignore[arg-type]


def params(count: int = 1, db: bool = False, fmt: str = "onnx", *, model: str = "mlp", max_batch_size: int = 64) -> dict:
    """The variant parameters of ``<model>_<fmt>_cpu<count>_<db500|nodb>_mbs<max_batch_size>`` (fp32, KIND_CPU)."""
    name = f"{model}_{fmt}_cpu{count}_{'db500' if db else 'nodb'}_mbs{max_batch_size}"
    return {
        "model": model,
        "format": fmt,
        "precision": "fp32",
        "kind": "cpu",
        "count": count,
        "max_batch_size": max_batch_size,
        "dynamic_batching": db,
        "max_queue_delay_us": 500 if db else 0,
        "preferred_batch_sizes": [],
        "gpus": [],
        "name": name,
    }


def levels(thr, p99, batch=None, gpu=None, unstable=(), trial=0) -> list[LevelResult]:
    """Levels at concurrency 1, 2, 4, ... (:data:`CONC`) with these throughputs and p99s (the
    other latencies spread from the p99), a server-side breakdown and CPU use that grow with them."""
    out = []
    for i, c in enumerate(CONC[: len(thr)]):
        out.append(
            level_result(
                c,
                batch_size=1,
                trial=trial,
                thr=thr[i],
                p99=p99[i],
                spread=True,
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
    return run_result(
        [
            variant_result(
                params=params(1, False), levels=levels([100, 180, 200, 205, 206], [1.2, 1.5, 2.5, 5.0, 10.0], gpu=gpu)
            ),
            variant_result(
                params=params(1, True),
                levels=levels([95, 185, 340, 600, 900], [1.8, 2.0, 2.4, 3.0, 4.0], batch=[1, 1.8, 3.5, 7, 14], gpu=gpu),
            ),
            variant_result(
                params=params(2, False),
                levels=levels([101, 190, 360, 380, 385], [1.2, 1.3, 1.6, 3.0, 6.0], gpu=gpu, unstable=(8,)),
            ),
            variant_result(
                params=params(2, True),
                levels=levels([5000], [0.5]),
                status="failed",
                error="server crashed while loading: CUDA out of memory",
            ),
        ],
        run_id="20240101-000000",
        created="2024-01-01T00:00:00",
        environment=env,
        settings={"concurrency": CONC, "batch_sizes": [1], "protocol": "grpc", "measurement_interval_ms": 1000},
        finished="2024-01-01T00:10:00",
    )


def rounds_run(per_level: dict[int, dict[int, float]], name: str = "v") -> RunResult:
    """A finished rounds run of one variant ``name``: ``{concurrency: {round: infer/s}}``, a p99 of 2 ms per
    request in flight (spread), seed 1."""
    from perf.records.rounds import RoundsRecord

    lvs = [level_result(c, t, 2.0 * c, spread=True, trial=r) for c, per in per_level.items() for r, t in per.items()]
    return run_result([variant_result(name, lvs)], rounds=RoundsRecord(seed=1), finished="x")
