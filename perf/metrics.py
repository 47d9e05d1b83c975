"""Server-side measurements taken while perf_analyzer runs a level.

- :class:`MetricsSampler` scrapes Triton's Prometheus endpoint (``/metrics``) in a thread:
  ``nv_cpu_utilization`` (fraction 0..1), ``nv_cpu_memory_used_bytes``,
  ``nv_gpu_utilization`` (fraction), ``nv_gpu_power_usage`` (W),
  ``nv_gpu_memory_used_bytes`` (Triton docs, "Metrics"). Metrics the server does not
  export (GPU ones on a CPU host) stay ``None``.
- :class:`NvmlSampler` samples local GPU utilisation and memory through NVML
  (``nvidia-ml-py``), over the GPUs in ``CUDA_VISIBLE_DEVICES``; it records nothing where
  there is no local GPU.
- :class:`ProcessCpuSampler` measures the CPU time of the server's own processes
  (tritonserver and its children, e.g. python-backend stubs) through ``psutil``: Triton's
  ``nv_cpu_utilization`` is the whole host's, perf_analyzer included.
- :func:`batch_stats` reads inference/execution counts from the statistics API: their
  ratio over a level is the batch size the dynamic batcher actually formed.
"""

from __future__ import annotations

import contextlib
import logging
import statistics
import threading
import time
import urllib.request
from typing import Any

from core.gpu import visible_gpu_indices

log = logging.getLogger(__name__)

_GAUGES = {
    "nv_cpu_utilization": "cpu",
    "nv_cpu_memory_used_bytes": "cpu_mem",
    "nv_gpu_utilization": "gpu",
    "nv_gpu_power_usage": "gpu_power",
    "nv_gpu_memory_used_bytes": "gpu_mem",
}


def scrape(metrics_url: str, timeout_s: float = 2.0) -> dict[str, list[float]]:
    """One scrape of ``http://<metrics_url>``: gauge name -> values (one per GPU for GPU gauges)."""
    from prometheus_client.parser import text_string_to_metric_families

    url = metrics_url if metrics_url.startswith("http") else f"http://{metrics_url}"
    with urllib.request.urlopen(url, timeout=timeout_s) as r:  # noqa: S310 (local server URL)
        text = r.read().decode()
    out: dict[str, list[float]] = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            if s.name in _GAUGES:
                out.setdefault(s.name, []).append(float(s.value))
    return out


class MetricsSampler:
    """Scrape the server's metrics endpoint every ``period_s`` between ``start()`` and ``stop()``.

    Args:
        metrics_url: ``host:port/metrics``.
        period_s: Sampling period (default 0.25 s; Triton refreshes gauges every
            ``--metrics-interval-ms``, 500 ms as launched by this toolkit).
    """

    def __init__(self, metrics_url: str, period_s: float = 0.25):
        self.url = metrics_url
        self.period_s = period_s
        self.samples: list[dict[str, list[float]]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.samples.append(scrape(self.url))
            except Exception as e:  # a missed scrape is not fatal; the summary says what was seen
                log.debug("metrics scrape failed: %s", e)
            self._stop.wait(self.period_s)

    def __enter__(self) -> "MetricsSampler":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)

    def summary(self) -> dict[str, float | None]:
        """LevelResult fields: mean CPU/GPU utilisation (%), mean GPU power (W, summed over
        GPUs), max CPU/GPU memory (bytes, GPU summed). ``None`` where never exported."""

        def series(name: str, reduce: str) -> list[float]:
            vals = []
            for s in self.samples:
                if name in s and s[name]:
                    v = s[name]
                    vals.append(sum(v) / len(v) if reduce == "mean" else sum(v))
            return vals

        def mean(xs: list[float], factor: float = 1.0) -> float | None:
            return statistics.fmean(xs) * factor if xs else None

        def peak(xs: list[float]) -> float | None:
            return max(xs) if xs else None

        return {
            "cpu_utilization_pct": mean(series("nv_cpu_utilization", "mean"), 100.0),
            "cpu_memory_used_bytes": peak(series("nv_cpu_memory_used_bytes", "sum")),
            "gpu_utilization_pct": mean(series("nv_gpu_utilization", "mean"), 100.0),
            "gpu_power_w": mean(series("nv_gpu_power_usage", "sum")),
            "gpu_memory_used_bytes": peak(series("nv_gpu_memory_used_bytes", "sum")),
        }


