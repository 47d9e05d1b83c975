"""The report's "Serving efficiency" section: the in-process baseline, the efficiency table,
its plot and a written conclusion (:func:`efficiency_section`, called by
:func:`perf.report.write.write_report`). The numbers come from :mod:`perf.analysis.efficiency`; every
number in the text is computed from recorded fields.

The conclusion has the report's four parts (:mod:`perf.report.conclusions`): what was compared, the
numbers, the mechanism (where the time went: compute infer vs in-process, queue, client and
network), and the conditions it holds under (batch sizes, threads, host). Its explanatory
phrases are chosen by conditions on the numbers (:data:`PHRASES`), as in :mod:`perf.report.phrases`.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Sequence
from pathlib import Path

from perf.analysis.efficiency import COMPONENTS, EfficiencyRow, best_rows, efficiency_rows, other_shapes
from perf.markdown import TOP_N, Align, fmt, name_then_numbers, table
from perf.records.baseline import BaselineResult
from perf.records.results import RunResult

log = logging.getLogger(__name__)

PLOT_FILE = "serving_efficiency.png"
#: Serving overhead share of compute infer (%) at or above which it dominates the execution.
OVERHEAD_DOMINATES_PCT = 50.0


@dataclasses.dataclass(frozen=True)
class OverheadFacts:
    """The numbers an overhead phrase explains: overhead share of compute infer (%), the
    ratio served ÷ in-process, and the variant's instances."""

    overhead_pct: float | None
    ratio: float | None
    instances: int


@dataclasses.dataclass(frozen=True)
class Phrase:
    """One explanatory phrase: its key, the condition that selects it and its words."""

    key: str
    when: Callable[[OverheadFacts], bool]
    words: Callable[[OverheadFacts], str]


PHRASES: tuple[Phrase, ...] = (
    Phrase(
        "overhead_dominates",
        lambda f: f.overhead_pct is not None and f.overhead_pct >= OVERHEAD_DOMINATES_PCT,
        lambda f: f"the serving path's own per-execution work is {fmt(f.overhead_pct, 0)} % of compute infer: it dominates",
    ),
    Phrase(
        "compute_dominates",
        lambda f: f.overhead_pct is not None and 0 <= f.overhead_pct < OVERHEAD_DOMINATES_PCT,
        lambda f: f"the model's own computation dominates; the serving path adds {fmt(f.overhead_pct, 0)} % of compute infer",
    ),
    Phrase(
        "served_faster",
        lambda f: f.overhead_pct is not None and f.overhead_pct < 0,
        lambda f: (
            "the served execution took less time than the same call in-process, which a serving path cannot do "
            "by itself: the host's load (or another thread count) moved one of the two measurements, so this "
            "ratio is not evidence of efficiency; measure both again on a quiet host"
        ),
    ),
    Phrase(
        "parallel_instances",
        lambda f: f.instances > 1 and f.ratio is not None and f.ratio > 1,
        lambda f: f"its {f.instances} instances execute batches at the same time, so it exceeds one instance run alone",
    ),
)


def ratio_text(ratio: float | None) -> str:
    """``0.75×`` (two decimals; two significant digits below 0.1, ``0.0024×``), ``—`` for None."""
    if ratio is None:
        return "—"
    return f"{ratio:.2f}×" if ratio >= 0.1 else f"{ratio:.2g}×"


def say(facts: OverheadFacts) -> str:
    """The phrases whose condition holds, joined with ``; ``."""
    return "; ".join(p.words(facts) for p in PHRASES if p.when(facts))


