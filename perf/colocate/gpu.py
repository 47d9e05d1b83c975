"""The GPU path of a co-location run: KIND_GPU instance groups of several models sharing devices,
each model's GPU memory, and the GPU's utilisation in every visit.

What Triton offers, and so what the numbers are (Triton docs, "Metrics" and "Statistics
Extension"; ``tritonbackend.h``):

- ``nv_gpu_memory_used_bytes`` and ``nv_gpu_utilization`` (metrics endpoint) are **per GPU**
  (label ``gpu_uuid``), not per model, refreshed every ``--metrics-interval-ms``. So a model's
  GPU memory here is a **difference**: the device memory used (summed over the server's GPUs)
  just after the variant's load minus just before it, the other variants then loaded staying
  loaded (each reading waits for a refresh of the gauges). It includes whatever the load brings
  onto the device: weights, workspace, and a CUDA context per instance where the backend runs
  instances in their own processes (the python backend's stubs). The first GPU variant a backend
  loads also pays the backend's own set-up on the device; the record keeps the load order
  (``loaded_with``) so that it can be read so.
- The statistics extension's ``memory_usage`` of a model (``type``, ``id``, ``byte_size``) is what
  the model's **backend reports** (``TRITONBACKEND_ModelReportMemoryUsage``,
  ``TRITONBACKEND_ModelInstanceReportMemoryUsage``); backends that do not report leave it empty.
  It is recorded beside the difference when there (``reported_bytes``), ``None`` otherwise.
- Where the server exports no GPU gauges (built without them, or ``--allow-gpu-metrics=false``)
  and runs on this host, NVML's device memory and utilisation stand in, over the GPUs in
  ``CUDA_VISIBLE_DEVICES``; the record names the source of every number.

No GPU, no GPU run: a KIND_GPU variant is refused before the server starts where this host (the
server's) has no NVIDIA GPU, or names device ids it does not have; a remote server whose metrics
report no GPU is refused before anything is measured. A KIND_GPU variant is never measured on the
CPU instead.
"""

from __future__ import annotations

import contextlib
import logging
import statistics
import threading
import time
import urllib.request
from collections.abc import Callable, Sequence
from typing import Any

from core.errors import PerfError
from core.wording import count
from perf.measure.metrics import in_span
from perf.records.colocation_measured import GpuMemory

log = logging.getLogger(__name__)

#: Triton's per-GPU gauges read here.
MEMORY_GAUGE = "nv_gpu_memory_used_bytes"
UTIL_GAUGE = "nv_gpu_utilization"
#: The sources of GPU numbers, in the words the record keeps.
FROM_METRICS = "Triton metrics (nv_gpu_memory_used_bytes / nv_gpu_utilization, per GPU)"
FROM_NVML = "NVML on this host (the server exports no GPU gauges)"

Reading = dict[str, tuple[float, float | None]]  # device -> (memory used bytes, utilisation %)


def parse_gpu_gauges(text: str) -> Reading:
    """Per-GPU memory used (bytes) and utilisation (%) from a Prometheus metrics page; empty when
    it has no GPU gauge."""
    from prometheus_client.parser import text_string_to_metric_families

    memory: dict[str, float] = {}
    util: dict[str, float] = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            device = s.labels.get("gpu_uuid")
            if device is None:
                continue
            if s.name == MEMORY_GAUGE:
                memory[device] = float(s.value)
            elif s.name == UTIL_GAUGE:
                util[device] = float(s.value) * 100.0
    return {d: (m, util.get(d)) for d, m in memory.items()}


def scrape_gpu(metrics_url: str, timeout_s: float = 2.0) -> Reading:
    """One scrape of the server's metrics page (:func:`parse_gpu_gauges`)."""
    url = metrics_url if metrics_url.startswith("http") else f"http://{metrics_url}"
    with urllib.request.urlopen(url, timeout=timeout_s) as r:  # noqa: S310 (the server's own metrics URL)
        return parse_gpu_gauges(r.read().decode())


