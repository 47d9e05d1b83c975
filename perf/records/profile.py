"""Records of the profiler traces and the precision study (``results.json``, ``profile``).

Pydantic dataclasses like :mod:`perf.records.results`; written by :mod:`perf.profile.trace` and
:mod:`perf.profile.precision_study`. A number the host could not measure is ``null`` with a
``reason``, never 0.
"""

from __future__ import annotations

import dataclasses
from typing import Literal, get_args

from pydantic import ConfigDict
from pydantic.dataclasses import dataclass

from perf.records.load import load_status

_CONFIG = ConfigDict(extra="ignore")

#: Whether a row was measured here, or why not.
RunStatus = Literal[
    "measured", "not run on this host", "failed", "cut for time", "interrupted (Ctrl-C)", "interrupted (SIGTERM)",
    "interrupted (SIGHUP)",
]  # fmt: skip
#: The status of a trace or precision row a time budget (``triton-perf baseline --time-budget``) left unmeasured.
CUT: RunStatus = "cut for time"
#: The statuses of a trace or precision row a stop left unmeasured (those measured before it are kept): what
#: stopped it named (:func:`core.console.interrupted_words`), as the console says it.
STOPPED: tuple[RunStatus, ...] = get_args(RunStatus)[4:]
#: A speed-up's verdict when the paired rule calls no difference (:mod:`perf.analysis.stats.paired`).
NOT_DISTINGUISHABLE = "not distinguishable at this noise"
#: The verdict of paired ratios whose max / min is over :data:`UNFAIR_SPREAD`: no speed-up is given.
UNFAIR = "not measured fairly at this load"
#: Paired ratios spanning more than this factor (max / min) say the two precisions were not timed
#: under one load (trial 7: bf16 against fp32 0.01-434, median 1.64x beside medians 112x apart).
UNFAIR_SPREAD = 10.0


def too_wide(low: float | None, high: float | None) -> bool:
    """Whether paired ratios from ``low`` to ``high`` span more than :data:`UNFAIR_SPREAD`."""
    return low is not None and high is not None and (low <= 0 or high / low > UNFAIR_SPREAD)


@dataclass(config=_CONFIG)
class OperatorTime:
    """One operator's share of a traced batch.

    Attributes:
        name: Operator (``aten::addmm``; ONNX Runtime's ``op_name``, e.g. ``Gemm``).
        self_us: Time inside the operator itself, children excluded (µs), summed over calls.
        calls: Times it ran in the batch.
        self_pct: ``self_us`` / the batch's total self time of all operators (%).
    """

    name: str
    self_us: float
    calls: int
    self_pct: float


@dataclass(config=_CONFIG)
class TraceRecord:
    """One traced batch of one format.

    Attributes:
        format: ``"eager"`` (the PyTorch module), ``"torchscript"``, ``"onnx"``, ``"trt"``.
        profiler: ``"torch.profiler"`` (Chrome trace) or ``"onnxruntime"`` (its profiling JSON,
            also Chrome-trace events).
        device: ``"cpu"`` or ``"cuda"``.
        batch_size: Samples in the traced batch.
        threads: Intra-op threads the runtime was given.
        file: The trace file, relative to the run folder; ``None`` when not traced.
        status: ``measured``, ``not run on this host`` (``reason`` says why), ``failed``, ``cut for time``,
            ``interrupted (Ctrl-C)`` (or the signal: ``SIGTERM``).
        reason: Why there is no trace.
        top_operators: The ten operators with the most self time, most first.
        host_busy_pct, host_busy, host_not_sampled: Other processes' CPU while the batch was
            traced (% of one core), whether that flags the trace, why not sampled (:mod:`perf.records.load`).
        shape: The input size of the batch, every dynamic axis named (``"seq=32"``, the build's reference
            inputs': :func:`perf.profile.runners.reference_size`); ``None`` without dynamic axes, or in a
            record from before.
    """

    format: str
    profiler: str
    device: str
    batch_size: int
    threads: int | None = None
    file: str | None = None
    status: RunStatus = "measured"
    reason: str | None = None
    top_operators: list[OperatorTime] = dataclasses.field(default_factory=list)
    host_busy_pct: float | None = None
    host_busy: bool = False
    host_not_sampled: str | None = None
    shape: str | None = None

    @property
    def flag(self) -> str:
        """The status its numbers are marked with (``host busy`` for a trace taken on a busy host)."""
        return load_status(self.status, self.host_busy)


