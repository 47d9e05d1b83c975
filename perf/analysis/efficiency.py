"""Serving efficiency: served throughput against the in-process baseline at the input size the
clients sent and the batch the server formed, and where each request's time went.

For a variant at one level (a :class:`perf.analysis.stats.points.Point`, medians over trials) the server
formed batches of ``avg_server_batch_size`` inferences (``B``). The in-process time of a call
at ``B`` (:func:`in_process_at`) comes from the baseline points of the same artifact, device
and threads (:attr:`perf.records.baseline.BaselineTarget.key`) at the level's own input size
(:func:`perf.records.workloads.input_size`; a mixed range, whose requests hold many sizes, is
compared with none: :func:`other_shapes`): measured when ``B`` is a
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
work of its own, so a served run *faster* than the same call in-process at the same threads is no
evidence of efficiency: the two were measured under different load or contention. Its words name the
quantity that was faster (trial 24, T24-1: "served faster than in-process" sat beside a served
throughput below the in-process one, judged on compute infer): more than one instance's in-process
throughput per instance (:data:`THROUGHPUT_ABOVE`, the ratio's own quantity), or a compute-infer time
below the in-process call, a negative overhead (:data:`COMPUTE_BELOW`; its throughput ratio may well be
below 1); the table, the bullets below it and the plot take these words (:func:`faster_words`); a served level or an in-process point flagged ``host busy`` makes the
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
from perf.records.results import RunResult, mixed_axes
from perf.records.workloads import input_size, series_variant, workload_text

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
        shape: The input size of those points (every dynamic axis named, ``"time=400"``; ``None``: no dynamic axes).
    """

    batch: float
    latency_ms: float
    throughput_infer_per_s: float
    how: str
    batches: tuple[int, ...]
    points: tuple[BaselinePoint, ...] = ()
    shape: str | None = None

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
        """``"measured at batch 4"``, ``"interpolated between batches 4 and 8"``, ``"nearest measured batch 8"``,
        then the input size when there is one (``", at time=400"``): the size each ratio is at."""
        if self.how == "interpolated":
            text = f"interpolated between batches {self.batches[0]} and {self.batches[1]}"
        else:
            text = f"{'measured at' if self.how == 'measured' else 'nearest measured'} batch {self.batches[0]}"
        return text + (f", at {self.shape}" if self.shape else "")

    def rounds_cut(self, planned: int) -> tuple[int, int] | None:
        """``(rounds timed, planned)`` when its points were timed in fewer rounds than ``planned`` (the sweep's
        time budget cut the baseline short: :meth:`perf.records.baseline.BaselineResult.rounds_timed`), else ``None``."""
        n = BaselineResult.rounds_timed(self.points, planned)
        return (n, planned) if n < planned else None


def in_process_at(points: Sequence[BaselinePoint], batch: float, shape: str | None = None) -> InProcessAt | None:
    """In-process per-call time and throughput at ``batch`` from ``points`` (one key's
    points at one input size, ``shape``); ``None`` when none of them was measured. See the module docstring for the rule."""
    ok = sorted((p for p in points if p.ok and p.latency_p50_ms), key=lambda p: p.batch_size)
    if not ok or not batch > 0:
        return None
    lo = [p for p in ok if p.batch_size <= batch]
    hi = [p for p in ok if p.batch_size >= batch]
    if lo and lo[-1].batch_size == batch:
        p = lo[-1]
        return InProcessAt(batch, _ms(p), batch / _ms(p) * 1e3, "measured", (p.batch_size,), (p,), shape)
    if lo and hi:
        a, b = lo[-1], hi[0]
        frac = (batch - a.batch_size) / (b.batch_size - a.batch_size)
        latency = _ms(a) + (_ms(b) - _ms(a)) * frac
        return InProcessAt(batch, latency, batch / latency * 1e3, "interpolated", (a.batch_size, b.batch_size), (a, b), shape)
    p = hi[0] if hi else lo[-1]
    return InProcessAt(batch, _ms(p), p.batch_size / _ms(p) * 1e3, "nearest", (p.batch_size,), (p,), shape)


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
        overhead_noise_us: That noise (µs; ``None``: unknown): the cell that says "not significant" gives it
            (trial 24, T24-1: a 27x gap read "not significant" with no number for why).
        rounds_cut: ``(rounds timed, planned)`` of its in-process points when the sweep's time budget
            cut them short (:meth:`InProcessAt.rounds_cut`), else ``None``.
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
    overhead_noise_us: float | None = None
    rounds_cut: tuple[int, int] | None = None

    @property
    def evidence(self) -> bool:
        """Whether :attr:`ratio` may be shown as an efficiency (a ratio, and no :attr:`note`)."""
        return self.ratio is not None and self.note is None

    @property
    def served_faster(self) -> bool:
        """Whether the served run beat the same call in-process on some quantity (:data:`SERVED_FASTER`:
        which one, :func:`faster_words`)."""
        return self.note in SERVED_FASTER


