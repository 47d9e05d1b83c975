"""The report of one sweep: ``report.md`` with recommendation, tables, plots and conclusions.

:func:`write_report` turns ``results/<run>/results.json`` into ``report.md`` plus PNG plots
(:mod:`perf.plots`) in the same folder; :func:`summary_table` is the CLI's terminal view.
The numbers come from :mod:`perf.analysis` (medians over trials, noise rule, knees, the
recommendation) and the prose from :mod:`perf.conclusions`; tables are markdown written
by :func:`perf.markdown.table`.
"""

from __future__ import annotations

import importlib.util
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import PerfError
from perf import conclusions, plots
from perf.analysis import (
    KNEE_GAIN_PCT,
    P99,
    THROUGHPUT,
    Point,
    aggregate,
    curve,
    fmt_spread,
    gpu_metric,
    has_metric,
    peak,
    run_points,
)
from perf.markdown import CPU_MEASURES, UNSTABLE_MARK, fmt, name_then_numbers, table
from perf.pairs import variant_of
from perf.plan import describe_skipped
from perf.recommendation import Recommendation, recommend
from perf.results import COMMANDS_FILE, RunResult, load, split_by_shape

if TYPE_CHECKING:  # rich is imported only when a table is drawn
    from rich.table import Table

log = logging.getLogger(__name__)

REPORT_FILE = "report.md"


def summary_table(run: RunResult, latency_budget_ms: float | None = None, latency_percentile: int | None = None) -> Table:
    """A rich table, one row per variant: peak throughput, its concurrency and p99, knee, notes.

    Notes: ``best under budget``, ``best peak``, ``† unstable`` / ``† host busy`` (the peak level), and
    ``failed: <error>`` / ``pending`` for variants that did not finish.

    Args:
        run: A loaded sweep.
        latency_budget_ms: Latency budget (ms) for the "best under budget" mark (default: the
            run's ``settings["latency_budget_ms"]`` if set, else none — as :func:`write_report`).
        latency_percentile: The percentile the budget is on (default: the run's, else 99).
    """
    from rich.markup import escape
    from rich.table import Table

    run = split_by_shape(run)
    if latency_budget_ms is None:
        latency_budget_ms = run.settings.get("latency_budget_ms")
    rec = recommend(run, latency_budget_ms, latency_percentile)
    points = run_points(run)
    title = f"Sweep {run.run_id}" + (f" — {rec.budget_text}" if latency_budget_ms else "")
    view = Table(
        title=escape(title),
        caption=f"c: concurrency, b: client batch size; p99 at the peak level; knee: "
        f"saturation concurrency (report.md); {UNSTABLE_MARK}: that level's "
        "measurement was unstable",
    )
    view.add_column("variant", no_wrap=True)
    for col in ("peak infer/s", "at c", "p99 ms", "knee c"):
        view.add_column(col, justify="right", no_wrap=True)
    view.add_column("note")
    for v in run.variants:
        p = peak(points[v.name])
        marks = []
        u = rec.best_under_budget
        if u and u.variant == v.name:  # the † goes with the level it marks
            marks.append(f"best under budget ({_level_label(u.concurrency, u.batch_size, u.stable)})")
        if rec.best_peak and rec.best_peak.variant == v.name:
            marks.append("best peak")
        if p is not None and p.status not in ("ok", "unstable"):  # unstable: the † on the level
            marks.append(f"{UNSTABLE_MARK} {p.status}")
        if v.status != "ok":
            marks.append(v.status + (f": {v.error.splitlines()[0][:80]}" if v.error else ""))
        k = rec.knees.get(v.name)
        at = _level_label(p.concurrency, p.batch_size, p.stable).removeprefix("c=") if p else "—"
        view.add_row(
            escape(v.name),
            fmt(p.get(THROUGHPUT)) if p else "—",
            at,
            fmt(p.get(P99), 2) if p else "—",
            "—" if k is None else str(k),
            escape("; ".join(marks)),
            style="dim" if v.status == "failed" else None,
        )
    return view


def _level_label(concurrency: int, batch_size: int, stable: bool) -> str:
    """``"c=8"``, ``"c=8, b=4"``, with `` †`` when that level was unstable."""
    return f"c={concurrency}" + (f", b={batch_size}" if batch_size != 1 else "") + ("" if stable else f" {UNSTABLE_MARK}")


# ---------------------------------------------------------------- markdown