def efficiency_section(run: RunResult, run_dir: Path) -> list[str]:
    """The section's markdown lines (and ``serving_efficiency.png`` in ``run_dir`` where
    matplotlib is installed)."""
    lines = ["## Serving efficiency", ""]
    if run.baseline is None:
        elsewhere = [s.url for s in run.servers if s.host != "this host"]
        why = (
            f"the servers ran on another host ({', '.join(elsewhere)}): an in-process run here would measure this host"
            if elsewhere
            else f"swept with `--no-baseline`, or before it existed: `triton-perf baseline {run_dir}` measures it and "
            f"`triton-perf report {run_dir}` then shows this section"
        )
        return lines + [f"No in-process baseline in this run ({why}).", ""]
    rows = efficiency_rows(run)
    lines += [*conclusion(run, rows), ""]
    shown, table_rows, note = top_rows(rows)
    png = write_plot(shown, run_dir / PLOT_FILE)
    if png is not None:
        lines += [f"![Serving efficiency]({png.name})", ""]
    lines += ["### Served vs in-process, per level", "", *([note, ""] if note else []), *efficiency_table(table_rows), ""]
    left_out = other_shapes(run)
    if left_out:
        lines += [
            "Not compared (swept at another shape than the baseline's reference inputs): " + ", ".join(left_out) + ".",
            "",
        ]
    lines += ["### In-process baseline", "", *baseline_lines(run.baseline), ""]
    return lines


def top_rows(rows: Sequence[EfficiencyRow], top_n: int = TOP_N) -> tuple[list[EfficiencyRow], list[EfficiencyRow], str]:
    """What a large run's plot and table show (issue 18: a report readable at 200 variants):
    with more than ``top_n`` variants, the plot has the ``top_n`` with the highest served
    throughput (every level) and the table each of them at that level, with a sentence
    saying so; else every row in both (and no sentence)."""
    best = best_rows(rows)
    if len({r.variant for r in rows}) <= top_n:
        return list(rows), list(rows), ""
    top = sorted(best, key=lambda n: -best[n].served_infer_per_s)[:top_n]
    note = (
        f"The {len(top)} variants with the highest served throughput, each at that level, of "
        f"{len({r.variant for r in rows})} with a baseline (the conclusion above uses them all)."
    )
    return [r for r in rows if r.variant in top], [best[n] for n in top], note


def efficiency_table(rows: Sequence[EfficiencyRow]) -> list[str]:
    """One row per variant and level: batch formed, served and in-process infer/s, the ratio,
    compute infer vs in-process time, overhead, and the rest of the request's time."""
    if not rows:
        return ["(no variant has both a measured level and an in-process baseline)"]
    headers = [
        "variant",
        "c",
        "server batch",
        "served infer/s",
        "in-process infer/s",
        "served ÷ in-process",
        "compute infer µs",
        "in-process µs",
        "overhead µs",
        "queue µs",
        "client + network µs",
        "in-process at",
    ]
    body = []
    for r in rows:
        c = r.components
        outside = [c[f] for f in ("client_send_us", "network_server_us", "client_recv_us")]
        body.append(
            [
                r.variant,
                r.point.concurrency if r.point.batch_size == 1 else f"{r.point.concurrency} (b={r.point.batch_size})",
                fmt(r.server_batch, 2),
                fmt(r.served_infer_per_s),
                fmt(r.in_process.throughput_infer_per_s if r.in_process else None),
                ratio_text(r.ratio),
                fmt(r.compute_infer_us, 0),
                fmt(r.in_process_us, 0),
                fmt(r.overhead_us, 0) + (f" ({r.overhead_pct:+.0f} %)" if r.overhead_pct is not None else ""),
                fmt(c["server_queue_us"], 0),
                fmt(sum(x for x in outside if x is not None) if any(x is not None for x in outside) else None, 0),
                r.in_process.how_text if r.in_process else "no in-process point",
            ]
        )
    return table(headers, body, [*name_then_numbers(len(headers) - 1), "left"])