def nvml_reading() -> Reading:
    """Memory used (bytes) and utilisation (%) of this host's GPUs in ``CUDA_VISIBLE_DEVICES``
    (NVML), keyed ``nvml:<index>``; empty without NVML or a GPU."""
    try:
        import pynvml

        from core.gpu import visible_gpu_indices

        pynvml.nvmlInit()
    except Exception as e:  # noqa: BLE001 - no driver: no reading
        log.debug("NVML not available: %s", e)
        return {}
    try:
        out: Reading = {}
        for i in visible_gpu_indices(pynvml.nvmlDeviceGetCount()):
            h = pynvml.nvmlDeviceGetHandleByIndex(i)
            out[f"nvml:{i}"] = (float(pynvml.nvmlDeviceGetMemoryInfo(h).used), float(pynvml.nvmlDeviceGetUtilizationRates(h).gpu))
        return out
    except Exception as e:  # noqa: BLE001
        log.debug("NVML query failed: %s", e)
        return {}
    finally:
        with contextlib.suppress(Exception):
            pynvml.nvmlShutdown()


def reported_gpu_bytes(stats: dict[str, Any]) -> float | None:
    """The GPU bytes a model's backend reports in the statistics extension's ``memory_usage``
    (summed over its entries of type ``GPU``); ``None`` when it reports none."""
    total, seen = 0.0, False
    for m in stats.get("model_stats", []):
        for u in m.get("memory_usage", []) or []:
            if str(u.get("type", "")).upper() == "GPU":
                total += float(u.get("byte_size", 0))
                seen = True
    return total if seen and total > 0 else None


class GpuProbe:
    """Reads the server's GPUs (module docstring): from its metrics page, or NVML for a server on
    this host that exports no GPU gauges.

    Args:
        metrics_url: The server's ``host:port/metrics``.
        http_url: Its HTTP endpoint (statistics).
        refresh_s: How often the server refreshes its gauges (``--metrics-interval-ms`` / 1000).
        local: The server runs on this host (NVML may stand in).
        scrape: Reads the metrics page (tests fake it).
        nvml: Reads NVML (tests fake it).
        stats: ``variant -> the statistics JSON`` (tests fake it).
        sleep: Waits (tests fake it).
    """

    def __init__(
        self,
        metrics_url: str,
        http_url: str,
        refresh_s: float,
        local: bool,
        scrape: Callable[[str], Reading] = scrape_gpu,
        nvml: Callable[[], Reading] = nvml_reading,
        stats: Callable[[str], dict[str, Any]] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.metrics_url, self.http_url, self.refresh_s, self.local = metrics_url, http_url, refresh_s, local
        self._scrape, self._nvml, self._stats, self._sleep = scrape, nvml, stats or self._server_stats, sleep
        self.source: str | None = None

    def read(self) -> Reading:
        """One reading of every GPU; empty when neither source has one. Sets :attr:`source`."""
        try:
            got = self._scrape(self.metrics_url)
        except OSError as e:
            log.debug("metrics page %s did not answer: %s", self.metrics_url, e)
            got = {}
        if got:
            self.source = FROM_METRICS
            return got
        got = self._nvml() if self.local else {}
        self.source = FROM_NVML if got else None
        return got

    def settled(self) -> Reading:
        """A reading taken after the server refreshed its gauges (a little over one interval)."""
        if self.source != FROM_NVML:
            self._sleep(self.refresh_s * 1.2 + 0.05)
        return self.read()

    def devices(self) -> list[str]:
        """The GPUs the server reports (or NVML sees, for a server here), by key."""
        return sorted(self.read())

    def model_memory(
        self, model: str, variant: str, device_ids: Sequence[int], loaded: Sequence[str], load: Callable[[], object]
    ) -> GpuMemory:
        """Load ``variant`` with ``load`` and record its GPU memory (module docstring): the device
        memory used after minus before, the backend's report, what else was loaded."""
        before = self.settled()
        load()
        after = self.settled()
        source = self.source
        delta = {d: after[d][0] - before[d][0] for d in after if d in before} if before and after else {}
        try:
            reported = reported_gpu_bytes(self._stats(variant))
        except Exception as e:  # noqa: BLE001 - statistics are extra; the difference is the number
            log.debug("statistics of %s unavailable: %s", variant, e)
            reported = None
        return GpuMemory(
            model=model,
            variant=variant,
            device_ids=list(device_ids),
            before_bytes={d: v[0] for d, v in before.items()},
            after_bytes={d: v[0] for d, v in after.items()},
            delta_bytes=sum(delta.values()) if delta else None,
            reported_bytes=reported,
            loaded_with=sorted(loaded),
            source=source or "no GPU reading (the server reports no GPU gauges and is not on this host)",
        )

    def _server_stats(self, variant: str) -> dict[str, Any]:
        import tritonclient.http as th

        with contextlib.closing(th.InferenceServerClient(self.http_url, network_timeout=10)) as c:
            return dict(c.get_inference_statistics(variant))

    def sampler(self) -> GpuSampler:
        """A sampler of this probe's readings for one visit."""
        return GpuSampler(self)


class GpuSampler:
    """Samples a :class:`GpuProbe` in a thread while a visit runs; summarises a span of it:
    mean utilisation (%, mean over GPUs) and peak memory used (bytes, summed over GPUs)."""

    def __init__(self, probe: GpuProbe, period_s: float = 0.1):
        self.probe, self.period_s = probe, period_s
        self.times: list[float] = []
        self.readings: list[Reading] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(Exception):  # a missed reading is no reading
                got = self.probe.read()
                if got:
                    self.times.append(time.monotonic())
                    self.readings.append(got)
            self._stop.wait(self.period_s)

    def __enter__(self) -> GpuSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)

    def summary(self, span: tuple[float, float] | None) -> tuple[float | None, float | None]:
        """``(mean utilisation %, peak memory used bytes)`` over the readings in ``span``."""
        got = in_span(self.times, self.readings, span)
        utils = [
            statistics.fmean(u for _m, u in r.values() if u is not None)
            for r in got
            if any(u is not None for _m, u in r.values())
        ]
        memory = [sum(m for m, _u in r.values()) for r in got]
        return (round(statistics.fmean(utils), 2) if utils else None, max(memory) if memory else None)