def _what_was_run(run: RunResult, run_dir: Path) -> list[str]:
    env, s = run.environment, run.settings
    server, pa = env.get("server") or {}, env.get("perf_analyzer") or {}
    gpus = (
        "; ".join(
            f"{g.get('name', '?')} (driver {g.get('driver', '?')}, {fmt((g.get('memory_bytes') or 0) / 2**30)} GiB)"
            for g in env.get("gpus") or []
        )
        or "none"
    )
    mem = env.get("memory_bytes")
    lines = [
        "## What was run",
        "",
        f"- Run `{run.run_id}`, started {run.created}, finished {run.finished or 'not finished (interrupted?)'}.",
        f"- Host `{env.get('host', '?')}`: {env.get('os', '?')}; CPU {env.get('cpu', '?')}, "
        f"{env.get('cpu_count', '?')} cores; memory {fmt(mem / 2**30) if mem else '?'} GiB; GPUs: {gpus}.",
        f"- Server runtime: **{server.get('runtime', '?')}** (tritonserver {server.get('version', '?')})"
        + (f" — {server['reason']}" if server.get("reason") else "")
        + ".",
        f"- perf_analyzer {pa.get('version', '?')} (`{pa.get('path', '?')}`).",
    ]
    if server.get("command"):
        lines.append(f"- Server command: `{server['command']}`")
    versions = env.get("versions") or {}
    if versions:
        lines.append("- Versions: " + ", ".join(f"{k} {v}" for k, v in versions.items()) + ".")
    if s:
        lines.append("- Settings: " + ", ".join(f"{k}={v}" for k, v in s.items() if k != "variants") + ".")
    lines += _dynamic_axes_lines(run)
    if (run_dir / COMMANDS_FILE).exists():
        lines.append(f"- Every command line (server, perf_analyzer) is in [{COMMANDS_FILE}]({COMMANDS_FILE}).")
    rows = []
    for v in run.variants:
        t = variant_of(v)
        db = (
            "?"
            if t is None
            else "off"
            if not t.dynamic_batching
            else (
                f"on, {t.max_queue_delay_us} µs"
                + (f", preferred {list(t.preferred_batch_sizes)}" if t.preferred_batch_sizes else "")
            )
        )
        rows.append(
            [
                f"`{v.name}`",
                t.format if t else "?",
                t.precision if t else "?",
                f"{t.kind} x{t.count}" if t else "? x?",
                t.max_batch_size if t else "?",
                db,
                v.status,
                sum(1 for q in aggregate(v.levels) if q.ok),
            ]
        )
    lines += [
        "",
        *table(
            ["variant", "format", "precision", "instances", "max_batch_size", "dynamic batching", "status", "levels"],
            rows,
            ["left", "left", "left", "left", "right", "left", "left", "right"],
        ),
    ]
    failed = [v for v in run.variants if v.status == "failed"]
    if failed:
        lines += ["", "**Failed variants:**", ""] + [f"- `{v.name}`: {(v.error or 'no error recorded').strip()}" for v in failed]
    skipped = [f"- `{v.name}`: {d}" for v in run.variants for d in describe_skipped(v.skipped)]
    if skipped:
        lines += ["", "**Skipped levels** (asked for, not measured):", "", *skipped]
    if len(run.server_starts) > 1:
        lines += ["", "**Server starts** (one log each):", ""] + [
            f"- [{s.log}]({s.log}) at {s.started}: {s.reason}" for s in run.server_starts
        ]
    return lines


def _dynamic_axes_lines(run: RunResult) -> list[str]:
    """What sizes the inputs' dynamic axes had: swept (``--shapes``, one series per size) or
    the size every level used, per variant (grouped when they agree)."""
    swept = run.settings.get("sweep_axes") or {}
    lines = []
    if swept:
        sizes = "; ".join(f"{axis} = {', '.join(map(str, v))}" for axis, v in swept.items())
        lines.append(
            f"- Dynamic axes swept as a level dimension (`--shapes`): {sizes}; each variant is reported once per "
            "size, as `variant [axis=size]`."
        )
    groups: dict[str, list[str]] = {}
    for v in run.variants:
        if v.dynamic_axes and not any(lv.shape for lv in v.levels):
            groups.setdefault(v.dynamic_axes, []).append(v.name)
    for how, names in groups.items():
        who = (
            "every variant"
            if len(names) == len([v for v in run.variants if v.dynamic_axes])
            else ", ".join(f"`{n}`" for n in names)
        )
        lines.append(
            f"- Dynamic input dims of {who}: {how}, at every level"
            + ("" if swept else "; `--shapes AXIS=SIZE,...` sweeps an axis")
            + "."
        )
    return lines


