"""What a co-location run measured (:mod:`perf.records.colocation` holds the record): every visit of every round
(:class:`ColocationVisit`: a combination, or one variant *alone* on the same server), each model's numbers in it
(:class:`ModelSample`), and each KIND_GPU variant's GPU memory at its first load (:class:`GpuMemory`).
"""

from __future__ import annotations

import dataclasses

from pydantic import ConfigDict
from pydantic.dataclasses import dataclass

_CONFIG = ConfigDict(extra="ignore")


@dataclass(config=_CONFIG)
class ModelSample:
    """One model's numbers in one visit (perf_analyzer's merged windows).

    Attributes:
        model: The model (:attr:`ColocatedModel.name`).
        variant: The variant served.
        throughput_infer_per_s: Inferences per second.
        latency_p99_ms: Client p99 latency (ms).
        server_queue_us: Time in the server's queue per request (µs).
        server_compute_us: Compute time per request: input + infer + output (µs).
        error: Why it has no numbers, when it has none.
    """

    model: str
    variant: str
    throughput_infer_per_s: float | None = None
    latency_p99_ms: float | None = None
    server_queue_us: float | None = None
    server_compute_us: float | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        """It has a throughput above zero."""
        return self.error is None and bool(self.throughput_infer_per_s)


@dataclass(config=_CONFIG)
class ColocationVisit:
    """One visit of a round: a combination (every model at once), or one variant alone.

    Attributes:
        step: The :class:`SearchStep` it belongs to.
        round: The round within that step (0-based).
        order: Its place in the round's shuffled order.
        combination: Model -> variant loaded with traffic in this visit (one entry: alone).
        samples: One per model of ``combination``.
        wall_s: First perf_analyzer start to last exit (s).
        host_busy_pct: Other processes' CPU during the visit (% of one core; the server and
            every perf_analyzer of the visit are its own); ``None`` when not sampled.
        host_busy: Over the busy-host threshold (:func:`perf.measure.host.is_host_busy`).
        gpu_utilization_pct: The GPUs' mean utilisation over the visit's windows (%, mean over
            the server's GPUs; :mod:`perf.colocate.gpu`); ``None``: a run without GPU variants.
        gpu_memory_used_bytes: The GPUs' peak memory used over the windows (bytes, summed).
    """

    step: int
    round: int
    order: int
    combination: dict[str, str]
    samples: list[ModelSample] = dataclasses.field(default_factory=list)
    wall_s: float | None = None
    host_busy_pct: float | None = None
    host_busy: bool = False
    gpu_utilization_pct: float | None = None
    gpu_memory_used_bytes: float | None = None

    @property
    def alone(self) -> bool:
        """One model only."""
        return len(self.combination) == 1


@dataclass(frozen=True, config=_CONFIG)
class GpuMemory:
    """One KIND_GPU variant's GPU memory, measured at its first load (:mod:`perf.colocate.gpu`).

    Attributes:
        model, variant: Whose.
        device_ids: The device ids its groups list (empty: every GPU the server sees).
        before_bytes, after_bytes: Device -> memory used just before and just after its load (bytes).
        delta_bytes: After minus before, summed over the devices (bytes): the model's GPU
            memory; ``None`` without a reading.
        reported_bytes: What its backend reports in the statistics' ``memory_usage`` (GPU,
            bytes); ``None`` when it reports none.
        loaded_with: The variants already loaded when it was (their memory is in ``before``).
        source: Where the readings come from (Triton's per-GPU metrics, or NVML on this host).
    """

    model: str
    variant: str
    device_ids: list[int]
    before_bytes: dict[str, float]
    after_bytes: dict[str, float]
    delta_bytes: float | None
    reported_bytes: float | None
    loaded_with: list[str]
    source: str