def check_devices(
    gpu_variants: dict[str, tuple[int, ...]], local: bool, visible: int, remote_devices: Sequence[str] | None = None
) -> None:
    """Refuse a GPU run the server cannot do (module docstring).

    Args:
        gpu_variants: KIND_GPU variant -> the device ids its groups list (empty: every GPU).
        local: The server runs on this host (its GPUs are NVML's here).
        visible: GPUs this host shows the server (``CUDA_VISIBLE_DEVICES`` applied).
        remote_devices: For a server elsewhere, once started: the GPUs its metrics report.

    Raises:
        PerfError: no GPU where the server runs, or a device id it does not have.
    """
    if not gpu_variants:
        return
    names = ", ".join(sorted(gpu_variants))
    if local and visible == 0:
        raise PerfError(
            f"{names}: KIND_GPU instance groups, but this host has no NVIDIA GPU (NVML sees none): they cannot load here, "
            "and they are not measured on the CPU instead",
            hint="run on a GPU host (scripts/gpu_check.sh), or co-locate KIND_CPU variants (builders build --instance-kind cpu)",
        )
    if not local and remote_devices is not None and not remote_devices:
        raise PerfError(
            f"{names}: KIND_GPU instance groups, but the server's metrics report no GPU: nothing was measured",
            hint="point --url at a server with GPUs (and GPU metrics on), or co-locate KIND_CPU variants",
        )
    have = visible if local else len(remote_devices or [])
    if have:
        absent = {v: [i for i in ids if i >= have] for v, ids in gpu_variants.items()}
        absent = {v: ids for v, ids in absent.items() if ids}
        if absent:
            said = "; ".join(f"{v} lists GPU {', '.join(map(str, ids))}" for v, ids in sorted(absent.items()))
            raise PerfError(
                f"{said}: the server sees {count(have, 'GPU')} (ids 0-{have - 1})",
                hint="rebuild the variant with --gpus naming ids the server has, or set CUDA_VISIBLE_DEVICES",
            )


def shared_devices(combination_ids: dict[str, tuple[int, ...] | None]) -> str:
    """How a combination's KIND_GPU variants share devices, in words, from each one's device ids
    (``()``: every GPU; ``None``: not a GPU variant)."""
    gpu = {m: ids for m, ids in combination_ids.items() if ids is not None}
    if len(gpu) < 2:
        return "one model on the GPU" if gpu else "no model on a GPU"
    if any(not ids for ids in gpu.values()):
        return "every KIND_GPU model on every GPU the server sees (" + ", ".join(sorted(gpu)) + " share them)"
    common = set.intersection(*(set(ids) for ids in gpu.values()))
    per = ", ".join(f"{m} on GPU {', '.join(map(str, ids))}" for m, ids in sorted(gpu.items()))
    return f"{per}: " + (f"sharing GPU {', '.join(map(str, sorted(common)))}" if common else "no device shared by all")
