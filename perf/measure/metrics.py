"""Server-side measurements taken while perf_analyzer runs a level.

- :class:`MetricsSampler` scrapes Triton's Prometheus endpoint (``/metrics``) in a thread:
  ``nv_cpu_utilization`` (fraction 0..1), ``nv_cpu_memory_used_bytes``,
  ``nv_gpu_utilization`` (fraction), ``nv_gpu_power_usage`` (W),
  ``nv_gpu_memory_used_bytes`` (Triton docs, "Metrics"). Metrics the server does not
  export (GPU ones on a CPU host) stay ``None``.
- :class:`NvmlSampler` samples local GPU utilisation and memory through NVML
  (``nvidia-ml-py``), over the GPUs in ``CUDA_VISIBLE_DEVICES``; it records nothing where
  there is no local GPU.
- :class:`perf.measure.host.HostSampler` samples the host's CPU use through
  ``psutil`` and splits it: the server's own processes, the rest of the measurement, and other
  work on the host, which makes a measurement's numbers untrustworthy.
- :func:`batch_stats` reads inference/execution counts from the statistics API: their
  ratio over a level is the batch size the dynamic batcher actually formed.

Every sampler stamps its samples with ``time.monotonic()`` and summarises a span
``(start, end)`` on that clock: the span of perf_analyzer's merged windows
(:meth:`perf.measure.analyzer_output.RunOutcome.stable_span`), so that utilisation covers the windows the
throughput and latency come from; without a span, everything sampled.
"""

from __future__ import annotations

import contextlib
import logging
import statistics
import threading
import time
import urllib.request
from collections.abc import Sequence
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
        self.times: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                sample = scrape(self.url)
                self.times.append(time.monotonic())
                self.samples.append(sample)
            except Exception as e:  # a missed scrape is not fatal; the summary says what was seen
                log.debug("metrics scrape failed: %s", e)
            self._stop.wait(self.period_s)

    def __enter__(self) -> MetricsSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)

    def summary(self, span: tuple[float, float] | None = None) -> dict[str, float | None]:
        """LevelResult fields: mean CPU/GPU utilisation (%), mean GPU power (W, summed over
        GPUs), max CPU/GPU memory (bytes, GPU summed). ``None`` where never exported.

        Args:
            span: ``(start, end)`` on the monotonic clock: only samples taken in it count
                (all of them when it holds none, or when ``span`` is None).
        """
        samples = in_span(self.times, self.samples, span)

        def series(name: str, reduce: str) -> list[float]:
            vals = []
            for s in samples:
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

    def __init__(self, period_s: float = 0.1, enabled: bool = True):
        self.period_s = period_s
        #: ``False`` for a server on another machine (``--runtime remote``): this host's GPUs are not its own.
        self.enabled = enabled
        self.values: list[float] = []
        self.memory: list[float] = []
        self.times: list[float] = []
        self._handles: list[Any] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> NvmlSampler:
        if not self.enabled:
            return self
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
                mem = float(sum(pynvml.nvmlDeviceGetMemoryInfo(h).used for h in self._handles))
                self.times.append(time.monotonic())
                self.values.append(sum(u) / len(u))
                self.memory.append(mem)
            self._stop.wait(self.period_s)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(5)
            with contextlib.suppress(Exception):
                import pynvml

                pynvml.nvmlShutdown()

    def mean_pct(self, span: tuple[float, float] | None = None) -> float | None:
        """Mean utilisation (%) of the samples in ``span`` (see :meth:`MetricsSampler.summary`)."""
        vals = in_span(self.times, self.values, span)
        return statistics.fmean(vals) if vals else None

    def max_memory_bytes(self, span: tuple[float, float] | None = None) -> float | None:
        """Peak device memory used (bytes, summed over the sampled GPUs) in ``span``."""
        vals = in_span(self.times, self.memory, span)
        return max(vals) if vals else None


def in_span(times: Sequence[float], values: Sequence[Any], span: tuple[float, float] | None) -> list[Any]:
    """The ``values`` whose ``times`` lie in ``span`` (inclusive); all of them when ``span``
    is None or holds none (a span shorter than the sampling period)."""
    if span is None:
        return list(values)
    inside = [v for t, v in zip(times, values) if span[0] <= t <= span[1]]
    return inside or list(values)


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
