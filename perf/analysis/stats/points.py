"""The analysis of a sweep: trial statistics and the noise rule (curves and knees: :mod:`perf.analysis.stats.curves`).

Everything that turns a :class:`perf.records.results.RunResult` into numbers lives here (the
recommendation built on them in :mod:`perf.analysis.recommendation.recommend`); the report
(:mod:`perf.report.write`), its conclusions (:mod:`perf.report.conclusions.written`), the plots
(:mod:`perf.plots.figures`) and the run comparison (:mod:`perf.analysis.comparison.verdicts`) all read it, and it
imports none of them.

A *level* (one variant at one concurrency and client batch size) may be measured in
several trials (:attr:`perf.records.levels.LevelResult.trial` 0..N-1). :func:`aggregate` folds
them into one :class:`Point`: the median of every metric and its spread (min–max over
the trials; with 2–5 trials an interquartile range says nothing more than min–max).

Noise rule (significance from measured spread only): a difference between two points is
*significant* when both points were measured in at least 2 trials and the difference is
larger than both points' min–max trial spreads. With fewer trials on either side the
spread is unknown, so the difference is neither significant nor not: :class:`Delta` says
"spread unknown (1 trial)" and the report suggests ``--trials``. No noise level is ever
assumed (two runs of the same grid a day apart differed by +54 % on one variant).
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Iterable, Sequence

from perf.analysis.stats.notes import flag_statuses
from perf.markdown import fmt
from perf.records.levels import LEVEL_STATUSES, LevelResult
from perf.records.results import RunResult

#: Metric names (:class:`perf.records.levels.LevelResult` fields) the analysis ranks by.
THROUGHPUT, P99 = "throughput_infer_per_s", "latency_p99_ms"
#: GPU utilisation fields, in order of preference: Triton's metric, then local NVML.
GPU_METRICS = ("gpu_utilization_pct", "nvml_gpu_utilization_pct")
#: Every numeric field of a level: what :func:`aggregate` folds over trials.
METRICS: tuple[str, ...] = tuple(
    f.name
    for f in dataclasses.fields(LevelResult)
    if f.name
    not in (
        "concurrency",
        "batch_size",
        "trial",
        "stable",
        "attempts",
        "error",
        "csv",
        "rate_achieved",
        "host_busy",
        "host_not_sampled",
        "notes",
        "shape",  # a key of the level (one series per workload: perf.records.workloads.split_by_workload), never a median
        "request_rate",
    )
)
#: Trials a point needs on each side before a difference can be called significant.
MIN_TRIALS_FOR_SPREAD = 2


@dataclasses.dataclass
class Point:
    """One level folded over its trials.

    Attributes:
        variant: Variant name.
        concurrency: perf_analyzer concurrency.
        batch_size: Client batch size (``-b``).
        trials: Trials that produced numbers (failed trials are left out).
        median: Median over trials per metric (LevelResult field names, same units);
            ``None`` where no trial has the metric.
        low, high: Min and max over trials per metric.
        stable: Every trial reached perf_analyzer's stability criterion.
        errors: Errors of the trials that produced no numbers.
        status: The worst :attr:`perf.records.levels.LevelResult.status` of the trials with numbers
            (``"failed"`` when none has numbers).
        notes: Their notes (why a trial is not ``ok``), one per trial or round that gave it
            (:func:`perf.analysis.stats.notes.notes_text` says each once).
    """

    variant: str
    concurrency: int
    batch_size: int
    trials: int
    median: dict[str, float | None]
    low: dict[str, float | None]
    high: dict[str, float | None]
    stable: bool = True
    errors: list[str] = dataclasses.field(default_factory=list)
    status: str = "ok"
    notes: list[str] = dataclasses.field(default_factory=list)

    @property
    def flags(self) -> str:
        """Its status with every flag its rounds or trials had (:func:`perf.analysis.stats.notes.flag_statuses`):
        ``"host busy; unstable"`` for a level host busy in a round and unstable in another (its :attr:`status`, the
        worst of them, says ``"host busy"`` alone: trial 26, T26-11), else :attr:`status`."""
        return flag_statuses(self.status, self.notes)

    @property
    def ok(self) -> bool:
        """The point has a throughput (at least one trial measured); :attr:`status` says
        how far it can be trusted."""
        return (self.median.get(THROUGHPUT) or 0) > 0

    def get(self, metric: str) -> float | None:
        """Median of ``metric`` over trials (None when absent)."""
        return self.median.get(metric)

    def value(self, metric: str) -> float:
        """Median of ``metric`` over trials, for code that has already kept only points
        that measured it (e.g. :attr:`ok` points for :data:`THROUGHPUT`).

        Raises:
            ValueError: The point has no value for ``metric`` (a bug in the caller, which
                should have filtered with :meth:`get` or :attr:`ok` first).
        """
        v = self.median.get(metric)
        if v is None:
            raise self._not_measured(metric)
        return v

    def bounds(self, metric: str) -> tuple[float, float]:
        """Min and max of ``metric`` over trials, for a point that measured it (see :meth:`value`).

        Raises:
            ValueError: The point has no value for ``metric``.
        """
        lo, hi = self.low.get(metric), self.high.get(metric)
        if lo is None or hi is None:
            raise self._not_measured(metric)
        return lo, hi

    def _not_measured(self, metric: str) -> ValueError:
        return ValueError(
            f"{self.variant} at concurrency {self.concurrency}, batch size {self.batch_size}: "
            f"{metric} was not measured; expected a point filtered to those that measured it"
        )

    def spread(self, metric: str) -> float | None:
        """Max - min of ``metric`` over trials; None with fewer than 2 trials."""
        lo, hi = self.low.get(metric), self.high.get(metric)
        if self.trials < 2 or lo is None or hi is None:
            return None
        return hi - lo


def fmt_spread(p: Point, metric: str, digits: int = 1) -> str:
    """Median, plus `` [min–max]`` when the point has several trials."""
    text = fmt(p.get(metric), digits)
    if p.spread(metric) is not None:
        text += f" [{fmt(p.low[metric], digits)}–{fmt(p.high[metric], digits)}]"
    return text


def fold(levels: Sequence[LevelResult], variant: str, concurrency: int, batch_size: int) -> Point:
    """The trials (or rounds) ``levels`` of one level folded into a :class:`Point`: each metric's
    median and min–max over those with numbers, the worst status, the others' errors."""
    good = [lv for lv in levels if lv.ok]
    med, lo, hi = {}, {}, {}
    for m in METRICS:
        vals = [getattr(lv, m) for lv in good if getattr(lv, m) is not None]
        med[m], lo[m], hi[m] = (statistics.median(vals), min(vals), max(vals)) if vals else (None, None, None)
    errors = [lv.error or "no throughput" for lv in levels if not lv.ok]
    status = min((lv.status or "ok" for lv in good), key=LEVEL_STATUSES.index, default="failed")
    notes = [n for lv in good for n in lv.notes]  # one per trial or round: said once by perf.analysis.stats.notes
    return Point(variant, concurrency, batch_size, len(good), med, lo, hi, all(lv.stable for lv in good), errors, status, notes)