@dataclass(config=_CONFIG)
class PrecisionRow:
    """Speed and error of one precision on one device, against fp32 eager PyTorch on the CPU.

    Attributes:
        runtime: What ran it (``"eager PyTorch"``).
        device: ``"cpu"`` or ``"cuda"``.
        precision: ``"fp32"``, ``"fp16"``, ``"bf16"``.
        method: How the precision was applied (weights and floating inputs cast, outputs
            cast back: :func:`builders.export.precision.prepare_module`).
        computes_in: The precision the kernels really compute in
            (:data:`builders.verify.verdicts.KERNEL_PRECISION`).
        status: ``measured``, or ``not run on this host`` with ``reason``, or ``failed``, or ``cut for time``
            (a time budget left it no round: ``reason``), or ``interrupted (Ctrl-C)`` (or the signal: ``SIGTERM``).
        reason: Why there are no numbers.
        batch_size: Samples per timed call.
        threads: Intra-op threads.
        latency_median_ms, latency_iqr_ms: Median and interquartile range over the rounds of
            ``rounds_ms`` (ms): the times the speed-up pairs (an older record: of every block).
        throughput_samples_per_s: ``batch_size`` / median latency.
        rounds_ms: The median block of each round (ms), in round order; the rows of one
            device were timed in the same rounds (interleaved).
        speedup_vs_fp32: fp32's time on the same device / this one's, the median over rounds
            of the paired ratios; ``None`` without both.
        speedup_low, speedup_high: The min and max of those ratios over rounds.
        speedup_p_value: The p of the paired rule's tier that decided (:mod:`perf.analysis.stats.paired`).
        speedup_p_tier: That tier: ``"sign"`` (the sign test) or ``"gap"`` (the large-gap t-test) or ``"far"`` (every round more
            than 2× apart; the p is then the t-test's, not needed).
        speedup_verdict: ``"faster"``, ``"slower"`` or :data:`NOT_DISTINGUISHABLE` by that rule;
            :data:`UNFAIR` when the ratios span more than :data:`UNFAIR_SPREAD`.
        max_abs_err: max |out - fp32 eager| over every output element.
        max_rel_err: max |out - ref| / max |ref| (:func:`builders.verify.compare.compare_outputs`).
        rtol: The precision's default tolerance (:mod:`core.precision`).
        within_rtol: ``max_rel_err <= rtol`` with no NaN/Inf.
        host_busy_pct, host_busy, host_not_sampled: Other processes' CPU during the rounds
            (% of one core), whether that flags the row, why not sampled (:mod:`perf.records.load`).
        shape: The input size of each call, as :attr:`TraceRecord.shape`.
    """

    runtime: str
    device: str
    precision: str
    method: str
    computes_in: str | None = None
    status: RunStatus = "measured"
    reason: str | None = None
    batch_size: int = 1
    threads: int | None = None
    latency_median_ms: float | None = None
    latency_iqr_ms: float | None = None
    throughput_samples_per_s: float | None = None
    speedup_vs_fp32: float | None = None
    max_abs_err: float | None = None
    max_rel_err: float | None = None
    rtol: float | None = None
    within_rtol: bool | None = None
    rounds_ms: list[float] = dataclasses.field(default_factory=list)
    speedup_low: float | None = None
    speedup_high: float | None = None
    speedup_p_value: float | None = None
    speedup_verdict: str | None = None
    speedup_p_tier: str = "sign"
    host_busy_pct: float | None = None
    host_busy: bool = False
    host_not_sampled: str | None = None
    shape: str | None = None

    @property
    def flag(self) -> str:
        """The status its numbers are marked with (``host busy`` for a measured row on a busy host)."""
        return load_status(self.status, self.host_busy)


@dataclass(config=_CONFIG)
class ProfileRecord:
    """The traces and the precision study of one run (``RunResult.profile``).

    Attributes:
        traces: One per format traced (``triton-perf baseline --trace``).
        precision: The precision study's rows (``triton-perf baseline --precision``).
        replaced_traces: Traces ``--trace --replace`` took again, oldest first (their files moved
            to ``traces/replaced-N/``): kept, never lost (issue 26).
        replaced_precision: Precision rows ``--precision --replace`` measured again, oldest first.
    """

    traces: list[TraceRecord] = dataclasses.field(default_factory=list)
    precision: list[PrecisionRow] = dataclasses.field(default_factory=list)
    replaced_traces: list[TraceRecord] = dataclasses.field(default_factory=list)
    replaced_precision: list[PrecisionRow] = dataclasses.field(default_factory=list)
