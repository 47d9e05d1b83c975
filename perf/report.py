"""The report of one sweep: recommendation, saturation points, tables, plots and conclusions.

:func:`write_report` turns ``results/<run>/results.json`` into ``report.md`` plus PNG plots
in the same folder. The pieces are public so the CLI and tests can use them:
:func:`recommend`, :func:`knee`, :func:`summary_table`.

Trials of one level are folded into their median with a min–max spread
(:func:`perf.compare.aggregate`); "significant" follows :mod:`perf.compare`'s noise rule.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from core.errors import PerfError
from perf.compare import UNSTABLE_MARK, Point, aggregate, fmt, fmt_spread, run_points
from perf.results import COMMANDS_FILE, LevelResult, RunResult, load

if TYPE_CHECKING:  # rich is imported only when a table is drawn
    from rich.table import Table

log = logging.getLogger(__name__)

REPORT_FILE = "report.md"
KNEE_GAIN_PCT = 10.0
THROUGHPUT, P99 = "throughput_infer_per_s", "latency_p99_ms"


@dataclasses.dataclass
class Choice:
    """One variant at one level, as picked by :func:`recommend` (medians over trials).

    Attributes:
        variant: Variant name.
        concurrency: perf_analyzer concurrency of the level.
        batch_size: Client batch size.
        throughput_infer_per_s: Median throughput (infer/s).
        latency_p99_ms: Median client p99 latency (ms).
        stable: perf_analyzer reached its stability criterion in every trial.
        trials: Trials behind the medians.
    """

    variant: str
    concurrency: int
    batch_size: int
    throughput_infer_per_s: float
    latency_p99_ms: float
    stable: bool
    trials: int

    @classmethod
    def of(cls, p: Point) -> "Choice":
        return cls(p.variant, p.concurrency, p.batch_size, p.get(THROUGHPUT), p.get(P99), p.stable, p.trials)

    def describe(self) -> str:
        """``"mlp_onnx_cpu2_db500_mbs64 at concurrency 8: 1,234.5 infer/s, p99 3.21 ms"``."""
        text = (f"`{self.variant}` at concurrency {self.concurrency}"
                + (f" (batch {self.batch_size})" if self.batch_size != 1 else "")
                + f": {fmt(self.throughput_infer_per_s)} infer/s, p99 {fmt(self.latency_p99_ms, 2)} ms")
        return text + ("" if self.stable else f" {UNSTABLE_MARK} unstable measurement")


@dataclasses.dataclass
class Recommendation:
    """What :func:`recommend` found.

    Attributes:
        latency_budget_ms: The p99 budget applied (ms), or None for none.
        best_under_budget: Highest-throughput level whose p99 <= budget; None when no budget
            was given or no level meets it.
        best_peak: Highest-throughput level of any variant, regardless of latency.
        knees: Saturation concurrency per variant (:func:`knee`); None = no knee within the
            swept range.
        notes: Sentences explaining gaps (no level under budget, failed variants left out).
    """

    latency_budget_ms: float | None
    best_under_budget: Choice | None
    best_peak: Choice | None
    knees: dict[str, int | None]
    notes: list[str] = dataclasses.field(default_factory=list)


def _as_points(levels: Sequence[LevelResult | Point]) -> list[Point]:
    if all(isinstance(x, Point) for x in levels):
        return list(levels)  # type: ignore[arg-type]
    return aggregate([x for x in levels if isinstance(x, LevelResult)])


def primary_batch_size(points: Sequence[Point]) -> int | None:
    """The smallest client batch size with a measured level (curves and knees use it)."""
    sizes = [p.batch_size for p in points if p.ok]
    return min(sizes) if sizes else None


def curve(points: Sequence[Point], batch_size: int | None = None) -> list[Point]:
    """Measured points of one batch size (default :func:`primary_batch_size`) by concurrency."""
    bs = primary_batch_size(points) if batch_size is None else batch_size
    return sorted((p for p in points if p.ok and p.batch_size == bs), key=lambda p: p.concurrency)


def knee(levels: Sequence[LevelResult | Point], batch_size: int | None = None,
         gain_pct: float = KNEE_GAIN_PCT) -> int | None:
    """Saturation point of one variant: the concurrency after which more load stops paying.

    Rule: with levels ``c_1 < ... < c_n`` (medians over trials) of throughput ``T`` and p99
    ``P``, the knee is the smallest ``c_i`` (``i < n``) such that every higher level gains
    less than ``gain_pct`` throughput over it (``T_j < T_i * (1 + gain_pct/100)`` for all
    ``j > i``) while its p99 is higher (``P_j > P_i`` for all ``j > i``). Past the knee,
    extra concurrent requests only wait in a queue. A curve still growing at its last level
    has no knee within the swept range.

    Args:
        levels: One variant's levels (raw trials or :class:`perf.compare.Point`).
        batch_size: Client batch size to use (default: the smallest measured).
        gain_pct: Throughput gain (%) below which a step counts as flat (default 10).

    Returns:
        The knee's concurrency, or None (fewer than 2 levels, or no knee).
    """
    pts = [p for p in curve(_as_points(levels), batch_size) if p.get(P99) is not None]
    for i, p in enumerate(pts[:-1]):
        later = pts[i + 1:]
        if (all(q.get(THROUGHPUT) < p.get(THROUGHPUT) * (1 + gain_pct / 100.0) for q in later)
                and all(q.get(P99) > p.get(P99) for q in later)):
            return p.concurrency
    return None


def recommend(run: RunResult, latency_budget_ms: float | None = None) -> Recommendation:
    """Best variant under a p99 budget, best peak throughput, and each variant's knee.

    Every measured level (median over trials) of every variant that did not fail is a
    candidate; unstable levels are candidates but flagged on the :class:`Choice`. Ties in
    throughput go to the lower p99.

    Args:
        run: A loaded sweep.
        latency_budget_ms: Client p99 budget in ms (default None: no budget).

    Raises:
        PerfError: the budget is not a positive number.
    """
    if latency_budget_ms is not None and not latency_budget_ms > 0:
        raise PerfError(f"latency budget must be a positive number of ms, got {latency_budget_ms}")
    points = run_points(run)
    knees = {v.name: knee(points[v.name]) for v in run.variants}
    notes: list[str] = []
    failed = [v.name for v in run.variants if v.status == "failed"]
    if failed:
        notes.append(f"Failed variants are not recommended: {', '.join(failed)}.")
    cands = [p for v in run.variants if v.status != "failed" for p in points[v.name]
             if p.ok and p.get(P99) is not None]
    best = max(cands, key=lambda p: (p.get(THROUGHPUT), -p.get(P99)), default=None)
    under = None
    if latency_budget_ms is not None:
        fits = [p for p in cands if p.get(P99) <= latency_budget_ms]
        under = max(fits, key=lambda p: (p.get(THROUGHPUT), -p.get(P99)), default=None)
        if under is None and cands:
            low = min(cands, key=lambda p: p.get(P99))
            notes.append(f"No level meets the p99 budget of {fmt(latency_budget_ms, 2)} ms; the lowest p99 measured "
                         f"is {fmt(low.get(P99), 2)} ms (`{low.variant}` at concurrency {low.concurrency}).")
    if not cands:
        notes.append("No variant has a measured level.")
    return Recommendation(latency_budget_ms, Choice.of(under) if under else None,
                          Choice.of(best) if best else None, knees, notes)


def _peak(points: Sequence[Point]) -> Point | None:
    return max((p for p in points if p.ok), key=lambda p: p.get(THROUGHPUT), default=None)


def summary_table(run: RunResult, latency_budget_ms: float | None = None) -> "Table":
    """A rich table, one row per variant: peak throughput, its concurrency and p99, knee, notes.

    Notes: ``best under budget``, ``best peak``, ``† unstable`` (the peak level), and
    ``failed: <error>`` / ``pending`` for variants that did not finish.

    Args:
        run: A loaded sweep.
        latency_budget_ms: p99 budget (ms) for the "best under budget" mark (default: the
            run's ``settings["latency_budget_ms"]`` if set, else none — as :func:`write_report`).
    """
    from rich.table import Table

    if latency_budget_ms is None:
        latency_budget_ms = run.settings.get("latency_budget_ms")
    rec = recommend(run, latency_budget_ms)
    points = run_points(run)
    title = f"Sweep {run.run_id}" + (f" — p99 budget {fmt(latency_budget_ms, 2)} ms" if latency_budget_ms else "")
    table = Table(title=title, caption="c: concurrency; p99 at the peak level; knee: saturation concurrency (report.md)")
    table.add_column("variant", no_wrap=True)
    for col in ("peak infer/s", "at c", "p99 ms", "knee c"):
        table.add_column(col, justify="right", no_wrap=True)
    table.add_column("note")
    for v in run.variants:
        p = _peak(points[v.name])
        marks = []
        if rec.best_under_budget and rec.best_under_budget.variant == v.name:
            marks.append(f"best under budget (c={rec.best_under_budget.concurrency})")
        if rec.best_peak and rec.best_peak.variant == v.name:
            marks.append("best peak")
        if p is not None and not p.stable:
            marks.append(f"{UNSTABLE_MARK} unstable")
        if v.status != "ok":
            marks.append(v.status + (f": {v.error.splitlines()[0][:80]}" if v.error else ""))
        k = rec.knees.get(v.name)
        table.add_row(v.name, fmt(p.get(THROUGHPUT)) if p else "—", str(p.concurrency) if p else "—",
                      fmt(p.get(P99), 2) if p else "—", "—" if k is None else str(k), "; ".join(marks),
                      style="dim" if v.status == "failed" else None)
    return table


# ---------------------------------------------------------------- markdown

def _has(points: dict[str, list[Point]], metric: str) -> bool:
    return any(p.get(metric) is not None for pts in points.values() for p in pts)


def gpu_metric(points: dict[str, list[Point]]) -> str | None:
    """The GPU utilisation field present in the run: Triton's metric, else local NVML; None without GPU."""
    return next((m for m in ("gpu_utilization_pct", "nvml_gpu_utilization_pct") if _has(points, m)), None)


def _what_was_run(run: RunResult, run_dir: Path) -> list[str]:
    env, s = run.environment, run.settings
    server, pa = env.get("server") or {}, env.get("perf_analyzer") or {}
    gpus = "; ".join(f"{g.get('name', '?')} (driver {g.get('driver', '?')}, {fmt((g.get('memory_bytes') or 0) / 2**30)} GiB)"
                     for g in env.get("gpus") or []) or "none"
    mem = env.get("memory_bytes")
    lines = ["## What was run", "",
             f"- Run `{run.run_id}`, started {run.created}, finished {run.finished or 'not finished (interrupted?)'}.",
             f"- Host `{env.get('host', '?')}`: {env.get('os', '?')}; CPU {env.get('cpu', '?')}, "
             f"{env.get('cpu_count', '?')} cores; memory {fmt(mem / 2**30) if mem else '?'} GiB; GPUs: {gpus}.",
             f"- Server runtime: **{server.get('runtime', '?')}** (tritonserver {server.get('version', '?')})"
             + (f" — {server['reason']}" if server.get("reason") else "") + ".",
             f"- perf_analyzer {pa.get('version', '?')} (`{pa.get('path', '?')}`)."]
    if server.get("command"):
        lines.append(f"- Server command: `{server['command']}`")
    versions = env.get("versions") or {}
    if versions:
        lines.append("- Versions: " + ", ".join(f"{k} {v}" for k, v in versions.items()) + ".")
    if s:
        lines.append("- Settings: " + ", ".join(f"{k}={v}" for k, v in s.items() if k != "variants") + ".")
    if (run_dir / COMMANDS_FILE).exists():
        lines.append(f"- Every command line (server, perf_analyzer) is in [{COMMANDS_FILE}]({COMMANDS_FILE}).")
    lines += ["", "| variant | format | precision | instances | max_batch_size | dynamic batching | status | levels |",
              "|---|---|---|---|---:|---|---|---:|"]
    for v in run.variants:
        p = v.params or {}
        db = (f"on, {p.get('max_queue_delay_us', 0)} µs" + (f", preferred {p['preferred_batch_sizes']}" if p.get("preferred_batch_sizes") else "")
              if p.get("dynamic_batching") else "off") if p else "?"
        lines.append(f"| `{v.name}` | {p.get('format', '?')} | {p.get('precision', '?')} | {p.get('kind', '?')} x{p.get('count', '?')} "
                     f"| {p.get('max_batch_size', '?')} | {db} | {v.status} | {sum(1 for q in aggregate(v.levels) if q.ok)} |")
    failed = [v for v in run.variants if v.status == "failed"]
    if failed:
        lines += ["", "**Failed variants:**", ""] + [f"- `{v.name}`: {(v.error or 'no error recorded').strip()}" for v in failed]
    return lines


def _recommendation_md(rec: Recommendation, points: dict[str, list[Point]]) -> list[str]:
    lines = ["## Recommendation", ""]
    if rec.latency_budget_ms is not None:
        lines.append(f"- **Best under the p99 budget of {fmt(rec.latency_budget_ms, 2)} ms:** "
                     + (rec.best_under_budget.describe() if rec.best_under_budget else "none") + ".")
    else:
        lines.append("- No p99 budget given (pass `--latency-budget-ms` for a best-under-budget pick).")
    lines.append("- **Best peak throughput:** " + (rec.best_peak.describe() if rec.best_peak else "none") + ".")
    lines.append(f"- **Saturation (knee)**: the concurrency after which throughput grows < {KNEE_GAIN_PCT:g} % "
                 "at every higher level while p99 keeps rising:")
    lines += [f"  - `{n}`: " + (f"concurrency {k}" if k is not None else "no knee within the swept range"
                                 if len(curve(points[n])) > 1 else "fewer than 2 levels measured")
              for n, k in rec.knees.items()]
    return lines + [f"- {n}" for n in rec.notes]


def level_tables(points: dict[str, list[Point]], failed: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """Markdown lines: one table per (batch size, concurrency) comparing the variants.

    Columns: throughput (infer/s), p50/p90/p95/p99 (ms), server queue and compute infer
    (µs per request), avg server batch size, and CPU/GPU utilisation (%) when the run has them.
    Medians over trials, with [min–max] for throughput and p99 when a level has trials.

    Args:
        points: :func:`perf.compare.run_points` of the run.
        failed: Names of failed variants (flagged, never bold as the level's best).
    """
    gpu = gpu_metric(points)
    cols = [("throughput (infer/s)", THROUGHPUT, 1), ("p50 (ms)", "latency_p50_ms", 2), ("p90 (ms)", "latency_p90_ms", 2),
            ("p95 (ms)", "latency_p95_ms", 2), ("p99 (ms)", P99, 2), ("queue (µs)", "server_queue_us", 0),
            ("compute infer (µs)", "server_compute_infer_us", 0), ("avg server batch", "avg_server_batch_size", 2)]
    if _has(points, "cpu_utilization_pct"):
        cols.append(("CPU util (%)", "cpu_utilization_pct", 1))
    if gpu:
        cols.append(("GPU util (%)", gpu, 1))
    keys = sorted({(p.batch_size, p.concurrency) for pts in points.values() for p in pts})
    multi_trial = any(p.trials > 1 for pts in points.values() for p in pts)
    lines = ["## Results per concurrency level", "",
             "Medians over trials" + (", with the [min–max] spread over trials for throughput and p99" if multi_trial else "")
             + f". **Bold**: highest throughput at the level. `—`: not measured on this host. "
             f"{UNSTABLE_MARK}: perf_analyzer did not reach a stable measurement at this level (kept, but treat with care)."]
    for bs, conc in keys:
        lines += ["", f"### Concurrency {conc}" + (f", batch size {bs}" if bs != 1 else ""), "",
                  "| variant | " + " | ".join(c[0] for c in cols) + " |", "|---|" + "---:|" * len(cols)]
        here = [(n, p) for n, pts in points.items() for p in pts if (p.batch_size, p.concurrency) == (bs, conc)]
        top = max((p.get(THROUGHPUT) for n, p in here if p.ok and n not in failed), default=None)
        for name, p in here:
            if not p.ok:
                lines.append(f"| `{name}` | failed: {'; '.join(p.errors)[:120]} |" + " |" * (len(cols) - 1))
                continue
            cells = [fmt_spread(p, m, d) if m in (THROUGHPUT, P99) else fmt(p.get(m), d) for _, m, d in cols]
            if p.get(THROUGHPUT) == top and name not in failed:
                cells[0] = f"**{cells[0]}**"
            mark = ("" if p.stable else " " + UNSTABLE_MARK) + (" (variant failed later)" if name in failed else "")
            lines.append(f"| `{name}`{mark} | " + " | ".join(cells) + " |")
    return lines


def request_rate_table(run: RunResult) -> list[str]:
    """Markdown lines for the request-rate levels (``--request-rates``), one row per trial:
    offered rate (requests/s), achieved throughput (infer/s), p50/p99 (ms), server queue and
    compute infer (µs). Empty when the run has none. They are not part of the
    concurrency analysis above (a fixed arrival rate is a different load model)."""
    rows = [(v.name, lv) for v in run.variants for lv in v.levels if lv.request_rate is not None]
    if not rows:
        return []
    lines = ["", "## Request-rate levels", "",
             "| variant | offered (req/s) | batch | trial | throughput (infer/s) | p50 (ms) | p99 (ms) | queue (µs) | compute infer (µs) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, lv in sorted(rows, key=lambda r: (r[0], r[1].batch_size, r[1].request_rate, r[1].trial)):
        if not lv.ok:
            lines.append(f"| `{name}` | {lv.request_rate:g} | {lv.batch_size} | {lv.trial} | failed: {(lv.error or '')[:100]} | | | | |")
            continue
        mark = "" if lv.stable else " " + UNSTABLE_MARK
        lines.append(f"| `{name}`{mark} | {lv.request_rate:g} | {lv.batch_size} | {lv.trial} | {fmt(lv.throughput_infer_per_s, 1)} | "
                     f"{fmt(lv.latency_p50_ms, 2)} | {fmt(lv.latency_p99_ms, 2)} | {fmt(lv.server_queue_us, 0)} | {fmt(lv.server_compute_infer_us, 0)} |")
    return lines


def write_report(run_dir: Path, latency_budget_ms: float | None = None,
                 breakdown_concurrency: int | None = None) -> Path:
    """Write ``report.md`` and the PNG plots into ``run_dir``.

    Args:
        run_dir: A run folder holding ``results.json``.
        latency_budget_ms: Client p99 budget in ms for the recommendation (default: the
            run's ``settings["latency_budget_ms"]`` if set, else none).
        breakdown_concurrency: Concurrency of the latency-breakdown plot (default: each
            variant's highest measured level).

    Returns:
        Path of ``report.md``.

    Raises:
        PerfError: no readable ``results.json``, a run without variants, or a bad budget.
    """
    from perf import conclusions, plots

    run_dir = Path(run_dir)
    run = load(run_dir)
    if not run.variants:
        raise PerfError(f"run {run.run_id} in {run_dir} has no variants",
                        hint="the sweep stopped before its first variant; run perf/run_sweep.sh again")
    if latency_budget_ms is None:
        latency_budget_ms = run.settings.get("latency_budget_ms")
    rec = recommend(run, latency_budget_ms)
    points = run_points(run)
    import importlib.util

    if importlib.util.find_spec("matplotlib") is not None:
        pngs = plots.write_plots(run, run_dir, breakdown_concurrency, latency_budget_ms)
        plot_lines = [f"![{title}]({path.name})\n" for title, path in pngs.items()]
    else:  # e.g. the slim offline GPU bundle: the tables still carry every number
        pngs = {}
        plot_lines = ["(no plots: matplotlib is not installed here; `pip install matplotlib` and run `perf report` again)", ""]
        log.warning("matplotlib is not installed: report.md is written without plots")
    lines = [f"# Sweep report: {run.run_id}", ""]
    lines += _what_was_run(run, run_dir) + [""]
    lines += _recommendation_md(rec, points) + [""]
    lines += ["## Conclusions", ""] + conclusions.conclusions(run, rec) + [""]
    lines += ["## Plots", ""] + plot_lines
    lines += level_tables(points, {v.name for v in run.variants if v.status == "failed"})
    lines += request_rate_table(run)
    path = run_dir / REPORT_FILE
    path.write_text("\n".join(lines) + "\n")
    log.info("report written to %s (%d plots)", path, len(pngs))
    return path