def _recommendation_md(rec: Recommendation, points: dict[str, list[Point]]) -> list[str]:
    lines = ["## Recommendation", ""]
    if rec.latency_budget_ms is not None:
        lines.append(
            f"- **Best under the {rec.budget_text}:** "
            + (rec.best_under_budget.describe() if rec.best_under_budget else "none")
            + (
                f" (p{rec.latency_percentile} {fmt(rec.budget_latency_ms, 2)} ms)"
                if rec.best_under_budget and rec.latency_percentile != 99
                else ""
            )
            + "."
        )
    else:
        lines.append(
            "- No latency budget given (pass `--latency-budget-ms`, and `--latency-percentile` for p50/p90/p95, "
            "for a best-under-budget pick)."
        )
    lines.append("- **Best peak throughput:** " + (rec.best_peak.describe() if rec.best_peak else "none") + ".")
    lines.append(
        f"- **Saturation (knee)**: the concurrency after which throughput grows < {KNEE_GAIN_PCT:g} % "
        "at every higher level while p99 keeps rising:"
    )
    lines += [
        f"  - `{n}`: "
        + (
            f"concurrency {k}"
            if k is not None
            else "no knee within the swept range"
            if len(curve(points[n])) > 1
            else "fewer than 2 levels measured"
        )
        for n, k in rec.knees.items()
    ]
    lines += [f"- {n}" for n in rec.notes]
    if rec.flagged:
        lines += [
            f"- **Ranked after the stable levels** ({UNSTABLE_MARK}: a flagged level wins only when it beats every "
            "stable one by more than its spread):"
        ] + [f"  - {f}" for f in rec.flagged]
    if rec.excluded:
        lines += ["- **Excluded from the recommendation:**"] + [f"  - {e}" for e in rec.excluded]
    return lines


