"""Records of a cold start (``results.json``, per variant: :attr:`perf.records.results.VariantResult.cold_start`)
and the rule that says when a variant's latency is steady.

A cold start is what one variant costs from its load request to its first fast answer: the
load itself (client side, from the repository API's load request to its answer, and as the
server log times it), then single requests at each batch size and dynamic shape the sweep
will send, in that order, right after the load, before the sweep's own warm-up. The first
request at a size is compared with the sweep's steady-state level at that size and, where the
sweep has none, with the median of the requests that follow it (:attr:`FirstRequests.own_median_ms`).

The steady-state rule (:data:`STEADY_RATIO`, :meth:`FirstRequests.requests_to_steady`) is the
one place that decides how many requests a variant needs before its latency is steady; the
warmup count ``triton-perf coldstart`` prints for ``builders build --warmup-count`` comes from it.
"""

from __future__ import annotations

import dataclasses
import statistics

from pydantic import ConfigDict
from pydantic.dataclasses import dataclass

from perf.records.levels import LevelResult
from perf.records.load import load_status

#: A request is "steady" when its latency is at most this many times the steady latency at its
#: batch size and shape: the sweep's p50 at concurrency 1 there, else the median of the requests
#: that followed the first (robust to the slow first ones); :meth:`FirstRequests.requests_to_steady`.
STEADY_RATIO = 1.5

#: What a request sent by Python's tritonclient may take above perf_analyzer's p50 for the same
#: work without being slow (ms): the two clients' own time per request differs, additively. Seen
#: on the bundled server (2026-12-01, the tiny model, 2-core VM): the cold start's last requests
#: took 0.17-0.18 ms more than the sweep's p50 at concurrency 1; 1 ms leaves room for a busier host.
CLIENT_ALLOWANCE_MS = 1.0

_CONFIG = ConfigDict(extra="ignore")


@dataclass(config=_CONFIG)
class FirstRequests:
    """Single requests (one in flight) at one batch size and shape, sent right after the load.

    Attributes:
        batch_size: Requests' batch size (1 for a model with ``max_batch_size: 0``).
        shape: The swept dynamic-axis sizes (``"seq=64"``, a mixed range ``"time=1000..16000"``), ``None`` at
            the default sizes (the build's ``opt`` sizes or ``--shape``).
        sent_shape: The sizes its requests were sent at when ``shape`` is a mixed range: the mix's first entry,
            the one perf_analyzer sends first (:func:`perf.measure.mixed.first_size`); ``None``: at ``shape``.
        latencies_ms: Client latency of each request in the order sent (tritonclient, the
            sweep's protocol), in ms; the first is the first request at this size.
        error: Why there are no latencies, when there are none.
        host_busy_pct, host_busy, host_not_sampled: Other processes' CPU while they were sent
            (% of one core), whether that flags them, why not sampled (:mod:`perf.records.load`).
    """

    batch_size: int
    shape: str | None = None
    sent_shape: str | None = None
    latencies_ms: list[float] = dataclasses.field(default_factory=list)
    error: str | None = None
    host_busy_pct: float | None = None
    host_busy: bool = False
    host_not_sampled: str | None = None

    @property
    def size_text(self) -> str:
        """Its size for a label: ``"seq=64"``, ``"time=1000..16000 (mixed; sent at time=5321, its first size)"``,
        ``""`` at the default sizes."""
        return (self.shape or "") + (f" (mixed; sent at {self.sent_shape}, its first size)" if self.sent_shape else "")

    @property
    def flag(self) -> str:
        """The status its numbers are marked with: ``host busy``, ``failed`` or ``ok``."""
        return load_status("failed" if self.error else "ok", self.host_busy)

    @property
    def first_ms(self) -> float | None:
        """The first request's latency (ms); ``None`` when none was measured."""
        return self.latencies_ms[0] if self.latencies_ms else None

    @property
    def own_median_ms(self) -> float | None:
        """Median latency of the requests after the first (ms); ``None`` with fewer than 3 of them."""
        rest = self.latencies_ms[1:]
        return statistics.median(rest) if len(rest) >= 3 else None

    @property
    def first_ratio(self) -> float | None:
        """First request / :attr:`own_median_ms`; ``None`` when either is missing."""
        med, first = self.own_median_ms, self.first_ms
        return first / med if first is not None and med else None

    def requests_to_steady(self, steady_ms: float | None = None) -> int | None:
        """How many requests were sent before the first steady one (:data:`STEADY_RATIO`).

        The steady latency is ``steady_ms`` — the sweep's steady p50 at concurrency 1 at this size,
        the same reference the report divides the first request by, plus :data:`CLIENT_ALLOWANCE_MS`
        for the other client — else (no such level, or ``triton-perf coldstart`` alone) the median
        of the requests after the first (:attr:`own_median_ms`). So a first request the report
        calls ``49×`` its steady latency is never counted as steady (issue 26: "requests to steady
        0" under twelve requests that were all slow).

        Args:
            steady_ms: The sweep's steady latency at this size (ms); ``None``: the requests' own median.

        Returns:
            0 when the first request was already steady; ``len(latencies_ms)`` when none of them was
            (still slow after every request sent); ``None`` without a reference (fewer than 4
            requests and no ``steady_ms``).
        """
        if steady_ms:  # perf_analyzer's latency: these requests' client may add its own time per request
            limit = STEADY_RATIO * steady_ms + CLIENT_ALLOWANCE_MS
        elif self.own_median_ms is not None:
            limit = STEADY_RATIO * self.own_median_ms
        else:
            return None
        return next((i for i, ms in enumerate(self.latencies_ms) if ms <= limit), len(self.latencies_ms))

    @property
    def never_steady(self) -> str:
        """The words for a count equal to every request sent: ``"none of 12"``."""
        return f"none of {len(self.latencies_ms)}"


