"""One visit of a co-location run: one perf_analyzer per model, started together against one
server, the same window settings for each.

Each perf_analyzer runs in its own thread; the threads meet at a barrier and start their
processes at once, so that the measured windows overlap (each run is one perf_analyzer call of
3 merged windows of ``window_ms``, as a rounds visit is: :func:`perf.measure.level.measure_visit`).
Each model's numbers are perf_analyzer's over its merged windows: throughput, p99, the
server's queue time and its compute time (input + infer + output) per request. The host's other
load is sampled over the span of all the windows (the server and every perf_analyzer of the
visit are its own; :class:`perf.measure.host.HostSampler`); with GPU variants, so are the GPUs'
utilisation and memory (:class:`perf.colocate.gpu.GpuSampler`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import shlex
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from clients.server import TritonServer
from core.errors import PerfError
from perf.colocate.gpu import GpuProbe, GpuSampler
from perf.measure import analyzer
from perf.measure.analyzer_output import STABILITY_WINDOWS, RunOutcome
from perf.measure.host import HostSampler, is_host_busy, own_roots
from perf.records.colocation_measured import ModelSample
from perf.records.settings import MeasureSettings

log = logging.getLogger(__name__)

Recorder = Callable[[str, str], None]


@dataclasses.dataclass(frozen=True)
class ModelLoad:
    """One model's traffic in a visit.

    Attributes:
        model: The model's name in the run.
        variant: The variant (served model name) perf_analyzer sends to.
        concurrency: Outstanding requests perf_analyzer keeps.
        input_args: perf_analyzer's input flags (:func:`perf.measure.inputs.input_args`).
    """

    model: str
    variant: str
    concurrency: int
    input_args: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class Together:
    """What one visit measured.

    Attributes:
        samples: One per load, in the loads' order.
        wall_s: First perf_analyzer start to last exit (s).
        host_busy_pct: Other processes' CPU over the windows (% of one core); ``None``: not sampled.
        host_busy: Over the threshold.
        gpu_utilization_pct: The GPUs' mean utilisation over the windows (%); ``None``: not sampled.
        gpu_memory_used_bytes: Their peak memory used over the windows (bytes); ``None``: not sampled.
    """

    samples: list[ModelSample]
    wall_s: float
    host_busy_pct: float | None
    host_busy: bool
    gpu_utilization_pct: float | None = None
    gpu_memory_used_bytes: float | None = None


def measure_together(
    pa: Path,
    srv: TritonServer,
    loads: Sequence[ModelLoad],
    settings: MeasureSettings,
    csv_dir: Path,
    tag: str,
    record_command: Recorder,
    host_threshold_pct: float,
    gpu: GpuProbe | None = None,
) -> Together:
    """Run one perf_analyzer per load at the same time (module docstring).

    Args:
        pa: perf_analyzer binary.
        srv: The running server, every variant of ``loads`` loaded.
        loads: The models' traffic.
        settings: The window settings, the same for each (its ``measurement_interval_ms`` is a window).
        csv_dir: Where the raw CSVs go (``<tag>_<variant>.csv``).
        tag: The visit's name in file names (``s2_r3_o1``).
        record_command: ``(what, command line)`` -> written to ``commands.txt``.
        host_threshold_pct: The busy-host threshold (% of one core).
        gpu: The server's GPUs, sampled over the windows when given (:mod:`perf.colocate.gpu`).

    Returns:
        Each model's numbers, the visit's wall time, the host's other load and the GPUs' use.
    """
    once = dataclasses.replace(
        settings, stability_pct=1e6, max_trials=STABILITY_WINDOWS, unstable_retries=0, collect_metrics=False
    )
    url = srv.grpc_url if settings.protocol == "grpc" else srv.http_url
    csv_dir.mkdir(parents=True, exist_ok=True)
    cmds = []
    for ld in loads:
        csv = csv_dir / f"{tag}_{ld.variant}.csv"
        cmd = analyzer.build_command(pa, ld.variant, url, ld.concurrency, 1, csv, once, None, ld.input_args)
        record_command(f"{tag} {ld.model}={ld.variant} concurrency {ld.concurrency}", shlex.join(cmd))
        cmds.append((cmd, csv))
    roots, _not_sampled = own_roots(srv)
    hosts = HostSampler(roots or [])
    outcomes: list[RunOutcome | str] = ["not run"] * len(loads)
    barrier = threading.Barrier(len(loads))
    timeout_s = 60 + 3 * settings.measurement_interval_ms / 1000 * (STABILITY_WINDOWS + 2)

    def one(i: int) -> None:
        cmd, csv = cmds[i]
        barrier.wait()
        try:
            outcomes[i] = analyzer.run_perf_analyzer(cmd, csv, timeout_s=timeout_s, on_start=hosts.add_root)
        except PerfError as e:  # a hung perf_analyzer fails this model's sample, not the run
            outcomes[i] = str(e).splitlines()[0]

    start = time.monotonic()
    gpus = gpu.sampler() if gpu is not None else contextlib.nullcontext()
    with hosts, gpus:
        threads = [threading.Thread(target=one, args=(i,), daemon=True) for i in range(len(loads))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    wall = time.monotonic() - start
    spans = [o.stable_span()[:2] for o in outcomes if isinstance(o, RunOutcome)]
    span = (min(s[0] for s in spans), max(s[1] for s in spans)) if spans else None
    busy = hosts.other_pct(span) if roots else None
    samples = [_sample(ld, o) for ld, o in zip(loads, outcomes)]
    util, memory = gpus.summary(span) if isinstance(gpus, GpuSampler) else (None, None)
    return Together(
        samples, round(wall, 3), None if busy is None else round(busy, 2), is_host_busy(busy, host_threshold_pct), util, memory
    )


def _sample(ld: ModelLoad, outcome: RunOutcome | str) -> ModelSample:
    """One model's numbers from its perf_analyzer run (or why there are none)."""
    if isinstance(outcome, str):
        return ModelSample(ld.model, ld.variant, error=outcome)
    problem = outcome.problem()
    if problem is None and (outcome.returncode != 0 or not outcome.rows):
        lines = [ln for ln in outcome.output_tail.splitlines() if ln.strip()]
        problem = (lines[-1] if lines else f"perf_analyzer exited {outcome.returncode}")[:300]
    if problem is not None:
        return ModelSample(ld.model, ld.variant, error=problem)
    row = outcome.rows[0]
    parts = [row.get(k) for k in ("server_compute_input_us", "server_compute_infer_us", "server_compute_output_us")]
    compute = sum(p for p in parts if p is not None) if any(p is not None for p in parts) else None
    return ModelSample(
        ld.model,
        ld.variant,
        throughput_infer_per_s=row.get("throughput_infer_per_s"),
        latency_p99_ms=row.get("latency_p99_ms"),
        server_queue_us=row.get("server_queue_us"),
        server_compute_us=compute,
    )