def level_tables(points: dict[str, list[Point]], failed: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """Markdown lines: one table per (batch size, concurrency) comparing the variants.

    Columns: throughput (infer/s), p50/p90/p95/p99 (ms), server queue and compute infer
    (µs per request), avg server batch size, and when the run has them: host CPU (%, Triton's
    ``nv_cpu_utilization``: every process on the host), the server's own CPU (cores: the
    tritonserver process and its children) and GPU utilisation (%).
    Medians over trials, with [min–max] for throughput and p99 when a level has trials.

    Args:
        points: :func:`perf.analysis.run_points` of the run.
        failed: Names of failed variants (flagged, never bold as the level's best).
    """
    gpu = gpu_metric(points)
    cols = [
        ("throughput (infer/s)", THROUGHPUT, 1),
        ("p50 (ms)", "latency_p50_ms", 2),
        ("p90 (ms)", "latency_p90_ms", 2),
        ("p95 (ms)", "latency_p95_ms", 2),
        ("p99 (ms)", P99, 2),
        ("queue (µs)", "server_queue_us", 0),
        ("compute infer (µs)", "server_compute_infer_us", 0),
        ("avg server batch", "avg_server_batch_size", 2),
    ]
    utils = [(f"{label} ({unit})", m, d) for m, (label, unit, d, _) in CPU_MEASURES.items() if has_metric(points, m)]
    cols += utils
    if gpu:
        cols.append(("GPU util (%)", gpu, 1))
    keys = sorted({(p.batch_size, p.concurrency) for pts in points.values() for p in pts})
    multi_trial = any(p.trials > 1 for pts in points.values() for p in pts)
    lines = [
        "## Results per concurrency level",
        "",
        "Medians over trials"
        + (", with the [min–max] spread over trials for throughput and p99" if multi_trial else "")
        + f". **Bold**: highest throughput at the level. `—`: not measured on this host. "
        f"{UNSTABLE_MARK} unstable: perf_analyzer did not reach a stable measurement at this level; "
        f"{UNSTABLE_MARK} host busy: other processes used the host's CPU during it (kept, but treat with care)."
        + "".join(f" {label}: {CPU_MEASURES[m][3]}." for label, m, _ in utils),
    ]
    for bs, conc in keys:
        lines += ["", f"### Concurrency {conc}" + (f", batch size {bs}" if bs != 1 else ""), ""]
        here = [(n, p) for n, pts in points.items() for p in pts if (p.batch_size, p.concurrency) == (bs, conc)]
        top = max((p.value(THROUGHPUT) for n, p in here if p.ok and n not in failed), default=None)
        rows = []
        for name, p in here:
            if not p.ok:
                rows.append([f"`{name}`", f"failed: {'; '.join(p.errors)[:120]}"])
                continue
            cells = [fmt_spread(p, m, d) if m in (THROUGHPUT, P99) else fmt(p.get(m), d) for _, m, d in cols]
            if p.get(THROUGHPUT) == top and name not in failed:
                cells[0] = f"**{cells[0]}**"
            mark = ("" if p.status == "ok" else f" {UNSTABLE_MARK} {p.status}") + (
                " (variant failed later)" if name in failed else ""
            )
            rows.append([f"`{name}`{mark}", *cells])
        lines += table(["variant", *(c[0] for c in cols)], rows, name_then_numbers(1 + len(cols)))
    return lines


def request_rate_table(run: RunResult) -> list[str]:
    """Markdown lines for the request-rate levels (``--request-rates``), one row per trial:
    offered and achieved rate (requests/s), the share perf_analyzer sent late (%), the
    level's status (``not achieved`` when the achieved rate fell short of the offered one
    by more than the stability tolerance), throughput (infer/s), p50/p99 (ms), server queue
    and compute infer (µs). Empty when the run has none. They are not part of the
    concurrency analysis above (a fixed arrival rate is a different load model)."""
    rows = [(v.name, lv) for v in run.variants for lv in v.levels if lv.request_rate is not None]
    if not rows:
        return []
    body = []
    for name, lv in sorted(rows, key=lambda r: (r[0], r[1].batch_size, r[1].request_rate, r[1].trial)):
        if not lv.ok:
            body.append(
                [f"`{name}`", f"{lv.request_rate:g}", "—", "—", f"failed: {(lv.error or '')[:100]}", lv.batch_size, lv.trial]
            )
            continue
        late = fmt(lv.delayed_pct, 0) if lv.delayed_pct is not None else "≤ 1"
        status = lv.status if lv.status == "ok" else f"{UNSTABLE_MARK} {lv.status}"
        body.append(
            [
                f"`{name}`",
                f"{lv.request_rate:g}",
                fmt(lv.achieved_rate_per_s, 1),
                late,
                status,
                lv.batch_size,
                lv.trial,
                fmt(lv.throughput_infer_per_s, 1),
                fmt(lv.latency_p50_ms, 2),
                fmt(lv.latency_p99_ms, 2),
                fmt(lv.server_queue_us, 0),
                fmt(lv.server_compute_infer_us, 0),
            ]
        )
    headers = [
        "variant",
        "offered (req/s)",
        "achieved (req/s)",
        "sent late (%)",
        "status",
        "batch",
        "trial",
        "throughput (infer/s)",
        "p50 (ms)",
        "p99 (ms)",
        "queue (µs)",
        "compute infer (µs)",
    ]
    return ["", "## Request-rate levels", "", *table(headers, body, name_then_numbers(len(headers)))]


def write_report(
    run_dir: Path,
    latency_budget_ms: float | None = None,
    breakdown_concurrency: int | None = None,
    latency_percentile: int | None = None,
) -> Path:
    """Write ``report.md`` and the PNG plots into ``run_dir``.

    Args:
        run_dir: A run folder holding ``results.json``.
        latency_percentile: The client latency percentile the budget is on (50, 90, 95, 99;
            default: the run's ``latency_percentile`` setting, else 99).
        latency_budget_ms: Client latency budget in ms for the recommendation (default: the
            run's ``settings["latency_budget_ms"]`` if set, else none).
        breakdown_concurrency: Concurrency of the latency-breakdown plot (default: each
            variant's highest measured level).

    Returns:
        Path of ``report.md``.

    Raises:
        PerfError: no readable ``results.json``, a run without variants, or a bad budget.
    """
    run_dir = Path(run_dir)
    run = split_by_shape(load(run_dir))  # a shape sweep: one series per variant and shape
    if not run.variants:
        raise PerfError(
            f"run {run.run_id} in {run_dir} has no variants",
            hint="the sweep stopped before its first variant; run perf/run_sweep.sh again",
        )
    if latency_budget_ms is None:
        latency_budget_ms = run.settings.get("latency_budget_ms")
    rec = recommend(run, latency_budget_ms, latency_percentile)
    points = run_points(run)
    if importlib.util.find_spec("matplotlib") is not None:
        pngs = plots.write_plots(run, run_dir, breakdown_concurrency, latency_budget_ms, rec)
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
