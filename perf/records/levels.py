"""One measurement point of a sweep (:class:`LevelResult`), its status, and the levels skipped.

A level is one variant at one concurrency (or request rate) and client batch size, one
trial. Its status is derived from its fields, worst first: ``failed``, ``not achieved``,
``host busy``, ``unstable``, ``ok`` (:data:`LEVEL_STATUSES`). A metric that does not exist on
the host is ``null``, never 0.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal, get_args

from pydantic import ConfigDict, TypeAdapter, computed_field
from pydantic.dataclasses import dataclass

from perf.records.load import HOST_BUSY as _HOST_BUSY

#: Status of a level (:meth:`LevelResult.settle`), worst first.
LevelStatus = Literal["failed", "not achieved", "host busy", "unstable", "ok"]
LEVEL_STATUSES: tuple[str, ...] = get_args(LevelStatus)
#: Statuses whose numbers may back a recommendation (flagged unless ``ok``); a ``not
#: achieved`` or ``failed`` level never does.
USABLE_STATUSES = ("ok", "unstable", "host busy")
#: The status of a level other processes' CPU moved (perf.measure.host.HostSampler): never evidence on its own.
HOST_BUSY: LevelStatus = _HOST_BUSY  # defined once with the other records' load fields (perf.records.load)
#: The status of a level whose perf_analyzer windows never agreed within the stability tolerance.
UNSTABLE: LevelStatus = "unstable"
#: How the notes that say why a level is unstable begin (:mod:`perf.measure.level` writes them): a rounds visit's 3
#: windows, a sequential level's windows. Said under "unstable" wherever a level's flags are said
#: (:func:`perf.analysis.stats.notes.flag_words`), never under "host busy" (trial 26, T26-11).
SPREAD_NOTE = "its 3 windows' throughput spread"
NO_STABLE_WINDOWS_NOTE = "perf_analyzer found no three windows"
UNSTABLE_NOTES = (SPREAD_NOTE, NO_STABLE_WINDOWS_NOTE)
#: What each flag a usable level can carry means, the one wording every legend starts from (each adds
#: where it applies: "at this level", "while those requests were sent"); review of trial 9's F3: four
#: legends worded each flag their own way ("no stable perf_analyzer windows", "other processes used the CPU").
FLAG_MEANINGS: dict[str, str] = {
    UNSTABLE: "perf_analyzer did not reach a stable measurement",
    HOST_BUSY: "other processes used the host's CPU",
}

_CONFIG = ConfigDict(extra="ignore")
#: What perf_analyzer says when a measurement window saw no request complete.
NO_REQUEST_IN_WINDOW = "please use a larger time window"


def window_failure(error: str | None) -> bool:
    """Whether ``error`` is perf_analyzer's "a window saw no request complete" ("Please use a larger
    time window"): a level slower than its window under the load of that moment, which another
    moment may measure, not an error its requests meet each time."""
    return error is not None and NO_REQUEST_IN_WINDOW in error.lower()


#: What perf_analyzer and tritonclient say when a request met the server's state of that moment, not
#: something of the model's requests: a version being (re)loaded or swapped out of the server's index
#: ("failed to find the requested model version", "is not at ready state", "has no available versions"),
#: a connection the busy server or host dropped, a reply later than its deadline (re-check of trial 14,
#: NEW-3: "failed to find the requested model version" at c=16 while server.log had the model loaded
#: throughout, a level other rounds measured). An error not named here (a shape or datatype the model
#: refuses, a model name the server never had) is the same each time.
TRANSIENT_ERRORS = (
    "failed to find the requested model version",
    "is not at ready state",
    "has no available versions",
    "connection reset",
    "broken pipe",
    "socket closed",
    "stream removed",
    "timed out",
    "timeout was reached",
    "deadline exceeded",
)
#: How a level's error begins when the server died under it (:mod:`perf.sweep.context`): its variant fails, whatever
#: perf_analyzer's words after it (a connection reset by the dying server is not the server's state of a moment).
SERVER_DIED = "tritonserver died"
#: How a transient error (:func:`transient_failure`, not a window's) is told: what it is, and what it is not.
TRANSIENT_WORDS = "an error of the server's state at that moment under load, not of the model repository"


def transient_failure(error: str | None) -> bool:
    """Whether ``error`` depends on the moment, not on the level's requests: a window that saw no request
    complete (:func:`window_failure`) or the server's state of that moment (:data:`TRANSIENT_ERRORS`). Another
    visit may measure the level; any other error is met the same way each time."""
    if error is None or error.startswith(SERVER_DIED):
        return False
    low = error.lower()
    return window_failure(error) or any(t in low for t in TRANSIENT_ERRORS)


@dataclass(config=_CONFIG)
class LevelResult:
    """One measurement point: one variant at one concurrency and client batch size.

    Latencies are client-side (perf_analyzer), in ms; server times are per request, in µs.

    Attributes:
        concurrency: Outstanding requests kept by perf_analyzer (0 for a request-rate level).
        batch_size: Client batch size per request (``-b``).
        trial: Repetition index (0-based, ``--trials``); in a rounds sweep, the index of the round it was
            measured in (``RunResult.rounds``; 0-based: the console's "round 1" is 0, flat.csv's ``round`` column 1).
        throughput_infer_per_s: Inferences (samples) per second.
        latency_p50_ms .. latency_p99_ms, latency_avg_ms: Client latency percentiles.
        client_send_us, client_recv_us, network_server_us: perf_analyzer's client breakdown.
        server_queue_us: Time in Triton's scheduler queue (dynamic batcher wait).
        server_compute_input_us, server_compute_infer_us, server_compute_output_us: Compute breakdown.
        avg_server_batch_size: Inferences / executions over perf_analyzer's merged windows
            (the server counts it prints, from the statistics API): the batch size the
            dynamic batcher actually formed while throughput and latency were measured.
        cpu_utilization_pct: Host CPU: mean of Triton's ``nv_cpu_utilization`` x 100 sampled
            over the span of perf_analyzer's merged windows (see ``windows_span_s``). It
            counts every process on the host (perf_analyzer included), not the server alone.
        server_cpu_cores: CPU the server's own processes used during the level, in cores
            (CPU seconds per wall second: tritonserver and its child processes such as
            python-backend stubs; 1.0 = one core fully busy); null where the server's
            process is not on this host (container, remote) or could not be read.
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
        shape: The sizes of the dynamic axes this level swept (``"seq=64"``, axes joined
            with ``,``; ``sweep --shapes``; a mixed workload's range ``"time=1000..16000"``), ``None`` when the sweep did not sweep them (they
            then have the sizes :attr:`VariantResult.dynamic_axes` says).
        request_rate: Offered load of a request-rate level (requests/s,
            ``--request-rate-range``); ``None`` for a concurrency level.
        achieved_rate_per_s: Requests/s a request-rate level really ran at: completed
            requests/s (throughput / batch size), or perf_analyzer's send rate when it
            printed a lower one; ``None`` for a concurrency level.
        delayed_pct: Share of a request-rate level's requests perf_analyzer sent late (%);
            ``None`` when it printed no warning (at most its 1 % threshold).
        rate_achieved: The achieved rate is within the stability tolerance
            (``stability_pct``) of the offered one; ``None`` for a concurrency level.
        host_busy_pct: CPU used by processes other than the server, perf_analyzer and the
            sweep during the merged windows, in % of one core (mean); ``None`` when not sampled.
        host_busy: ``host_busy_pct`` stayed above the threshold (``host_busy_threshold_pct``
            in the run's settings) after one re-measurement.
        host_not_sampled: Why ``host_busy_pct`` is ``None`` (the server on another host:
            :data:`core.host_load.NOT_SAMPLED_ELSEWHERE`); ``None`` when sampled.
        windows_span_s: Length of the span the server and host samples were averaged
            over: perf_analyzer's merged windows, timed from its per-window lines; ``None``
            when those were not seen and the whole run was used.
        throughput_window_spread_pct: Max - min throughput of the merged windows in % of
            their mean (how far perf_analyzer's windows disagreed).
        status: ``"ok"``, ``"unstable"``, ``"host busy"``, ``"not achieved"`` or
            ``"failed"`` (:data:`LEVEL_STATUSES`; a property derived from the fields above,
            written to the file).
        notes: Why the status is not ``"ok"``, one sentence per reason.
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
    server_cpu_cores: float | None = None
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
    shape: str | None = None
    achieved_rate_per_s: float | None = None
    delayed_pct: float | None = None
    rate_achieved: bool | None = None
    host_busy_pct: float | None = None
    host_busy: bool = False
    host_not_sampled: str | None = None
    windows_span_s: float | None = None
    throughput_window_spread_pct: float | None = None
    notes: list[str] = dataclasses.field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def status(self) -> LevelStatus:
        """``failed`` (an error, or no or zero throughput), else ``not achieved``
        (``rate_achieved`` False), else ``host busy``, else ``unstable``, else ``ok``: the
        worst that applies, always derived from those fields (written to ``results.json``
        for readers of the file; ignored when read back)."""
        if self.error is not None or not (self.throughput_infer_per_s or 0) > 0:
            return "failed"
        if self.rate_achieved is False:
            return "not achieved"
        if self.host_busy:
            return "host busy"
        return "ok" if self.stable else UNSTABLE

    def settle(self) -> LevelResult:
        """Give a level without throughput the error that says so (``status`` is then
        ``failed`` with a reason). Returns the level."""
        if self.error is None and not (self.throughput_infer_per_s or 0) > 0:
            self.error = (
                "perf_analyzer measured 0 infer/s"
                if self.throughput_infer_per_s is not None
                else "perf_analyzer produced no throughput"
            )
        return self

    @property
    def ok(self) -> bool:
        """The level has numbers (it did not fail); :attr:`status` says how far they can be trusted."""
        return self.status != "failed"

    @property
    def usable(self) -> bool:
        """Its numbers may back a recommendation (:data:`USABLE_STATUSES`)."""
        return self.ok and self.status in USABLE_STATUSES

    @property
    def load(self) -> tuple[int, int, float, str]:
        """(concurrency, batch_size, request_rate or 0, shape or ""): the level as the report counts
        levels, its trials or rounds folded (:attr:`key` less the trial; trial 7: 2 request rates over
        3 rounds were "6 request-rate level(s)")."""
        return (self.concurrency, self.batch_size, self.request_rate or 0.0, self.shape or "")

    @property
    def key(self) -> tuple[int, int, int, float, str]:
        """(concurrency, batch_size, trial, request_rate or 0, shape or ""): unique within a variant."""
        return (self.concurrency, self.batch_size, self.trial, self.request_rate or 0.0, self.shape or "")

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> LevelResult:
        """Validate a decoded level (unknown keys are ignored)."""
        return _LEVEL.validate_python(d)


@dataclass(config=_CONFIG)
class SkippedLevel:
    """A level the sweep was asked for but did not plan for one variant, and why.

    One record per (client batch size, concurrency or request rate), whatever the number of
    trials.

    Attributes:
        batch_size: Client batch size per request (``-b``).
        reason: Why it was not measured (``"batch size 16 > max_batch_size 8"``).
        concurrency: The concurrency level (0 for a request-rate level).
        request_rate: The request rate of a request-rate level (requests/s), else ``None``.
    """

    batch_size: int
    reason: str
    concurrency: int = 0
    request_rate: float | None = None


_LEVEL = TypeAdapter(LevelResult)