def baseline_lines(baseline: BaselineResult) -> list[str]:
    """The settings in one paragraph, then one row per in-process point (a point not run
    says why in its status cell)."""
    s = baseline.settings
    versions = ", ".join(f"{k} {v}" for k, v in s.versions.items() if v)
    lines = [
        f"Timed with {s.timer}; warm-up ≥ {s.warmup_runs} calls and {s.warmup_s:g} s, then {s.min_run_time_s:g} s "
        f"of blocks and {s.min_run_time_s:g} s (≤ {s.max_runs}) of single calls per point. Inputs: {s.inputs}. "
        f"Threads: {s.threads_rule}. Versions: {versions}. Measured {baseline.created}.",
        "",
    ]
    headers = [
        "model",
        "format",
        "precision",
        "device",
        "threads",
        "batch",
        "p50 ms",
        "p99 ms",
        "median ms",
        "spread %",
        "infer/s",
        "status",
    ]
    body = [
        [
            p.key.model,
            p.key.format,
            p.key.precision,
            p.key.device,
            p.key.threads or "default",
            p.batch_size,
            fmt(p.latency_p50_ms, 3),
            fmt(p.latency_p99_ms, 3),
            fmt(p.latency_median_ms, 3),
            fmt(p.spread_pct),
            fmt(p.throughput_infer_per_s),
            p.status if p.status == "ok" else f"{p.status}: {p.reason}",
        ]
        for p in baseline.points
    ]
    left: list[Align] = ["left"]
    right: list[Align] = ["right"]
    align = left * 4 + right * 7 + left
    lines += table(headers, body, align)
    lines += [f"- {n}" for n in baseline.notes]
    return lines


def conclusion(run: RunResult, rows: Sequence[EfficiencyRow]) -> list[str]:
    """The four-part conclusion (see the module docstring)."""
    best = best_rows(rows)
    if not best:
        return ["No variant has both a measured level and an in-process point at the batch it formed: no ratio to give."]
    top = max(best.values(), key=lambda r: r.served_infer_per_s)
    assert top.in_process is not None and top.ratio is not None
    k = top.target.key
    ratios = sorted(best.values(), key=lambda r: r.ratio or 0.0)
    lines = [
        f"**What was compared.** Each variant's served throughput against the same {k.format} artifact run in this "
        "process without a server (the runner the python-backend model calls), with one served instance's "
        "intra-op threads, at the batch size the server formed (avg inferences per execution; in-process time "
        "measured at that batch, else interpolated between the measured batches around it).",
        "",
        f"**The numbers.** The highest served throughput, `{top.variant}` at concurrency {top.point.concurrency}, is "
        f"{fmt(top.served_infer_per_s)} infer/s in batches of {fmt(top.server_batch, 2)}: {ratio_text(top.ratio)} the "
        f"in-process {fmt(top.in_process.throughput_infer_per_s)} infer/s at that batch ({top.in_process.how_text}, "
        f"{k.threads or 'default'} threads). Over the variants, at each one's highest throughput, served ÷ in-process "
        f"ranges from {ratio_text(ratios[0].ratio)} (`{ratios[0].variant}`) to {ratio_text(ratios[-1].ratio)} (`{ratios[-1].variant}`).",
        "",
        _mechanism(top),
        "",
        _boundary(run, rows, top),
    ]
    return lines


def _mechanism(r: EfficiencyRow) -> str:
    c = r.components
    why = say(OverheadFacts(r.overhead_pct, r.ratio, r.target.instances))
    outside = sum(v for f in ("client_send_us", "network_server_us", "client_recv_us") if (v := c[f]) is not None)
    return (
        f"**Why.** Per request at that level, compute infer took {fmt(r.compute_infer_us, 0)} µs against "
        f"{fmt(r.in_process_us, 0)} µs for the same batch in-process: {fmt(r.overhead_us, 0)} µs of serving overhead "
        "(python-backend IPC, tensor copies and conversions, scheduling)"
        + (f"; {why}" if why else "")
        + f". Requests also waited {fmt(c['server_queue_us'], 0)} µs in the server queue and spent "
        f"{fmt(outside, 0)} µs in the client and on the network and protocol."
    )


