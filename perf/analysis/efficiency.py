"""Serving efficiency: served throughput against the in-process baseline at the batch the
server formed, and where each request's time went.

For a variant at one level (a :class:`perf.analysis.stats.points.Point`, medians over trials) the server
formed batches of ``avg_server_batch_size`` inferences (``B``). The in-process time of a call
at ``B`` (:func:`in_process_at`) comes from the baseline points of the same artifact, device
and threads (:attr:`perf.records.baseline.BaselineTarget.key`): measured when ``B`` is a
measured batch size, else linearly interpolated in per-call time between the two measured
batch sizes around it (per-call time grows about linearly with the batch on a busy device),
else the nearest measured one (``B`` outside the measured range); :attr:`InProcessAt.how`
says which. Then

- **efficiency** = served infer/s ÷ in-process infer/s at ``B`` (``B`` / per-call time). It
  compares with one instance running alone: a variant with several instances runs several
  batches at once and may exceed 1 (never more than its instances).
- **serving overhead** per request = the server's compute-infer time (per request, which
  Triton counts as the whole execution of the batch the request was in) − the in-process time
  of a call at ``B``: what the serving path adds around the same computation (python-backend
  IPC, tensor copies and conversions, scheduling).

Physical sense and fairness first (:func:`verdict`): the served path runs the same call plus
work of its own, so a served execution *faster* than the same call in-process at the same
threads (negative overhead, or more than one instance's in-process throughput per instance)
is no evidence of efficiency: the two were measured under different load or contention
(:data:`SERVED_FASTER`); a served level or an in-process point flagged ``host busy`` makes the
ratio *not measured fairly*; an overhead within the two measurements' noise is *not
significant* (:func:`overhead_noise_us`). Such a row keeps its numbers in the record but the
report shows no efficiency for it, only why.
- the rest of a request's time, from perf_analyzer: client send and receive, network and
  protocol (``network_server_us``), server queue, compute input and output.

Every number comes from recorded fields; nothing here is measured.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from perf.analysis.stats.fair import unfair
from perf.analysis.stats.points import THROUGHPUT, Point, aggregate
from perf.markdown import fmt
from perf.records.baseline import BaselinePoint, BaselineResult, BaselineTarget
from perf.records.results import RunResult, mixed_axes, parse_shape_text
from perf.records.workloads import workload_text

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
        points: The baseline points used (their load and round spread travel with the figures).
    """

    batch: float
    latency_ms: float
    throughput_infer_per_s: float
    how: str
    batches: tuple[int, ...]
    points: tuple[BaselinePoint, ...] = ()

    @property
    def host_busy_pct(self) -> float | None:
        """Other processes' CPU during the points used (% of one core, the most); ``None`` unsampled."""
        return max((p.host_busy_pct for p in self.points if p.host_busy_pct is not None), default=None)

    @property
    def host_busy(self) -> bool:
        """Whether any point used was flagged host busy."""
        return any(p.host_busy for p in self.points)

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
        return InProcessAt(batch, _ms(p), batch / _ms(p) * 1e3, "measured", (p.batch_size,), (p,))
    if lo and hi:
        a, b = lo[-1], hi[0]
        frac = (batch - a.batch_size) / (b.batch_size - a.batch_size)
        latency = _ms(a) + (_ms(b) - _ms(a)) * frac
        return InProcessAt(batch, latency, batch / latency * 1e3, "interpolated", (a.batch_size, b.batch_size), (a, b))
    p = hi[0] if hi else lo[-1]
    return InProcessAt(batch, _ms(p), p.batch_size / _ms(p) * 1e3, "nearest", (p.batch_size,), (p,))


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
        note: Why the ratio is no evidence (:func:`verdict`), ``None`` when it is.
        overhead_significant: ``overhead_us`` beyond the noise of both measurements
            (:func:`overhead_noise_us`); ``None`` when the noise is unknown.
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
    note: str | None = None
    overhead_significant: bool | None = None

    @property
    def evidence(self) -> bool:
        """Whether :attr:`ratio` may be shown as an efficiency (a ratio, and no :attr:`note`)."""
        return self.ratio is not None and self.note is None

    @property
    def served_faster(self) -> bool:
        """Whether the served run beat the same call in-process (:data:`SERVED_FASTER`)."""
        return self.note == SERVED_FASTER


#: The verdict of a row whose served execution beat the same call in-process.
SERVED_FASTER = "served faster than in-process: not evidence; measured under different load / contention"


def served_faster(ratio: float | None, overhead_us: float | None, instances: int) -> bool:
    """Whether the served run beat the same call in-process at the same threads: a negative
    overhead (compute infer per execution below the in-process call), or served throughput
    above ``instances`` times one instance's in-process throughput."""
    return (overhead_us is not None and overhead_us < 0) or (ratio is not None and ratio > max(1, instances))


def verdict(point: Point, inp: InProcessAt | None, ratio: float | None, overhead_us: float | None, instances: int) -> str | None:
    """Why a row's ratio is no evidence, or ``None`` (see the module docstring): served faster
    than in-process first (physics), then a host-busy served level or in-process point."""
    if served_faster(ratio, overhead_us, instances):
        return SERVED_FASTER
    served = unfair(point)
    if served:
        return served.replace("not measured fairly: ", "not measured fairly: the served level ", 1)
    if inp is not None and inp.host_busy:
        return (
            f"not measured fairly: the in-process run was measured while other processes used "
            f"{fmt(inp.host_busy_pct, 0)} % of a core (host busy)"
        )
    return None


