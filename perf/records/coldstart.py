"""Records of a cold start (``results.json``, per variant: :attr:`perf.records.results.VariantResult.cold_start`)
and the rule that says when a variant's latency is steady.

A cold start is what one variant costs from its load request to its first fast answer: the
load itself (client side, from the repository API's load request to its answer, and as the
server log times it), then single requests at each batch size and dynamic shape the sweep
will send, in that order, right after the load, before the sweep's own warm-up. The first
request at a size is compared with the sweep's steady-state level at that size and, where the
sweep has none, with the latency its requests settled at (:func:`settled_at`, :attr:`FirstRequests.settled_ms`);
where they did not settle, with nothing: no ratio, count or warmup count is given from requests that were still
warming up (trial 16, T16-11: TorchScript's profiling executor keeps the first several calls slow, and the median
of the eleven requests after the first, 100-750 ms, was called steady for a model whose sweep p50 was 1-4 ms).

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
#: batch size and shape: the sweep's p50 at concurrency 1 there, else the latency its requests
#: settled at (:func:`settled_at`); :meth:`FirstRequests.requests_to_steady`.
STEADY_RATIO = 1.5

#: The settle rule (:func:`settled_at`) is perf_analyzer's own stability rule: its last
#: :data:`SETTLE_GROUPS` measurements each within :data:`SETTLE_PCT` % of their mean (perf_analyzer's
#: ``--stability-percentage`` default 10, over its 3 last measurements), with each measurement here
#: the median of :data:`SETTLE_GROUP` single requests in a row (one request is too noisy to be a
#: measurement: a median of five ignores two stray ones, and a trend still moves the three medians).
SETTLE_GROUP = 5
#: See :data:`SETTLE_GROUP`.
SETTLE_GROUPS = 3
#: See :data:`SETTLE_GROUP`.
SETTLE_PCT = 10.0
#: Fewest requests the settle rule can judge: :data:`SETTLE_GROUPS` x :data:`SETTLE_GROUP`.
SETTLE_WINDOW = SETTLE_GROUP * SETTLE_GROUPS


def settles(latencies_ms: list[float]) -> bool:
    """Whether the last :data:`SETTLE_WINDOW` latencies meet the settle rule (:data:`SETTLE_GROUP`):
    the medians of their :data:`SETTLE_GROUPS` groups of :data:`SETTLE_GROUP` in a row each within
    :data:`SETTLE_PCT` % of the groups' mean. ``False`` with fewer requests."""
    if len(latencies_ms) < SETTLE_WINDOW:
        return False
    window = latencies_ms[-SETTLE_WINDOW:]
    medians = [statistics.median(window[i : i + SETTLE_GROUP]) for i in range(0, SETTLE_WINDOW, SETTLE_GROUP)]
    mean = statistics.fmean(medians)
    return mean > 0 and all(abs(m - mean) <= SETTLE_PCT / 100 * mean for m in medians)


def settled_at(latencies_ms: list[float]) -> int | None:
    """How many requests had been sent when the latency first settled (:func:`settles` of the requests up to
    there; the sender stops there, :func:`perf.coldstart.measure.send`), ``None`` when it never did."""
    return next((n for n in range(SETTLE_WINDOW, len(latencies_ms) + 1) if settles(latencies_ms[:n])), None)


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
    def settled_ms(self) -> float | None:
        """The latency its requests settled at (ms): the median of the :data:`SETTLE_WINDOW` requests that first
        met the settle rule (:func:`settled_at`); ``None`` when they never did (still warming up, or too noisy,
        when the sender stopped: :attr:`not_settled`)."""
        n = settled_at(self.latencies_ms)
        return statistics.median(self.latencies_ms[n - SETTLE_WINDOW : n]) if n is not None else None

    @property
    def not_settled(self) -> str:
        """The words for requests that never settled: ``"steady not reached within 13 requests"``."""
        return f"steady not reached within {len(self.latencies_ms)} request{'' if len(self.latencies_ms) == 1 else 's'}"

    @property
    def first_ratio(self) -> float | None:
        """First request / :attr:`settled_ms`; ``None`` when either is missing."""
        med, first = self.settled_ms, self.first_ms
        return first / med if first is not None and med else None

    def requests_to_steady(self, steady_ms: float | None = None) -> int | None:
        """How many requests were sent before the first steady one (:data:`STEADY_RATIO`).

        The steady latency is ``steady_ms`` — the sweep's steady p50 at concurrency 1 at this size,
        the same reference the report divides the first request by, plus :data:`CLIENT_ALLOWANCE_MS`
        for the other client — else (no such level, or ``triton-perf coldstart`` alone) the latency
        the requests settled at (:attr:`settled_ms`). So a first request the report calls ``49×`` its
        steady latency is never counted as steady (issue 26: "requests to steady 0" under twelve
        requests that were all slow), and requests still warming up are no reference (trial 16, T16-11).

        Args:
            steady_ms: The sweep's steady latency at this size (ms); ``None``: the requests' settled latency.

        Returns:
            0 when the first request was already steady; ``len(latencies_ms)`` when none of them was
            (still slow after every request sent); ``None`` without a reference (no ``steady_ms``, and
            the requests never settled: :attr:`not_settled`).
        """
        if steady_ms:  # perf_analyzer's latency: these requests' client may add its own time per request
            limit = STEADY_RATIO * steady_ms + CLIENT_ALLOWANCE_MS
        elif (settled := self.settled_ms) is not None:
            limit = STEADY_RATIO * settled
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
        sizes: The sizes of its inputs' dynamic dims at a size not swept (``shape`` ``None``; recorded only
            where some of :attr:`first` is sent at one), in words:
            ``"input_ids [128] (--shape)"``, ``"seq=32 (the build's opt size of axis seq)"``
            (:func:`perf.measure.inputs.describe_dynamic`); ``None``: no dynamic dim, or not recorded (older runs).
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
    sizes: str | None = None

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

    @property
    def unswept_sizes(self) -> str | None:
        """:attr:`sizes` where some of its first requests were sent at a size not swept (``shape``
        ``None``), else ``None``: a record of a sweep whose every size is swept names no other (an older
        record of ``--shapes num_items=1..200`` holds the build's opt size, num_items=50, which no request
        was sent at; trial 19, T19-18)."""
        return self.sizes if any(f.shape is None for f in self.first) else None

    @property
    def first_sent(self) -> str | None:
        """The sizes :attr:`first_request` was sent at, in words: a swept size's (a mix's first entry, the
        one sent: :attr:`FirstRequests.sent_shape`), else :attr:`unswept_sizes`; ``None`` when unknown."""
        first = self.first_request or (self.first[0] if self.first else None)
        if first is not None and first.shape:
            return f"{first.sent_shape} (the first of the mix {first.shape})" if first.sent_shape else first.shape
        return self.unswept_sizes


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
    the level's p50 where measured, else the latency the requests settled at (:attr:`FirstRequests.first_ratio`;
    ``None`` when they never settled); the
    report's cold-start table and conclusion (:mod:`perf.report.sections.coldstart`) divide by it."""
    first, level = fr.first_ms, steady_p50_ms(levels, fr.batch_size, fr.shape)
    if first is not None and level:
        return first / level, True
    return fr.first_ratio, False


def steady_count(fr: FirstRequests, levels: list[LevelResult]) -> int | None:
    """Requests sent before the first steady one, against the same steady latency :func:`ratio`
    divides by (:meth:`FirstRequests.requests_to_steady`)."""
    return fr.requests_to_steady(steady_p50_ms(levels, fr.batch_size, fr.shape))