def _boundary(run: RunResult, rows: Sequence[EfficiencyRow], top: EfficiencyRow) -> str:
    same = [r for r in rows if r.variant == top.variant and r.overhead_pct is not None and r.server_batch]
    env = run.environment
    text = "**When this holds.**"
    lo = min(same, key=lambda r: r.server_batch or 0.0, default=None)
    hi = max(same, key=lambda r: r.server_batch or 0.0, default=None)
    if lo is not None and hi is not None and fmt(lo.server_batch, 2) != fmt(hi.server_batch, 2):
        text += (
            f" For `{top.variant}` the overhead is {fmt(lo.overhead_us, 0)} µs ({lo.overhead_pct:+.0f} % of compute "
            f"infer) in batches of {fmt(lo.server_batch, 2)} and {fmt(hi.overhead_us, 0)} µs ({hi.overhead_pct:+.0f} %) "
            f"in batches of {fmt(hi.server_batch, 2)}."
        )
    text += (
        f" On this host ({env.get('cpu_count', '?')} cores, {top.target.instances} instance(s) of "
        f"{top.target.key.threads or 'default'} threads); the in-process run ran after the server stopped, without "
        "perf_analyzer beside it, the served one shared the host with perf_analyzer; other processes' load was not "
        "checked for the in-process run. Another model size, thread count or host moves the ratio."
    )
    return text


def write_plot(rows: Sequence[EfficiencyRow], path: Path) -> Path | None:
    """Two panels: served ÷ in-process vs concurrency per variant; and per variant, at its
    highest served throughput, where a request's time went (stacked µs; compute infer split
    into the in-process time and the serving overhead). ``None`` without rows or matplotlib."""
    best = best_rows(rows)
    if not best:
        return None
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log.warning("matplotlib is not installed: no serving-efficiency plot")
        return None
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 0.5 * len(best) + 4.5))
    for name in best:
        pts = [r for r in rows if r.variant == name and r.ratio is not None and r.point.batch_size == 1]
        if pts:
            ax1.plot([r.point.concurrency for r in pts], [r.ratio for r in pts], marker="o", label=name)
    ax1.axhline(1.0, color="grey", linestyle=":", linewidth=1)
    ax1.set_xscale("log", base=2)
    ax1.set_xlabel("concurrency")
    ax1.set_ylabel("served ÷ in-process throughput")
    ax1.set_title("Serving efficiency (at the batch the server formed)")
    ax1.legend(fontsize=7)
    segments = [
        ("client_send_us", "client send"),
        ("network_server_us", "network + protocol"),
        ("server_queue_us", "server queue"),
        ("server_compute_input_us", "compute input"),
        ("in_process", "compute: in-process time"),
        ("overhead", "compute: serving overhead"),
        ("server_compute_output_us", "compute output"),
        ("client_recv_us", "client recv"),
    ]
    names = list(best)
    left = [0.0] * len(names)
    for field, label in segments:
        widths = [_segment(best[n], field) for n in names]
        ax2.barh(names, widths, left=left, label=label)
        left = [a + b for a, b in zip(left, widths)]
    ax2.set_xlabel("µs per request (at each variant's highest throughput)")
    ax2.set_title("Where a request's time went")
    ax2.invert_yaxis()
    ax2.tick_params(axis="y", labelsize=7)
    ax2.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _segment(r: EfficiencyRow, field: str) -> float:
    """A segment of the stacked bar (µs): a perf_analyzer component, or compute infer split
    into in-process time and overhead (a negative overhead draws compute infer whole as in-process)."""
    if field == "in_process":
        return min(r.in_process_us or 0.0, r.compute_infer_us or 0.0)
    if field == "overhead":
        return max(r.overhead_us or 0.0, 0.0)
    assert field in dict(COMPONENTS)
    return r.components.get(field) or 0.0
