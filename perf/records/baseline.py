"""Records of the in-process baseline (``triton-perf baseline``; the ``baseline`` section of
``results.json``).

The baseline runs each format of a repository's models in the measuring process, without a
server: eager PyTorch (``torch.inference_mode()``), TorchScript, ONNX Runtime, and TensorRT
where a GPU is, with the intra-op threads a served instance gets, at the batch sizes the
sweep's dynamic batcher formed. Units are in the field names (ms, s, infer/s, %). A point the
host cannot run (TensorRT without a GPU) has ``status`` ``"not run on this host"``, a
``reason`` and no numbers: never 0.

.. code-block:: text

    "baseline": {
      "created": ISO time, "settings": {timer, min_run_time_s, warmup_s, ..., versions},
      "targets": [{variant, model, format, precision, device, threads, batch_sizes, shape,
                   sizes: [{shape, batch_sizes}]}],
      "points": [{model, format, precision, device, threads, batch_size, shape, status, reason,
                  latency_p50_ms, latency_p99_ms, latency_median_ms, latency_iqr_ms,
                  throughput_infer_per_s, ...}]
    }
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Iterable
from typing import Literal, get_args

from pydantic import ConfigDict
from pydantic.dataclasses import dataclass

from perf.records.load import load_status

_CONFIG = ConfigDict(extra="ignore")

#: ``ok``: measured; ``not run on this host``: the host lacks what it needs (a GPU,
#: TensorRT, a reloadable eager model), with the reason; ``failed``: it should have run and
#: did not (the error in ``reason``).
BaselineStatus = Literal["ok", "not run on this host", "failed"]
BASELINE_STATUSES: tuple[str, ...] = get_args(BaselineStatus)
NOT_RUN = "not run on this host"
#: The format name of the eager model (besides :data:`core.formats.FORMAT_NAMES`).
EAGER = "eager"


@dataclass(config=_CONFIG, frozen=True)
class BaselineKey:
    """What one in-process measurement runs: one model's artifact (or its eager module) on
    one device with one thread count.

    Attributes:
        model: The build's model name (``"mlp"``).
        format: ``"eager"``, ``"torchscript"``, ``"onnx"`` or ``"trt"``.
        precision: The artifact's precision (``"fp32"``...); eager runs in fp32.
        device: ``"cpu"`` or ``"cuda"``.
        threads: Intra-op threads (torch ``set_num_threads`` / onnxruntime
            ``intra_op_num_threads``); ``None``: the library's default (a native backend
            without a thread parameter).
    """

    model: str
    format: str
    precision: str = "fp32"
    device: str = "cpu"
    threads: int | None = None


@dataclass(config=_CONFIG)
class BaselinePoint:
    """One in-process measurement: one :class:`BaselineKey` at one batch size and input size.

    Timing (:mod:`perf.profile.timing`): every point of one model is timed *interleaved* with
    the others (eager and artifacts, every batch size) in rounds, each round timing each point
    once in a shuffled order; in its turn, blocks of ``runs_per_block`` calls give the median
    and IQR of the per-call time, then single calls are timed one by one for the p50/p99 of one
    call. A call takes numpy inputs and returns numpy outputs, as the python-backend model's
    runner does. The host's load over the rounds is recorded (:mod:`perf.records.load`).

    Attributes:
        key: What ran.
        batch_size: Inferences per call (the inputs' batch axis).
        shape: The sizes of the dynamic axes of its inputs, every axis named (``"seq=64"``,
            :func:`perf.records.workloads.input_size`); ``None`` without dynamic axes, or in a record
            from before the baseline timed each client workload's size (its target's :attr:`BaselineTarget.shape`).
        status: See :data:`BaselineStatus`.
        reason: Why it was not run or failed.
        latency_p50_ms, latency_p99_ms: Percentiles of single calls (ms).
        latency_median_ms: Median per-call time of the ``blocked_autorange`` blocks (ms): a
            block averages many back-to-back calls, so on a shared host a block that other
            processes preempted counts whole; compare it with ``latency_p50_ms``.
        latency_iqr_ms: Interquartile range of the blocks' per-call times (ms).
        throughput_infer_per_s: ``batch_size / latency_p50_ms`` x 1000: the median single
            call, which a preempted call moves by one sample only.
        spread_pct: ``latency_iqr_ms`` in % of ``latency_median_ms``.
        warmup_runs: Calls made before timing; ``warmup_s`` the time they took (s).
        blocks, runs_per_block: ``blocked_autorange``'s blocks and calls per block.
        runs: Single calls timed for the percentiles.
        measured_s: Wall time of the whole point, warm-up included (s).
        rounds_ms: The median single call of each round (ms), in round order: the values a
            paired comparison with another point of the same model uses (same rounds).
        host_busy_pct, host_busy, host_not_sampled: Other processes' CPU during the rounds
            (% of one core), whether that flags the point, why it was not sampled
            (:mod:`perf.records.load`).
    """

    key: BaselineKey
    batch_size: int
    shape: str | None = None
    status: BaselineStatus = "ok"
    reason: str | None = None
    latency_p50_ms: float | None = None
    latency_p99_ms: float | None = None
    latency_median_ms: float | None = None
    latency_iqr_ms: float | None = None
    throughput_infer_per_s: float | None = None
    spread_pct: float | None = None
    warmup_runs: int | None = None
    warmup_s: float | None = None
    blocks: int | None = None
    runs_per_block: int | None = None
    runs: int | None = None
    measured_s: float | None = None
    rounds_ms: list[float] = dataclasses.field(default_factory=list)
    host_busy_pct: float | None = None
    host_busy: bool = False
    host_not_sampled: str | None = None

    @property
    def ok(self) -> bool:
        """Whether the point was measured: status ``ok`` and a throughput above 0 infer/s."""
        return self.status == "ok" and (self.throughput_infer_per_s or 0) > 0

    @property
    def flag(self) -> str:
        """The status its numbers are marked with (``host busy`` for a measured point on a busy host)."""
        return load_status(self.status, self.host_busy)

    @property
    def round_spread_pct(self) -> float | None:
        """Max - min of :attr:`rounds_ms` in % of their median; ``None`` with fewer than 2 rounds."""
        if len(self.rounds_ms) < 2:
            return None
        mid = statistics.median(self.rounds_ms)
        return 100.0 * (max(self.rounds_ms) - min(self.rounds_ms)) / mid if mid else None


@dataclass(config=_CONFIG)
class BaselineSize:
    """One input size the baseline times a target at, with its batch sizes.

    Attributes:
        shape: The sizes of the dynamic axes, every axis named (``"time=400"``): the size one of the
            variant's client workloads sent (:func:`perf.records.workloads.input_size`); ``None`` without dynamic axes.
        batch_sizes: Batch sizes timed at it: 1, the rounded batch sizes the dynamic batcher formed at
            that size (``avg_server_batch_size`` of its levels), and max_batch_size.
    """

    shape: str | None = None
    batch_sizes: list[int] = dataclasses.field(default_factory=list)


@dataclass(config=_CONFIG)
class BaselineTarget:
    """Which in-process measurements stand beside one served variant.

    Attributes:
        variant: The variant (model folder) name.
        key: The same artifact, device and threads as one of its served instances; the eager
            model is measured beside it under the same key with format ``"eager"``.
        instances: Its instances (``instance_group`` counts summed): the in-process figures
            are one instance's, run alone.
        batch_sizes: Batch sizes measured for it, at any of its :attr:`sizes`: 1, the rounded batch
            sizes the dynamic batcher formed in the sweep (``avg_server_batch_size``), and max_batch_size.
        serving: ``"python"`` or ``"native"``, as the index says (``None``: not indexed).
        shape: The sizes of the dynamic axes a level not swept sends (``"seq=32"``): the build's reference
            inputs', with the run's ``--shape`` sizes in their place; ``None`` without dynamic axes.
        sizes: The input sizes it was timed at, each with its batch sizes: every fixed size its client
            workloads sent (a level is compared with the points at its own size); a mixed range
            (``time=1000..16000``) is timed at none (its requests hold many sizes, a call one). Empty in a
            record from before (its points are at :attr:`shape`).
    """

    variant: str
    key: BaselineKey
    instances: int = 1
    batch_sizes: list[int] = dataclasses.field(default_factory=list)
    serving: str | None = None
    shape: str | None = None
    sizes: list[BaselineSize] = dataclasses.field(default_factory=list)


@dataclass(config=_CONFIG)
class BaselineSettings:
    """How the baseline was measured (exact, for repeating it).

    Attributes:
        timer: The timing method.
        min_run_time_s: ``blocked_autorange(min_run_time=...)``, and the time given to the
            single-call runs (s).
        warmup_s: Warm-up time before timing, at least ``warmup_runs`` calls (s).
        warmup_runs: The minimum number of warm-up calls.
        max_runs: Most single calls timed for the percentiles.
        inputs: Where the inputs came from.
        cpu_count: Cores of this host (``os.cpu_count()``): the python-backend thread rule's input.
        threads_rule: How each target's threads were chosen, in words.
        versions: Library versions (python, torch, onnxruntime, numpy, tensorrt).
        rounds: Rounds each model's points were interleaved in (0: one after another, older records).
        order_seed: Seed of each round's shuffled order.
        host_busy_threshold_pct: Other processes' CPU above which a point is flagged host busy
            (% of one core; the sweep's setting).
    """

    timer: str
    min_run_time_s: float
    warmup_s: float
    warmup_runs: int
    max_runs: int
    inputs: str
    cpu_count: int | None = None
    threads_rule: str = ""
    versions: dict[str, str | None] = dataclasses.field(default_factory=dict)
    rounds: int = 0
    order_seed: int | None = None
    host_busy_threshold_pct: float | None = None


@dataclass(config=_CONFIG)
class BaselineResult:
    """The in-process baseline of one run (``RunResult.baseline``).

    Attributes:
        created: When it was measured (ISO time).
        settings: How.
        targets: One per served variant that has a baseline.
        points: Every measurement, ``ok`` or not.
        notes: What was left out and why (a variant without a build record...).
        unmeasurable: The variants it planned that the in-process baseline cannot run (no build record, no artifact
            the toolkit runs, an unreadable config), each with why: they have no target and owe none (review s23r,
            M6: such a variant was owed forever, and every resume measured the whole baseline again).
    """

    created: str
    settings: BaselineSettings
    targets: list[BaselineTarget] = dataclasses.field(default_factory=list)
    points: list[BaselinePoint] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)
    unmeasurable: dict[str, str] = dataclasses.field(default_factory=dict)

    def target(self, variant: str) -> BaselineTarget | None:
        """The baseline target of served variant ``variant``, or ``None`` when it has none."""
        return next((t for t in self.targets if t.variant == variant), None)

    def points_of(self, key: BaselineKey) -> list[BaselinePoint]:
        """The points of ``key``, by batch size (at every input size)."""
        return sorted((p for p in self.points if p.key == key), key=lambda p: p.batch_size)

    def points_at(self, target: BaselineTarget, shape: str | None) -> list[BaselinePoint]:
        """The points of ``target``'s key at input size ``shape`` (every axis named,
        :func:`perf.records.workloads.input_size`), by batch size; a point of an older record, without
        a size, is at the target's reference size (:attr:`BaselineTarget.shape`)."""
        return [p for p in self.points_of(target.key) if (p.shape if p.shape is not None else target.shape) == shape]

    def unmeasured_models(self) -> list[str]:
        """The models of :attr:`targets` with no point at all: a sweep's time budget ran out before their first
        round (trial 14, T14-4); a model whose points were recorded failed or "not run on this host" is not one
        (review: such a GPU-only model was said "cut for time")."""
        recorded = {p.key.model for p in self.points}
        return [m for m in dict.fromkeys(t.key.model for t in self.targets) if m not in recorded]

    def cut_short(self) -> dict[str, int]:
        """The models timed in fewer rounds than :attr:`BaselineSettings.rounds` planned (the sweep's
        time budget ran out), with the rounds each was timed in (:meth:`rounds_timed`); ``{}`` when
        every model had them all (trial 12, F15: the report said "over 8 interleaved rounds" of 2)."""
        planned, out = self.settings.rounds, {}
        for model in dict.fromkeys(p.key.model for p in self.points):
            n = self.rounds_timed([p for p in self.points if p.key.model == model], planned)
            if n < planned:
                out[model] = n
        return out

    @staticmethod
    def rounds_timed(points: Iterable[BaselinePoint], planned: int) -> int:
        """The rounds one model's ``points`` were timed in: the most per-round times a point of it has,
        ``planned`` when none has any (an older record, or no point ran); the one count the baseline's
        note, its console line and the report say."""
        return max((len(p.rounds_ms) for p in points if p.rounds_ms), default=planned)