class NvmlSampler:
    """Mean utilisation (%) of the local GPUs through NVML while active; ``None`` without one."""

    def __init__(self, period_s: float = 0.1):
        self.period_s = period_s
        self.values: list[float] = []
        self.memory: list[float] = []
        self._handles: list[Any] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "NvmlSampler":
        try:
            import pynvml

            pynvml.nvmlInit()
            self._handles = [pynvml.nvmlDeviceGetHandleByIndex(i) for i in visible_gpu_indices(pynvml.nvmlDeviceGetCount())]
        except Exception as e:  # no driver / no GPU: NVML sampling is simply absent
            log.debug("NVML not available: %s", e)
            self._handles = []
        if self._handles:
            self._thread = threading.Thread(target=self._loop, daemon=True)
            self._thread.start()
        return self

    def _loop(self) -> None:
        import pynvml

        while not self._stop.is_set():
            with contextlib.suppress(Exception):
                u = [pynvml.nvmlDeviceGetUtilizationRates(h).gpu for h in self._handles]
                self.values.append(sum(u) / len(u))
                self.memory.append(float(sum(pynvml.nvmlDeviceGetMemoryInfo(h).used for h in self._handles)))
            self._stop.wait(self.period_s)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(5)
            with contextlib.suppress(Exception):
                import pynvml

                pynvml.nvmlShutdown()

    def mean_pct(self) -> float | None:
        return statistics.fmean(self.values) if self.values else None

    def max_memory_bytes(self) -> float | None:
        """Peak device memory used (bytes, summed over the sampled GPUs)."""
        return max(self.memory) if self.memory else None


class ProcessCpuSampler:
    """CPU used by a process and its descendants between ``__enter__`` and ``__exit__``, in cores.

    Reads ``psutil`` CPU times (user + system, plus those of children the process reaped)
    of ``pid`` and every descendant at the start and the end; a descendant started in
    between counts from zero, one that ended in between counts through its parent's
    reaped-children times where the parent waited for it. ``cores()`` is the CPU seconds
    used per wall second: 1.0 = one core fully busy, up to the host's core count.

    Args:
        pid: The server's process id; ``None`` (a server in a container or not started by
            this toolkit) records nothing.
    """

    def __init__(self, pid: int | None):
        self.pid = pid
        self._start: dict[int, float] = {}
        self._t0 = self._t1 = 0.0
        self._used_s: float | None = None

    @staticmethod
    def _cpu_seconds(proc: Any) -> float:
        t = proc.cpu_times()
        return t.user + t.system + t.children_user + t.children_system

    def _snapshot(self) -> dict[int, float]:
        import psutil

        root = psutil.Process(self.pid)
        out = {}
        for proc in [root, *root.children(recursive=True)]:
            with contextlib.suppress(psutil.NoSuchProcess, psutil.ZombieProcess):
                out[proc.pid] = self._cpu_seconds(proc)
        return out

    def __enter__(self) -> "ProcessCpuSampler":
        if self.pid is not None:
            try:
                self._start = self._snapshot()
            except Exception as e:  # gone or not readable: nothing is recorded (null), never 0
                log.debug("server process %s not readable: %s", self.pid, e)
                self.pid = None
        self._t0 = time.monotonic()
        return self

    def __exit__(self, *exc: object) -> None:
        self._t1 = time.monotonic()
        if self.pid is None:
            return
        try:
            end = self._snapshot()
        except Exception as e:
            log.debug("server process %s not readable at the end of the level: %s", self.pid, e)
            return
        self._used_s = sum(max(0.0, t - self._start.get(pid, 0.0)) for pid, t in end.items())

    def cpu_seconds(self) -> float | None:
        """CPU seconds the process tree used over the interval; ``None`` when not measured."""
        return self._used_s

    def cores(self) -> float | None:
        """Mean cores used over the interval (CPU s / wall s); ``None`` when not measured."""
        wall = self._t1 - self._t0
        return None if self._used_s is None or wall <= 0 else self._used_s / wall


def batch_stats(http_url: str, model: str) -> tuple[int, int] | None:
    """``(inference_count, execution_count)`` of ``model`` from the statistics API
    (``GET v2/models/<model>/stats``); ``None`` when unavailable."""
    import tritonclient.http as th

    try:
        with contextlib.closing(th.InferenceServerClient(http_url, network_timeout=10)) as c:
            stats = c.get_inference_statistics(model)
    except Exception as e:
        log.debug("statistics for %s unavailable: %s", model, e)
        return None
    inf = sum(int(s.get("inference_count", 0)) for s in stats.get("model_stats", []))
    exe = sum(int(s.get("execution_count", 0)) for s in stats.get("model_stats", []))
    return inf, exe
