"""Trial statistics, significance of a difference, and run-to-run comparison.

A *level* (one variant at one concurrency and client batch size) may be measured in
several trials (:attr:`perf.results.LevelResult.trial` 0..N-1). :func:`aggregate` folds
them into one :class:`Point`: the median of every metric and its spread (min–max over
the trials; with 2–5 trials an interquartile range says nothing more than min–max).

Noise rule (used by the report, its conclusions and :func:`compare_runs`): a difference
between two points is *significant* when it is larger than the noise, where the noise is

* the larger of the two points' min–max trial spreads, when either point has >= 2 trials;
* otherwise :data:`DEFAULT_NOISE_PCT` (5 %) of the first ("before"/baseline) value — the
  run-to-run variation perf_analyzer's default stability criterion (``-s 10``: three windows
  within ±10 % of their mean) leaves on a quiet host.

A difference at or below the noise is reported as "not significant".
"""

from __future__ import annotations

import dataclasses
import logging
import statistics
from pathlib import Path
from typing import Iterable

from core.errors import PerfError
from perf.results import LevelResult, RunResult, load

log = logging.getLogger(__name__)

DEFAULT_NOISE_PCT = 5.0
UNSTABLE_MARK = "†"
METRICS: tuple[str, ...] = tuple(
    f.name for f in dataclasses.fields(LevelResult)
    if f.name not in ("concurrency", "batch_size", "trial", "stable", "attempts", "error", "csv")
)


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

    @property
    def ok(self) -> bool:
        """The point has a throughput (at least one trial measured)."""
        return self.median.get("throughput_infer_per_s") is not None

    def get(self, metric: str) -> float | None:
        """Median of ``metric`` over trials (None when absent)."""
        return self.median.get(metric)

    def spread(self, metric: str) -> float | None:
        """Max - min of ``metric`` over trials; None with fewer than 2 trials."""
        lo, hi = self.low.get(metric), self.high.get(metric)
        if self.trials < 2 or lo is None or hi is None:
            return None
        return hi - lo


def aggregate(levels: Iterable[LevelResult], variant: str = "") -> list[Point]:
    """Fold trials into one :class:`Point` per (concurrency, batch size), sorted by them.

    Request-rate levels (``request_rate`` set) are not concurrency points and are left out;
    the report lists them in a table of their own.

    Args:
        levels: Levels of one variant (any trial order).
        variant: Name stored on the points.
    """
    groups: dict[tuple[int, int], list[LevelResult]] = {}
    for lv in levels:
        if lv.request_rate is None:
            groups.setdefault((lv.batch_size, lv.concurrency), []).append(lv)
    out = []
    for (bs, conc), lvs in sorted(groups.items()):
        good = [lv for lv in lvs if lv.ok]
        med, lo, hi = {}, {}, {}
        for m in METRICS:
            vals = [getattr(lv, m) for lv in good if getattr(lv, m) is not None]
            med[m] = statistics.median(vals) if vals else None
            lo[m] = min(vals) if vals else None
            hi[m] = max(vals) if vals else None
        errors = [lv.error or "no throughput" for lv in lvs if not lv.ok]
        out.append(Point(variant, conc, bs, len(good), med, lo, hi, all(lv.stable for lv in good), errors))
    return out


def run_points(run: RunResult) -> dict[str, list[Point]]:
    """:func:`aggregate` for every variant of ``run``, keyed by variant name."""
    return {v.name: aggregate(v.levels, v.name) for v in run.variants}


@dataclasses.dataclass
class Delta:
    """A change of one metric from point ``a`` to point ``b``.

    Attributes:
        metric: LevelResult field name.
        a, b: Medians (metric units).
        change_pct: ``(b - a) / a`` in %; None when ``a`` is 0.
        noise_pct: The noise in % of ``a`` (see the module's noise rule).
        significant: ``|b - a|`` exceeds the noise.
        basis: ``"trial spread"`` or ``"default 5%"``.
    """

    metric: str
    a: float
    b: float
    change_pct: float | None
    noise_pct: float | None
    significant: bool
    basis: str

    def describe(self) -> str:
        """``"+12.3 %"`` or ``"+1.2 % (not significant, noise 4.0 %)"``."""
        if self.change_pct is None:
            return f"{fmt(self.a)} -> {fmt(self.b)}"
        text = f"{self.change_pct:+.1f} %"
        if not self.significant:
            text += f" (not significant, noise {self.noise_pct:.1f} %)" if self.noise_pct is not None else " (not significant)"
        return text