def aggregate(levels: Iterable[LevelResult], variant: str = "") -> list[Point]:
    """Fold trials into one :class:`Point` per (concurrency, batch size), sorted by them (:func:`fold`).

    Request-rate levels (``request_rate`` set) are not concurrency points and are left out
    (:func:`rate_points` folds them, for their own table and plot).

    Args:
        levels: Levels of one variant (any trial order).
        variant: Name stored on the points.
    """
    groups: dict[tuple[int, int], list[LevelResult]] = {}
    for lv in levels:
        if lv.request_rate is None:
            groups.setdefault((lv.batch_size, lv.concurrency), []).append(lv)
    return [fold(lvs, variant, conc, bs) for (bs, conc), lvs in sorted(groups.items())]


def rate_points(run: RunResult) -> dict[tuple[str, int, float], Point]:
    """The request-rate levels (``--request-rates``) folded like :func:`aggregate`, sorted:
    ``{(variant, client batch size, offered rate in requests/s): point}``, each metric's median and
    min–max over the level's rounds (or trials). The report's table and request_rates.png both show
    these (trial 11, F22: the plot drew every round, its line ending at the worst one)."""
    groups: dict[tuple[str, int, float], list[LevelResult]] = {}
    for v in run.variants:
        for lv in v.levels:
            if lv.request_rate is not None:
                groups.setdefault((v.name, lv.batch_size, lv.request_rate), []).append(lv)
    return {k: fold(lvs, k[0], lvs[0].concurrency, k[1]) for k, lvs in sorted(groups.items())}