#: Why a row is no evidence when the served run beat the same call in-process, each naming the quantity
#: that beat it (:func:`faster_words`, :func:`verdict`).
UNDER_OTHER_LOAD = "not evidence; measured under different load / contention"
#: Served throughput above what its instances give in-process: the served ÷ in-process ratio itself, above the
#: variant's instance count (a 2-instance variant may reach 2; trial 25, T25-24: "above in-process" beside 1.41).
THROUGHPUT_ABOVE = (
    f"served throughput above what its instances can give in-process (a ratio above its instance count): {UNDER_OTHER_LOAD}"
)
#: Served compute infer (per execution) below the same call in-process: a negative overhead. Not the ratio's quantity.
COMPUTE_BELOW = f"served compute infer below the same call in-process (a negative overhead): {UNDER_OTHER_LOAD}"
SERVED_FASTER = (THROUGHPUT_ABOVE, COMPUTE_BELOW)


def faster_words(rows: Sequence[EfficiencyRow]) -> str:
    """What the served runs of ``rows`` (each :attr:`EfficiencyRow.served_faster`) beat the in-process call on,
    short, for a table cell, a plot legend and a sentence: ``"served compute infer below in-process"``,
    ``"served throughput above what its instances can give in-process"`` or both joined (the rule whole: a
    2-instance variant's ratio may reach 2, trial 25, T25-24)."""
    notes = {r.note for r in rows}
    said = [
        w
        for note, w in (
            (THROUGHPUT_ABOVE, "served throughput above what its instances can give in-process"),
            (COMPUTE_BELOW, "served compute infer below in-process"),
        )
        if note in notes
    ]
    return " or ".join(said)


def served_faster(ratio: float | None, overhead_us: float | None, instances: int) -> bool:
    """Whether the served run beat the same call in-process at the same threads: a negative
    overhead (compute infer per execution below the in-process call), or served throughput
    above ``instances`` times one instance's in-process throughput."""
    return (overhead_us is not None and overhead_us < 0) or (ratio is not None and ratio > max(1, instances))


def verdict(point: Point, inp: InProcessAt | None, ratio: float | None, overhead_us: float | None, instances: int) -> str | None:
    """Why a row's ratio is no evidence, or ``None`` (see the module docstring): served faster
    than in-process first (physics: the ratio's throughput, then compute infer), then a host-busy served level
    or in-process point."""
    if ratio is not None and ratio > max(1, instances):
        return THROUGHPUT_ABOVE
    if overhead_us is not None and overhead_us < 0:
        return COMPUTE_BELOW
    served = unfair(point)
    if served:
        return served.replace("not measured fairly: ", "not measured fairly: the served level ", 1)
    if inp is not None and inp.host_busy:
        return (
            f"not measured fairly: the in-process run was measured while other processes used "
            f"{fmt(inp.host_busy_pct, 0)} % of one core (host busy)"
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


def efficiency_row(
    variant: str, target: BaselineTarget, point: Point, baseline: BaselineResult, shape: str | None = None
) -> EfficiencyRow:
    """The row of ``variant`` at ``point``, sent at input size ``shape`` (every axis named; default: the
    reference size, :attr:`BaselineTarget.shape`; see the module docstring for each number)."""
    batch = point.get("avg_server_batch_size")
    served = point.value(THROUGHPUT)
    shape = shape if shape is not None else target.shape
    inp = in_process_at(baseline.points_at(target, shape), batch, shape) if batch else None
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
        overhead_noise_us=noise,
        rounds_cut=inp.rounds_cut(baseline.settings.rounds) if inp else None,
    )


def target_of(baseline: BaselineResult, series: str) -> BaselineTarget | None:
    """The baseline target of a report series (a variant, or ``"<variant> [seq=64]"`` of a shape sweep)."""
    return baseline.target(series) or baseline.target(series_variant(series))


