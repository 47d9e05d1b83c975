"""Serving efficiency: served throughput against the in-process baseline at the batch the
server formed, and where each request's time went.

For a variant at one level (a :class:`perf.analysis.stats.Point`, medians over trials) the server
formed batches of ``avg_server_batch_size`` inferences (``B``). The in-process time of a call
at ``B`` (:func:`in_process_at`) comes from the baseline points of the same artifact, device
and threads (:attr:`perf.records.baseline.BaselineTarget.key`): measured when ``B`` is a
measured batch size, else linearly interpolated in per-call time between the two measured
batch sizes around it (per-call time grows about linearly with the batch on a busy device),
else the nearest measured one (``B`` outside the measured range); :attr:`InProcessAt.how`
says which. Then

- **efficiency** = served infer/s ÷ in-process infer/s at ``B`` (``B`` / per-call time). It
  compares with one instance running alone: a variant with several instances runs several
  batches at once and may exceed 1.
- **serving overhead** per request = the server's compute-infer time (per request, which
  Triton counts as the whole execution of the batch the request was in) − the in-process time
  of a call at ``B``: what the serving path adds around the same computation (python-backend
  IPC, tensor copies and conversions, scheduling). It may be negative (the served run had
  other threads or caches) and is then shown as it is.
- the rest of a request's time, from perf_analyzer: client send and receive, network and
  protocol (``network_server_us``), server queue, compute input and output.

Every number comes from recorded fields; nothing here is measured.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from perf.analysis.stats import THROUGHPUT, Point, aggregate
from perf.records.baseline import BaselinePoint, BaselineResult, BaselineTarget
from perf.records.results import RunResult

#: perf_analyzer's per-request time components (LevelResult fields, µs) besides compute
#: infer, in the order a request meets them, with their labels.
COMPONENTS: tuple[tuple[str, str], ...] = (
    ("client_send_us", "client send"),
    ("network_server_us", "network + protocol"),
    ("server_queue_us", "server queue"),
    ("server_compute_input_us", "compute input"),
    ("server_compute_output_us", "compute output"),
    ("client_recv_us", "client recv"),
)


@dataclasses.dataclass(frozen=True)
class InProcessAt:
    """The in-process figures at a (possibly fractional) batch size.

    Attributes:
        batch: The batch size asked for (inferences per call).
        latency_ms: Per-call time at ``batch`` (ms): the baseline's p50 of single calls.
        throughput_infer_per_s: ``batch / latency_ms`` x 1000.
        how: ``"measured"``, ``"interpolated"`` or ``"nearest"``.
        batches: The measured batch sizes used (one or two).
    """

    batch: float
    latency_ms: float
    throughput_infer_per_s: float
    how: str
    batches: tuple[int, ...]

    @property
    def how_text(self) -> str:
        """``"measured at batch 4"``, ``"interpolated between batches 4 and 8"``, ``"nearest measured batch 8"``."""
        if self.how == "interpolated":
            return f"interpolated between batches {self.batches[0]} and {self.batches[1]}"
        return f"{'measured at' if self.how == 'measured' else 'nearest measured'} batch {self.batches[0]}"


def in_process_at(points: Sequence[BaselinePoint], batch: float) -> InProcessAt | None:
    """In-process per-call time and throughput at ``batch`` from ``points`` (one key's
    points); ``None`` when none of them was measured. See the module docstring for the rule."""
    ok = sorted((p for p in points if p.ok and p.latency_p50_ms), key=lambda p: p.batch_size)
    if not ok or not batch > 0:
        return None
    lo = [p for p in ok if p.batch_size <= batch]
    hi = [p for p in ok if p.batch_size >= batch]
    if lo and lo[-1].batch_size == batch:
        p = lo[-1]
        return InProcessAt(batch, _ms(p), batch / _ms(p) * 1e3, "measured", (p.batch_size,))
    if lo and hi:
        a, b = lo[-1], hi[0]
        frac = (batch - a.batch_size) / (b.batch_size - a.batch_size)
        latency = _ms(a) + (_ms(b) - _ms(a)) * frac
        return InProcessAt(batch, latency, batch / latency * 1e3, "interpolated", (a.batch_size, b.batch_size))
    p = hi[0] if hi else lo[-1]
    return InProcessAt(batch, _ms(p), p.batch_size / _ms(p) * 1e3, "nearest", (p.batch_size,))


def _ms(p: BaselinePoint) -> float:
    return float(p.latency_p50_ms or 0.0)


@dataclasses.dataclass(frozen=True)
class EfficiencyRow:
    """One variant at one level, against the in-process baseline.

    Attributes:
        variant: The variant (series) name.
        target: Its baseline target (format, threads, instances).
        point: The level (medians over trials).
        server_batch: Inferences per execution the server formed (``avg_server_batch_size``).
        served_infer_per_s: The level's throughput.
        in_process: In-process figures at ``server_batch`` (``None``: no baseline point).
        ratio: ``served_infer_per_s / in_process.throughput_infer_per_s``.
        compute_infer_us: The server's compute-infer time per request (µs).
        in_process_us: ``in_process.latency_ms`` in µs.
        overhead_us: ``compute_infer_us - in_process_us``.
        overhead_pct: ``overhead_us`` in % of ``compute_infer_us``.
        components: perf_analyzer's other per-request times (:data:`COMPONENTS` fields, µs; None: not measured).
    """

    variant: str
    target: BaselineTarget
    point: Point
    server_batch: float | None
    served_infer_per_s: float
    in_process: InProcessAt | None
    ratio: float | None
    compute_infer_us: float | None
    in_process_us: float | None
    overhead_us: float | None
    overhead_pct: float | None
    components: dict[str, float | None]


def efficiency_row(variant: str, target: BaselineTarget, point: Point, baseline: BaselineResult) -> EfficiencyRow:
    """The row of ``variant`` at ``point`` (see the module docstring for each number)."""
    batch = point.get("avg_server_batch_size")
    served = point.value(THROUGHPUT)
    inp = in_process_at(baseline.points_of(target.key), batch) if batch else None
    compute = point.get("server_compute_infer_us")
    inp_us = inp.latency_ms * 1e3 if inp else None
    overhead = compute - inp_us if compute is not None and inp_us is not None else None
    return EfficiencyRow(
        variant=variant,
        target=target,
        point=point,
        server_batch=batch,
        served_infer_per_s=served,
        in_process=inp,
        ratio=served / inp.throughput_infer_per_s if inp else None,
        compute_infer_us=compute,
        in_process_us=inp_us,
        overhead_us=overhead,
        overhead_pct=100.0 * overhead / compute if overhead is not None and compute else None,
        components={f: point.get(f) for f, _ in COMPONENTS},
    )


def target_of(baseline: BaselineResult, series: str) -> BaselineTarget | None:
    """The baseline target of a report series (a variant, or ``"<variant> [seq=64]"`` of a shape sweep)."""
    return baseline.target(series) or baseline.target(series.split(" [", 1)[0])


def efficiency_rows(run: RunResult) -> list[EfficiencyRow]:
    """Every measured concurrency level of every variant with a baseline target, in the
    run's variant order then by (client batch size, concurrency); empty without a baseline.
    Levels of a shape sweep at another shape than the baseline's inputs
    (:attr:`BaselineTarget.shape`) are left out: they ran another workload."""
    if run.baseline is None:
        return []
    rows = []
    for v in run.variants:
        target = target_of(run.baseline, v.name)
        if target is None:
            continue
        levels = [lv for lv in v.levels if lv.shape in (None, target.shape)]
        for p in sorted(aggregate(levels, v.name), key=lambda p: (p.batch_size, p.concurrency)):
            if p.ok and p.concurrency > 0:
                rows.append(efficiency_row(v.name, target, p, run.baseline))
    return rows


def other_shapes(run: RunResult) -> list[str]:
    """``"<variant> at seq=64"`` for each swept shape left out of :func:`efficiency_rows`."""
    if run.baseline is None:
        return []
    out = []
    for v in run.variants:
        target = target_of(run.baseline, v.name)
        if target is not None:
            out += [f"{v.name} at {s}" for s in dict.fromkeys(lv.shape for lv in v.levels) if s and s != target.shape]
    return out


def best_rows(rows: Sequence[EfficiencyRow]) -> dict[str, EfficiencyRow]:
    """Each variant's row at its highest served throughput that has a ratio."""
    out: dict[str, EfficiencyRow] = {}
    for r in rows:
        if r.ratio is not None and (r.variant not in out or r.served_infer_per_s > out[r.variant].served_infer_per_s):
            out[r.variant] = r
    return out