@dataclass(config=_CONFIG)
class ColdStart:
    """One variant's cold start, measured right after the sweep (or ``triton-perf coldstart``) loaded it.

    Attributes:
        variant: The variant (model) name (a shape-split report series keeps its variant's name here).
        warmup: The variant's ``model_warmup`` data (``"random"``, ``"zero"``), ``None``: none.
        load_s: From the load request (repository API, explicit model control) to its answer,
            which Triton gives once the model is ready (client side, s).
        load_log_s: From the server log's ``loading: <model>`` line to its ``successfully
            loaded`` line (s); ``None`` when the log did not show both.
        instances_log_s: From the log's first ``ModelInstanceInitialize`` line to
            ``successfully loaded`` (s): instance creation plus ``model_warmup``; ``None``
            when the backend logs no such line.
        first: The first requests at each batch size and shape, in the order sent.
        not_measured: Why the first requests were not measured (the load failed, the server
            cannot show this backend's behaviour), ``None`` when they were.
        protocol: The protocol the requests were sent with (``http``/``grpc``).
        others_loaded: The other models loaded on the server when it was loaded (its stamp,
            :class:`clients.runtimes.served.ServedModel`); ``None``: not recorded (older runs).
        session: The session of the run that measured it (``RunResult.sessions``, 1 first);
            ``None``: not recorded (``triton-perf coldstart``, older runs). A resumed session
            measures again a variant whose record is not :attr:`complete`, and a record without a
            measurement never replaces one with (:func:`perf.coldstart.measure.load`).
    """

    variant: str
    warmup: str | None = None
    load_s: float | None = None
    load_log_s: float | None = None
    instances_log_s: float | None = None
    first: list[FirstRequests] = dataclasses.field(default_factory=list)
    not_measured: str | None = None
    protocol: str = "http"
    others_loaded: list[str] | None = None
    session: int | None = None

    @property
    def measured(self) -> bool:
        """Whether it holds a measurement: a load time or a first request answered."""
        return self.load_s is not None or self.first_request is not None

    @property
    def complete(self) -> bool:
        """Whether nothing is left to measure: the load timed and its first requests sent (answered
        or not), or a reason nothing could be (:attr:`not_measured`)."""
        return self.not_measured is not None or (self.load_s is not None and bool(self.first))

    @property
    def why_not_measured(self) -> str | None:
        """Why it has no first request to show, in words that are true of it (trial 7, F11: a load
        interrupted before it answered was called "no request answered"); ``None`` when it has one."""
        if self.not_measured:
            return self.not_measured
        if self.first_request is not None:
            return None
        if self.load_s is None:
            return "not measured: its session ended before the load answered (interrupted)"
        errors = [f.error for f in self.first if f.error]
        if errors:
            return f"not measured: no request answered ({errors[0]})"
        return "not measured: its session ended before its first requests were sent (interrupted)"

    def at(self, batch_size: int, shape: str | None = None) -> FirstRequests | None:
        """The first requests at ``batch_size`` and ``shape``, if measured."""
        return next((f for f in self.first if (f.batch_size, f.shape or None) == (batch_size, shape or None)), None)

    @property
    def first_request(self) -> FirstRequests | None:
        """The very first requests after the load (the first entry with latencies)."""
        return next((f for f in self.first if f.latencies_ms), None)


def steady_p50_ms(levels: list[LevelResult], batch_size: int, shape: str | None) -> float | None:
    """The sweep's steady-state latency at one size: the median over trials of the p50 of
    its usable concurrency-1 levels at ``batch_size`` and ``shape`` (ms); ``None`` when the
    sweep measured no such level."""
    p50 = [
        lv.latency_p50_ms
        for lv in levels
        if lv.usable
        and lv.concurrency == 1
        and lv.request_rate is None
        and lv.batch_size == batch_size
        and (lv.shape or None) == (shape or None)
        and lv.latency_p50_ms
    ]
    return statistics.median(p50) if p50 else None


def ratio(fr: FirstRequests, levels: list[LevelResult]) -> tuple[float | None, bool]:
    """``(first request / steady state, whether the steady state is the sweep's level)``:
    the level's p50 where measured, else the requests' own median (:attr:`FirstRequests.first_ratio`); the
    report's cold-start table and conclusion (:mod:`perf.report.sections.coldstart`) divide by it."""
    first, level = fr.first_ms, steady_p50_ms(levels, fr.batch_size, fr.shape)
    if first is not None and level:
        return first / level, True
    return fr.first_ratio, False


def steady_count(fr: FirstRequests, levels: list[LevelResult]) -> int | None:
    """Requests sent before the first steady one, against the same steady latency :func:`ratio`
    divides by (:meth:`FirstRequests.requests_to_steady`)."""
    return fr.requests_to_steady(steady_p50_ms(levels, fr.batch_size, fr.shape))