def efficiency_rows(run: RunResult) -> list[EfficiencyRow]:
    """Every measured concurrency level of every variant with a baseline target, each against the
    in-process points at the input size it was sent at (:func:`perf.records.workloads.input_size`), in the run's variant
    order then by (input size, client batch size, concurrency); empty without a baseline. Levels at
    a size the baseline has no point at (:func:`compared`: a mixed range) are left out: :func:`other_shapes` names them."""
    if run.baseline is None:
        return []
    rows = []
    for v in run.variants:
        target = target_of(run.baseline, v.name)
        if target is None:
            continue
        for shape in dict.fromkeys(lv.shape for lv in v.levels):
            size = input_size(shape, target.shape)
            if not compared(run.baseline, target, size):
                continue
            levels = [lv for lv in v.levels if lv.shape == shape]
            for p in sorted(aggregate(levels, v.name), key=lambda p: (p.batch_size, p.concurrency)):
                if p.ok and p.concurrency > 0:
                    rows.append(efficiency_row(v.name, target, p, run.baseline, size))
    return rows


def compared(baseline: BaselineResult, target: BaselineTarget, size: str | None) -> bool:
    """Whether ``target``'s levels sent at input size ``size`` (every axis named,
    :func:`perf.records.workloads.input_size`) have in-process points to compare with: not a mixed range
    (its requests hold many sizes, an in-process call one), and a size the baseline timed (a record from
    before it timed each workload's size has its reference size only)."""
    return not mixed_axes(size) and bool(baseline.points_at(target, size))


def other_shapes(run: RunResult) -> list[str]:
    """``"<variant> at time=1000..16000 (mixed)"`` for each client workload's size left out of
    :func:`efficiency_rows` (:func:`compared`)."""
    if run.baseline is None:
        return []
    out = []
    for v in run.variants:
        target = target_of(run.baseline, v.name)
        if target is not None:
            sizes = dict.fromkeys(lv.shape for lv in v.levels)
            left = [s for s in sizes if s and not compared(run.baseline, target, input_size(s, target.shape))]
            out += [f"{v.name} at {workload_text(s, None)}" for s in left]
    return out


#: What to do when every level was sent at mixed sizes, which no in-process call runs (:func:`sizes_apart`).
SIZES_APART_HINT = "sweep a fixed size too (add one to --shapes, e.g. the range's middle), then run the baseline"


def sent_sizes(run: RunResult) -> dict[str, list[str | None]]:
    """The input sizes each variant's measured levels were sent at (shape texts; ``None``: not swept)."""
    return {v.name: list(dict.fromkeys(lv.shape for lv in v.levels if lv.ok)) for v in run.variants}


def sizes_apart(sent: Mapping[str, Sequence[str | None]]) -> str | None:
    """Why no served level can have a serving-efficiency ratio, ``None`` when one can: ``sent`` (variant ->
    the input sizes its client workloads sent, shape texts: a sweep's plans before it measures, the run's
    levels after, :func:`sent_sizes`) holds mixed ranges only, and an in-process call runs one size
    (:func:`compared`). The one rule of the sweep's up-front skip (:meth:`perf.sweep.baseline_step.BaselineStep._baseline_unusable`),
    the baseline's refusal and the report's words (trial 12, F23: they were two rules)."""
    sizes = [s for v in sent.values() for s in v]
    if not sizes or not all(mixed_axes(s) for s in sizes):
        return None
    return (
        f"every client workload is a mixed range ({', '.join(workload_text(s, None) for s in dict.fromkeys(sizes))}): each "
        "request holds one of many drawn sizes, and an in-process call runs one, so no level has an in-process point to compare with"
    )


def best_rows(rows: Sequence[EfficiencyRow]) -> dict[str, EfficiencyRow]:
    """Each variant's row at its highest served throughput that has a ratio (evidence or not:
    :attr:`EfficiencyRow.note` says)."""
    out: dict[str, EfficiencyRow] = {}
    for r in rows:
        if r.ratio is not None and (r.variant not in out or r.served_infer_per_s > out[r.variant].served_infer_per_s):
            out[r.variant] = r
    return out


#: What a report and its plot say when no level's served ÷ in-process ratio is evidence (:func:`baseline_unusable`).
UNUSABLE = "the in-process baseline is unusable here"


def baseline_unusable(rows: Sequence[EfficiencyRow]) -> int:
    """How many levels have an in-process point when every one of them was served faster than
    in-process (none is evidence: :data:`UNUSABLE`), else 0 (no such level, or one that is evidence).
    Decided on all of a run's rows, once: report.md's line and its plot (which draws some of them) say the same."""
    rated = [r for r in rows if r.ratio is not None]
    return len(rated) if rated and all(r.served_faster for r in rated) else 0