def run_points(run: RunResult) -> dict[str, list[Point]]:
    """:func:`aggregate` for every variant of ``run``, keyed by variant name."""
    return {v.name: aggregate(v.levels, v.name) for v in run.variants}


def spread_unknown(trials: int) -> str:
    """``"spread unknown (1 trial)"``: the words for a difference whose significance is unknown."""
    return f"spread unknown ({trials} trial{'s' if trials != 1 else ''})"


@dataclasses.dataclass
class Delta:
    """A change of one metric from point ``a`` to point ``b``.

    Attributes:
        metric: LevelResult field name.
        a, b: Medians (metric units).
        change_pct: ``(b - a) / a`` in %; None when ``a`` is 0.
        spread_pct: The larger of the two min–max trial spreads, in % of ``a``; None when
            either point has fewer than :data:`MIN_TRIALS_FOR_SPREAD` trials (or ``a`` is 0).
        significant: ``|b - a|`` exceeds both trial spreads (True/False); None when the
            spread is unknown (a point with 1 trial).
        trials: Trials behind ``a`` and ``b``.
    """

    metric: str
    a: float
    b: float
    change_pct: float | None
    spread_pct: float | None
    significant: bool | None
    trials: tuple[int, int] = (1, 1)

    @property
    def unknown_note(self) -> str:
        """``"spread unknown (1 trial)"``: why :attr:`significant` is None (empty when known)."""
        return "" if self.significant is not None else spread_unknown(min(self.trials))

    def describe(self, note_unknown: bool = True) -> str:
        """``"+12.3 %"`` (significant), ``"+1.2 % (not significant, trial spread 4.0 %)"`` or
        ``"+8.0 % (spread unknown: 1 trial)"`` (just ``"+8.0 %"`` with ``note_unknown=False``,
        for a text that says once that every spread is unknown)."""
        if self.change_pct is None:
            return f"{fmt(self.a)} -> {fmt(self.b)}"
        text = f"{self.change_pct:+.1f} %"
        if self.significant is None and not note_unknown:
            return text
        if self.significant is None:
            n = min(self.trials)
            return text + f" (spread unknown: {n} trial{'s' if n != 1 else ''})"
        if not self.significant:
            text += (
                f" (not significant, trial spread {self.spread_pct:.1f} %)"
                if self.spread_pct is not None
                else " (not significant)"
            )
        return text


def delta(a: Point, b: Point, metric: str) -> Delta | None:
    """Change of ``metric`` from ``a`` to ``b`` with its significance (module noise rule).

    Args:
        a: Baseline / before point.
        b: Compared / after point.
        metric: LevelResult field name, e.g. ``"throughput_infer_per_s"``.

    Returns:
        None when either median is absent. ``significant`` is None unless both points have
        at least :data:`MIN_TRIALS_FOR_SPREAD` trials.
    """
    va, vb = a.get(metric), b.get(metric)
    if va is None or vb is None:
        return None
    change = (vb - va) / va * 100.0 if va else None
    sa, sb = a.spread(metric), b.spread(metric)
    if min(a.trials, b.trials) < MIN_TRIALS_FOR_SPREAD or sa is None or sb is None:
        return Delta(metric, va, vb, change, None, None, (a.trials, b.trials))
    spread = max(sa, sb)
    spread_pct = spread / abs(va) * 100.0 if va else None
    return Delta(metric, va, vb, change, spread_pct, abs(vb - va) > spread, (a.trials, b.trials))


# ---------------------------------------------------------------- curves and knees