def delta(a: Point, b: Point, metric: str, default_noise_pct: float = DEFAULT_NOISE_PCT) -> Delta | None:
    """Change of ``metric`` from ``a`` to ``b`` with its significance (module noise rule).

    Args:
        a: Baseline / before point.
        b: Compared / after point.
        metric: LevelResult field name, e.g. ``"throughput_infer_per_s"``.
        default_noise_pct: Noise in % of ``a`` when neither point has trials (default 5).

    Returns:
        None when either median is absent.
    """
    va, vb = a.get(metric), b.get(metric)
    if va is None or vb is None:
        return None
    spreads = [s for s in (a.spread(metric), b.spread(metric)) if s is not None]
    if spreads:
        noise_abs, basis = max(spreads), "trial spread"
    else:
        noise_abs, basis = default_noise_pct / 100.0 * abs(va), f"default {default_noise_pct:g}%"
    change = (vb - va) / va * 100.0 if va else None
    noise_pct = noise_abs / abs(va) * 100.0 if va else None
    return Delta(metric, va, vb, change, noise_pct, abs(vb - va) > noise_abs, basis)


def fmt(value: float | None, digits: int = 1) -> str:
    """A number for a table: thousands separators, ``digits`` decimals, ``—`` for None."""
    return "—" if value is None else f"{value:,.{digits}f}"


def fmt_spread(p: Point, metric: str, digits: int = 1) -> str:
    """Median, plus `` [min–max]`` when the point has several trials."""
    text = fmt(p.get(metric), digits)
    if p.spread(metric) is not None:
        text += f" [{fmt(p.low[metric], digits)}–{fmt(p.high[metric], digits)}]"
    return text


def _env_line(run: RunResult) -> dict[str, str]:
    env = run.environment
    server = env.get("server") or {}
    gpus = ", ".join(g.get("name", "?") for g in env.get("gpus") or []) or "none"
    return {
        "host": str(env.get("host", "?")),
        "cpu": f"{env.get('cpu', '?')} ({env.get('cpu_count', '?')} cores)",
        "gpus": gpus,
        "server runtime": f"{server.get('runtime', '?')} {server.get('version') or ''}".strip(),
        "perf_analyzer": str((env.get("perf_analyzer") or {}).get("version", "?")),
        "protocol": str(run.settings.get("protocol", "?")),
        "measurement_interval_ms": str(run.settings.get("measurement_interval_ms", "?")),
    }


def _sig(d: Delta | None) -> str:
    return "—" if d is None else ("yes" if d.significant else "no")


def _pct(d: Delta | None) -> str:
    return "—" if d is None or d.change_pct is None else f"{d.change_pct:+.1f}"


def matched_points(a: RunResult, b: RunResult) -> list[tuple[str, Point, Point]]:
    """(variant, point in a, point in b) for every level measured in both runs, matched by
    variant name and (concurrency, batch size), in ``a``'s order."""
    pa, pb = run_points(a), run_points(b)
    out = []
    for name in [n for n in pa if n in pb]:
        by_key = {(q.concurrency, q.batch_size): q for q in pb[name]}
        for p in pa[name]:
            q = by_key.get((p.concurrency, p.batch_size))
            if q is not None and p.ok and q.ok:
                out.append((name, p, q))
    return out