def overhead_noise_us(point: Point, inp: InProcessAt | None) -> float | None:
    """The noise an overhead must exceed (µs): the in-process points' spread over rounds (max −
    min of their per-round medians, in % of the call time) plus the served level's (its
    min–max over trials, else perf_analyzer's window spread, in % of throughput), each applied
    to its own time; ``None`` when neither spread is known."""
    compute = point.get("server_compute_infer_us")
    if inp is None or compute is None:
        return None
    spreads = [p.round_spread_pct for p in inp.points if p.round_spread_pct is not None]
    inproc = max(spreads) / 100.0 * inp.latency_ms * 1e3 if spreads else None
    trial = point.spread(THROUGHPUT)
    served_pct = 100.0 * trial / point.value(THROUGHPUT) if trial is not None else point.get("throughput_window_spread_pct")
    served = served_pct / 100.0 * compute if served_pct is not None else None
    if inproc is None and served is None:
        return None
    return (inproc or 0.0) + (served or 0.0)


def efficiency_row(variant: str, target: BaselineTarget, point: Point, baseline: BaselineResult) -> EfficiencyRow:
    """The row of ``variant`` at ``point`` (see the module docstring for each number)."""
    batch = point.get("avg_server_batch_size")
    served = point.value(THROUGHPUT)
    inp = in_process_at(baseline.points_of(target.key), batch) if batch else None
    compute = point.get("server_compute_infer_us")
    inp_us = inp.latency_ms * 1e3 if inp else None
    overhead = compute - inp_us if compute is not None and inp_us is not None else None
    ratio = served / inp.throughput_infer_per_s if inp else None
    noise = overhead_noise_us(point, inp)
    return EfficiencyRow(
        variant=variant,
        target=target,
        point=point,
        server_batch=batch,
        served_infer_per_s=served,
        in_process=inp,
        ratio=ratio,
        compute_infer_us=compute,
        in_process_us=inp_us,
        overhead_us=overhead,
        overhead_pct=100.0 * overhead / compute if overhead is not None and compute else None,
        components={f: point.get(f) for f, _ in COMPONENTS},
        note=verdict(point, inp, ratio, overhead, target.instances) if inp else None,
        overhead_significant=None if overhead is None or noise is None else abs(overhead) > noise,
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
        levels = [lv for lv in v.levels if at_reference(lv.shape, target.shape)]
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
            out += [
                f"{v.name} at {s}" for s in dict.fromkeys(lv.shape for lv in v.levels) if s and not at_reference(s, target.shape)
            ]
    return out


def at_reference(size: str | None, ref: str | None) -> bool:
    """Whether a level sent at ``size`` (its shape text; ``None``: one size, not swept) was sent at the
    reference inputs' size ``ref`` the in-process baseline times (:attr:`BaselineTarget.shape`), so the
    two compare: the one rule for the sweep's up-front check (:meth:`perf.sweep.baseline_step.BaselineStep._baseline_unusable`)
    and the report's. An axis ``size`` leaves out is at its reference size; a mixed range
    (``time=400..16000``) never is (its requests hold every size of the range)."""
    if size is None or size == ref:
        return True
    if ref is None or mixed_axes(size):
        return False
    at = parse_shape_text(ref)
    return all(at.get(a) == x for a, x in parse_shape_text(size).items())


#: What to do when every level was sent at other sizes than the in-process baseline's (:func:`sizes_apart`).
SIZES_APART_HINT = "sweep the build's reference size too (add it to --shapes, or leave --shapes out), then run the baseline"


def sizes_apart(run: RunResult, shapes: Mapping[str, str | None]) -> str | None:
    """Why no served level of ``run`` can have a serving-efficiency ratio: every measured level of each
    variant with an in-process target (``shapes``: variant -> the sizes of its reference inputs, the ones
    the baseline times, :attr:`perf.records.baseline.BaselineTarget.shape`) was sent at another input size
    (trial 12, F23: a run at time=1000 and 16000, the baseline at time=8000; the report blamed "the batch
    it formed"); ``None`` when some level was sent at that size, or nothing says the sizes."""
    sent: list[str] = []
    timed: list[str] = []
    for v in run.variants:
        sizes = list(dict.fromkeys(lv.shape for lv in v.levels if lv.ok))
        if v.name not in shapes or not sizes:
            continue
        ref = shapes[v.name]
        if ref is None or any(at_reference(s, ref) for s in sizes):
            return None
        sent += [s for s in sizes if s]
        timed.append(ref)
    if not sent:
        return None
    return (
        f"the run sent {', '.join(workload_text(s, None) for s in dict.fromkeys(sent))} only, and the in-process baseline times the build's reference "
        f"inputs at {', '.join(dict.fromkeys(timed))}, a size no level sent: no level has an in-process point to compare with"
    )


def best_rows(rows: Sequence[EfficiencyRow]) -> dict[str, EfficiencyRow]:
    """Each variant's row at its highest served throughput that has a ratio (evidence or not:
    :attr:`EfficiencyRow.note` says)."""
    out: dict[str, EfficiencyRow] = {}
    for r in rows:
        if r.ratio is not None and (r.variant not in out or r.served_infer_per_s > out[r.variant].served_infer_per_s):
            out[r.variant] = r
    return out
