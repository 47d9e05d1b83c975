"""Records of a sweep and the results store (``results/<run-id>/``).

``results.json`` schema (version 1), units in field names:

.. code-block:: text

    {
      "schema": 1,
      "run_id": str, "created": ISO time, "finished": ISO time | null,
      "environment": {host, os, cpu, cpu_count, memory_bytes, gpus: [{name, driver, memory_bytes}],
                      versions: {...}, server: {runtime, reason, version, command}, perf_analyzer: {path, version}},
      "settings": {concurrency: [int], batch_sizes: [int], protocol, measurement_interval_ms, ...},
      "variants": [
        {"name": str, "params": {...Variant fields...} | null, "status": "ok"|"failed"|"pending",
         "error": str | null,
         "levels": [LevelResult...]}
      ]
    }

A metric that does not exist on the host (GPU utilisation on a CPU machine, say) is
``null``, never 0. ``flat.csv`` holds one row per level with the variant's parameters.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import os
import time
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1
RESULTS_FILE = "results.json"
FLAT_FILE = "flat.csv"
COMMANDS_FILE = "commands.txt"


@dataclasses.dataclass
class LevelResult:
    """One measurement point: one variant at one concurrency and client batch size.

    Latencies are client-side (perf_analyzer), in ms; server times are per request, in µs.

    Attributes:
        concurrency: Outstanding requests kept by perf_analyzer (0 for a request-rate level).
        batch_size: Client batch size per request (``-b``).
        trial: Repetition index (0-based, ``--trials``).
        throughput_infer_per_s: Inferences (samples) per second.
        latency_p50_ms .. latency_p99_ms, latency_avg_ms: Client latency percentiles.
        client_send_us, client_recv_us, network_server_us: perf_analyzer's client breakdown.
        server_queue_us: Time in Triton's scheduler queue (dynamic batcher wait).
        server_compute_input_us, server_compute_infer_us, server_compute_output_us: Compute breakdown.
        avg_server_batch_size: Inferences / executions during the level (statistics API):
            the batch size the dynamic batcher actually formed.
        cpu_utilization_pct: Mean of ``nv_cpu_utilization`` x 100 sampled during the level.
        cpu_memory_used_bytes: Max of ``nv_cpu_memory_used_bytes``.
        gpu_utilization_pct: Mean ``nv_gpu_utilization`` x 100 (mean over GPUs); null without GPU.
        gpu_power_w: Mean ``nv_gpu_power_usage`` (W, summed over GPUs); null without GPU.
        gpu_memory_used_bytes: Max ``nv_gpu_memory_used_bytes`` (summed over GPUs); null without GPU.
        nvml_gpu_utilization_pct: Mean GPU utilisation from local NVML sampling; null where
            no local GPU.
        stable: perf_analyzer reached its stability criterion (False: kept, flagged).
        attempts: perf_analyzer runs used for this level (retries with longer windows).
        error: Why the level has no numbers, when it has none.
        csv: Raw perf_analyzer CSV file, relative to the run folder.
        request_rate: Offered load of a request-rate level (requests/s,
            ``--request-rate-range``); ``None`` for a concurrency level.
    """

    concurrency: int
    batch_size: int = 1
    trial: int = 0
    throughput_infer_per_s: float | None = None
    latency_p50_ms: float | None = None
    latency_p90_ms: float | None = None
    latency_p95_ms: float | None = None
    latency_p99_ms: float | None = None
    latency_avg_ms: float | None = None
    client_send_us: float | None = None
    client_recv_us: float | None = None
    network_server_us: float | None = None
    server_queue_us: float | None = None
    server_compute_input_us: float | None = None
    server_compute_infer_us: float | None = None
    server_compute_output_us: float | None = None
    avg_server_batch_size: float | None = None
    cpu_utilization_pct: float | None = None
    cpu_memory_used_bytes: float | None = None
    gpu_utilization_pct: float | None = None
    gpu_power_w: float | None = None
    gpu_memory_used_bytes: float | None = None
    nvml_gpu_utilization_pct: float | None = None
    stable: bool = True
    attempts: int = 1
    error: str | None = None
    csv: str | None = None
    request_rate: float | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.throughput_infer_per_s is not None

    @property
    def key(self) -> tuple[int, int, int, float]:
        """(concurrency, batch_size, trial, request_rate or 0): unique within a variant."""
        return (self.concurrency, self.batch_size, self.trial, self.request_rate or 0.0)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "LevelResult":
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in names})


@dataclasses.dataclass
class VariantResult:
    """All levels of one variant, or the error that stopped it."""

    name: str
    params: dict[str, Any] | None = None
    status: str = "pending"  # pending | ok | failed
    error: str | None = None
    levels: list[LevelResult] = dataclasses.field(default_factory=list)

    def level(self, concurrency: int, batch_size: int = 1, trial: int = 0, request_rate: float | None = None) -> LevelResult | None:
        """The level with these settings (``concurrency=0, request_rate=R`` for a request-rate level)."""
        return next((lv for lv in self.levels if lv.key == (concurrency, batch_size, trial, request_rate or 0.0)), None)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "VariantResult":
        return cls(d["name"], d.get("params"), d.get("status", "pending"), d.get("error"),
                   [LevelResult.from_json(x) for x in d.get("levels", [])])


@dataclasses.dataclass
class RunResult:
    """A whole sweep (the content of ``results.json``)."""

    run_id: str
    created: str
    environment: dict[str, Any] = dataclasses.field(default_factory=dict)
    settings: dict[str, Any] = dataclasses.field(default_factory=dict)
    variants: list[VariantResult] = dataclasses.field(default_factory=list)
    finished: str | None = None
    schema: int = SCHEMA_VERSION

    def variant(self, name: str) -> VariantResult | None:
        return next((v for v in self.variants if v.name == name), None)

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "RunResult":
        return cls(d["run_id"], d["created"], d.get("environment", {}), d.get("settings", {}),
                   [VariantResult.from_json(v) for v in d.get("variants", [])], d.get("finished"), d.get("schema", 1))


def new_run_id() -> str:
    """``YYYYmmdd-HHMMSS`` (local time), sortable."""
    return time.strftime("%Y%m%d-%H%M%S")


def save(run: RunResult, run_dir: Path) -> Path:
    """Write ``results.json`` atomically (temp file + rename) and ``flat.csv``; returns the JSON path.

    Called after every level, so an interrupted sweep keeps everything measured so far.
    """
    run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / RESULTS_FILE
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(run.to_json(), indent=2) + "\n")
    os.replace(tmp, path)
    write_flat_csv(run, run_dir / FLAT_FILE)
    return path


def load(run_dir: Path) -> RunResult:
    """Read ``<run_dir>/results.json``.

    Raises:
        PerfError: missing or unreadable file.
    """
    from core.errors import PerfError

    path = Path(run_dir) / RESULTS_FILE
    try:
        return RunResult.from_json(json.loads(path.read_text()))
    except FileNotFoundError as e:
        raise PerfError(f"no {RESULTS_FILE} in {run_dir}", hint="pass a run folder written by perf/run_sweep.sh (results/<run-id>)") from e
    except KeyError as e:
        raise PerfError(f"{path} is not a results file of this toolkit: field {e} is missing",
                        hint="pass a run folder written by perf/run_sweep.sh") from e
    except (json.JSONDecodeError, TypeError) as e:
        raise PerfError(f"{path} is not a results file of this toolkit: {e}") from e


def write_flat_csv(run: RunResult, path: Path) -> None:
    """One row per level: variant name, its parameters, then every :class:`LevelResult` field."""
    level_fields = [f.name for f in dataclasses.fields(LevelResult)]
    param_keys: list[str] = []
    for v in run.variants:
        for k in (v.params or {}):
            if k not in param_keys and k != "name":
                param_keys.append(k)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["variant", "status", *param_keys, *level_fields])
        for v in run.variants:
            for lv in v.levels:
                row = dataclasses.asdict(lv)
                w.writerow([v.name, v.status, *[(v.params or {}).get(k) for k in param_keys], *[row[k] for k in level_fields]])