def compare_markdown(a: RunResult, b: RunResult, label_a: str = "A", label_b: str = "B") -> str:
    """The comparison report as markdown (see :func:`compare_runs`)."""
    pa, pb = run_points(a), run_points(b)
    lines = [f"# Comparison: {a.run_id} ({label_a}) → {b.run_id} ({label_b})", ""]
    ea, eb = _env_line(a), _env_line(b)
    lines += [f"| | {label_a}: {a.run_id} | {label_b}: {b.run_id} |", "|---|---|---|"]
    lines += [f"| {k}{' (differs)' if ea[k] != eb[k] else ''} | {ea[k]} | {eb[k]} |" for k in ea]
    lines += ["", "Changes are (B − A) / A. Matched by variant name and (concurrency, batch size); "
              "values are medians over trials. **Significant** means the change exceeds the noise: the larger "
              "min–max trial spread of the two levels where trials exist, otherwise a default "
              f"{DEFAULT_NOISE_PCT:g} % of A. {UNSTABLE_MARK} = perf_analyzer did not reach a stable measurement.", ""]
    rows: dict[str, list[str]] = {}
    counts = {"throughput_infer_per_s": [0, 0, 0], "latency_p99_ms": [0, 0, 0]}  # up, down, not significant
    for name, p, q in matched_points(a, b):
        dt, dl = delta(p, q, "throughput_infer_per_s"), delta(p, q, "latency_p99_ms")
        for d in (dt, dl):
            if d is not None:
                c = counts[d.metric]
                c[2 if not d.significant else (0 if d.b > d.a else 1)] += 1
        mark_a = "" if p.stable else UNSTABLE_MARK
        mark_b = "" if q.stable else UNSTABLE_MARK
        rows.setdefault(name, []).append(
            f"| {p.concurrency} | {p.batch_size} | {fmt_spread(p, 'throughput_infer_per_s')}{mark_a} | "
            f"{fmt_spread(q, 'throughput_infer_per_s')}{mark_b} | {_pct(dt)} | {_sig(dt)} | "
            f"{fmt_spread(p, 'latency_p99_ms', 2)} | {fmt_spread(q, 'latency_p99_ms', 2)} | {_pct(dl)} | {_sig(dl)} |")
    t, l99 = counts["throughput_infer_per_s"], counts["latency_p99_ms"]
    lines += ["## Summary", "",
              f"- Matched levels: {sum(t)} in {len(rows)} variant(s).",
              f"- Throughput: {t[0]} significantly higher in B, {t[1]} significantly lower, {t[2]} not significant.",
              f"- p99 latency: {l99[1]} significantly lower in B, {l99[0]} significantly higher, {l99[2]} not significant."]
    only_a, only_b = [n for n in pa if n not in pb], [n for n in pb if n not in pa]
    if only_a:
        lines.append(f"- Only in {label_a}: {', '.join(only_a)}.")
    if only_b:
        lines.append(f"- Only in {label_b}: {', '.join(only_b)}.")
    for name, body in rows.items():
        lines += ["", f"## {name}", "",
                  f"| concurrency | batch | throughput {label_a} (infer/s) | throughput {label_b} (infer/s) | Δ % | significant "
                  f"| p99 {label_a} (ms) | p99 {label_b} (ms) | Δ % | significant |",
                  "|---:|---:|---:|---:|---:|:-:|---:|---:|---:|:-:|", *body]
    return "\n".join(lines) + "\n"


def compare_runs(run_a: Path, run_b: Path, out: Path | None = None) -> Path:
    """Compare two sweeps (before/after, or two machines) and write a markdown report.

    Per variant (matched by name) and level (matched by concurrency and batch size): the
    throughput (infer/s) and p99 latency (ms) of each run, the change in %, and whether it
    is significant under the module's noise rule (trial spread, else 5 %).

    Args:
        run_a: Run folder of the baseline ("before") sweep.
        run_b: Run folder of the compared ("after") sweep.
        out: Markdown file to write (default ``<run_b>/compare_<run_a id>.md``).

    Returns:
        The path written.

    Raises:
        PerfError: a run folder has no readable ``results.json``, or the two runs share no
            measured level.
    """
    a, b = load(Path(run_a)), load(Path(run_b))
    if not matched_points(a, b):
        raise PerfError(
            f"runs {a.run_id} and {b.run_id} share no measured level",
            hint="compare runs that swept the same variant names at the same concurrency and batch sizes",
        )
    text = compare_markdown(a, b)
    out = Path(out) if out else Path(run_b) / f"compare_{a.run_id}.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    log.info("comparison written to %s", out)
    return out
