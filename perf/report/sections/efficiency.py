"""The report's "Serving efficiency" section: the in-process baseline, the efficiency table,
its plot and a written conclusion (:func:`efficiency_section`, called by
:func:`perf.report.write.write_report`). The numbers come from :mod:`perf.analysis.efficiency`; every
number in the text is computed from recorded fields.

The conclusion has the report's four parts (:mod:`perf.report.conclusions.written`): what was compared, the
numbers, the mechanism (where the time went: compute infer vs in-process, queue, client and
network), and the conditions it holds under (batch sizes, threads, host). Its explanatory
phrases are chosen by conditions on the numbers (:data:`PHRASES`), as in :mod:`perf.report.phrases`.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Sequence
from pathlib import Path

from core.wording import agree, count
from perf.analysis.efficiency import (
    SIZES_APART_HINT,
    EfficiencyRow,
    baseline_unusable,
    best_rows,
    efficiency_rows,
    other_shapes,
    sent_sizes,
    sizes_apart,
)
from perf.analysis.stats.points import run_points
from perf.markdown import TOP_N, flag_mark, fmt
from perf.plots.efficiency import write_plot
from perf.plots.styles import series_looks
from perf.records.levels import HOST_BUSY
from perf.records.results import RunResult
from perf.report.sections.baseline_unusable import unusable_lines
from perf.report.sections.efficiency_table import (
    cut_words,
    efficiency_table,
    in_process_mark,
    not_evidence_lines,
    ratio_text,
    top_rows,
)
from perf.report.sections.inprocess import baseline_lines
from perf.report.sections.said import cut_facts, own

log = logging.getLogger(__name__)

PLOT_FILE = "serving_efficiency.png"
#: Serving overhead share of compute infer (%) at or above which it dominates the execution.
OVERHEAD_DOMINATES_PCT = 50.0


@dataclasses.dataclass(frozen=True)
class OverheadFacts:
    """The numbers an overhead phrase explains: overhead share of compute infer (%), the
    ratio served ÷ in-process, the variant's instances, and whether the overhead is beyond the
    noise of both measurements (:attr:`perf.analysis.efficiency.EfficiencyRow.overhead_significant`;
    ``None``: the noise is not known). A phrase never names a share the noise covers as what
    dominates."""

    overhead_pct: float | None
    ratio: float | None
    instances: int
    significant: bool | None = None


@dataclasses.dataclass(frozen=True)
class Phrase:
    """One explanatory phrase: its key, the condition that selects it and its words."""

    key: str
    when: Callable[[OverheadFacts], bool]
    words: Callable[[OverheadFacts], str]


PHRASES: tuple[Phrase, ...] = (
    Phrase(
        "overhead_dominates",
        lambda f: f.overhead_pct is not None and f.overhead_pct >= OVERHEAD_DOMINATES_PCT and f.significant is not False,
        lambda f: f"the serving path's own per-execution work is {fmt(f.overhead_pct, 0)} % of compute infer: it dominates",
    ),
    Phrase(
        "compute_dominates",
        lambda f: f.overhead_pct is not None and 0 <= f.overhead_pct < OVERHEAD_DOMINATES_PCT and f.significant is not False,
        lambda f: f"the model's own computation dominates; the serving path adds {fmt(f.overhead_pct, 0)} % of compute infer",
    ),
    Phrase(
        "overhead_within_noise",
        lambda f: f.overhead_pct is not None and f.overhead_pct >= 0 and f.significant is False,
        lambda f: (
            f"the serving path's share, {fmt(f.overhead_pct, 0)} % of compute infer, is within the two measurements' "
            "noise (not significant): it cannot be said whether it or the model's own computation dominates"
        ),
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


def say(facts: OverheadFacts) -> str:
    """The phrases whose condition holds, joined with ``; ``."""
    return "; ".join(p.words(facts) for p in PHRASES if p.when(facts))


def efficiency_section(run: RunResult, out: Path, run_dir: Path, unusable: Sequence[str] | None = None) -> list[str]:
    """The section's markdown lines (and ``serving_efficiency.png`` in ``out`` where
    matplotlib is installed).

    Args:
        run: The run.
        out: The report's folder (the run folder, or a what-if view's folder in it).
        run_dir: The run folder: the one the commands it names act on (never a what-if folder,
            which holds no ``results.json``).
        unusable: Its :func:`perf.report.sections.baseline_unusable.unusable_lines` (computed when ``None``):
            report.md keeps them where the section moves to the appendix.
    """
    lines = ["## Serving efficiency", ""]
    if run.baseline is None:
        elsewhere = [s.url for s in run.servers if s.host != "this host"]
        cut = next(
            (c.reason if own(run) else cut_facts(c) for c in (run.rounds.cuts if run.rounds else []) if c.kind == "baseline"),
            None,
        )
        then = f"`triton-perf baseline {run_dir}` measures it and `triton-perf report {run_dir}` then shows this section"
        why = (
            f"the servers ran on another host ({', '.join(elsewhere)}): an in-process run here would measure this host"
            if elsewhere
            else apart
            if (apart := sizes_apart(sent_sizes(run)))
            else f"the time budget: {cut}; "
            + (f"`triton-perf report {run_dir}` then shows this section" if "`triton-perf baseline " in cut else then)
            if cut  # a skip that names the command already (trial 20, T20-2) is not followed by it again
            else f"swept with `--no-baseline`, or before it existed: {then}"
        )
        return lines + [f"No in-process baseline in this run ({why}).", ""]
    rows = efficiency_rows(run)
    lines += [*(unusable_lines(run, run_dir, rows) if unusable is None else unusable), *conclusion(run, rows), ""]
    shown, table_rows, note = top_rows(rows)
    failed = {v.name for v in run.variants if v.status == "failed"}
    looks = series_looks(run_points(run), failed, run)  # the other plots' colours
    # baseline_unusable on every row: the plot draws some of them (top_rows)
    if write_plot(shown, out / PLOT_FILE, looks, baseline_unusable(rows)) is not None:
        lines += [f"![Serving efficiency]({PLOT_FILE})", ""]
    lines += ["### Served vs in-process, per level", "", *([note, ""] if note else []), *efficiency_table(table_rows)]
    lines += [*not_evidence_lines(table_rows), "", *not_compared_lines(run)]
    lines += ["### In-process baseline", ""]
    if len(run.baseline.points) > TOP_N:  # the table of every point: the appendix (efficiency_details)
        return [*lines, *baseline_lines(run.baseline, table_rows=False), ""]
    return [*lines, *baseline_lines(run.baseline), ""]


def not_compared_lines(run: RunResult) -> list[str]:
    """The levels no in-process point compares with (a mixed-size workload, a size the baseline did not time), said
    under the section's table and the appendix's every level (:func:`efficiency_details`: the one copy of it
    there when the section's table moved, trial 25, T25-16)."""
    left_out = other_shapes(run)
    if not left_out:
        return []
    return [
        "Not compared (a mixed-size workload: each request holds one of many drawn sizes, and an in-process call "
        "runs one; or a size the baseline did not time): " + ", ".join(left_out) + ".",
        "",
    ]


def efficiency_details(run: RunResult) -> list[str]:
    """The appendix's serving-efficiency tables: every variant at every level, and every in-process
    point (empty without a baseline)."""
    if run.baseline is None:
        return []
    rows = efficiency_rows(run)
    return [
        "## Serving efficiency, every level",
        "",
        *efficiency_table(rows),
        *not_evidence_lines(rows, None),
        "",
        *not_compared_lines(run),
        "## In-process baseline, every point",
        "",
        *baseline_lines(run.baseline),
        "",
    ]


def conclusion(run: RunResult, rows: Sequence[EfficiencyRow]) -> list[str]:
    """The four-part conclusion (see the module docstring)."""
    best = best_rows(rows)
    if not best:
        apart = sizes_apart(sent_sizes(run))
        if apart:  # the input size, not the batch (trial 12, F23)
            return [f"No ratio to give: {apart} ({SIZES_APART_HINT})."]
        return ["No variant has both a measured level and an in-process point at the batch it formed: no ratio to give."]
    top = max(best.values(), key=lambda r: r.served_infer_per_s)
    assert top.in_process is not None and top.ratio is not None
    k = top.target.key
    ratios = sorted((r for r in best.values() if r.evidence), key=lambda r: r.ratio or 0.0)
    void = [r for r in best.values() if not r.evidence]
    lines = [
        f"**What was compared.** Each variant's served throughput against the same {k.format} artifact run in this "
        "process without a server (the runner the python-backend model calls), with one served instance's "
        "intra-op threads, at the input size its clients sent and the batch size the server formed (avg inferences "
        "per execution; in-process time measured at that batch, else interpolated between the measured batches "
        "around it).",
        "",
        f"**The numbers.** The highest served throughput, `{top.variant}` at concurrency {top.point.concurrency}, is "
        f"{fmt(top.served_infer_per_s)} infer/s{flag_mark(top.point.flags)} in batches of {fmt(top.server_batch, 2)}, "
        f"against the in-process {fmt(top.in_process.throughput_infer_per_s)} infer/s{in_process_mark(top)} at that batch ({top.in_process.how_text}, "
        f"{k.threads or 'default'} threads): "
        + (
            f"{ratio_text(top.ratio)}{flag_mark(HOST_BUSY) if top.note else ''}{cut_words(top)}"
            if not top.served_faster
            else "no ratio"
        )
        + (f" ({top.note})" if top.note else "")
        + "."
        + _range(ratios, void),
        "",
        _mechanism(top),
        "",
        _boundary(run, rows, top),
    ]
    return lines


def _range(ratios: Sequence[EfficiencyRow], void: Sequence[EfficiencyRow]) -> str:
    """The ratios over the variants that are evidence, and how many are not."""
    text = ""
    if len(ratios) > 1:
        text += (
            f" Over the variants, at each one's highest throughput, served ÷ in-process ranges from "
            f"{ratio_text(ratios[0].ratio)} (`{ratios[0].variant}`) to {ratio_text(ratios[-1].ratio)} (`{ratios[-1].variant}`)"
            + (" where measured fairly." if void else ".")
        )
    if void:
        text += (
            f" {count(len(void), 'variant')} {agree(len(void), 'has', 'have')} no ratio that is evidence at "
            f"{agree(len(void), 'its', 'their')} highest throughput (below the table: why)."
        )
    return text


def _mechanism(r: EfficiencyRow) -> str:
    c = r.components
    why = say(OverheadFacts(r.overhead_pct, r.ratio, r.target.instances, r.overhead_significant))
    outside = sum(v for f in ("client_send_us", "network_server_us", "client_recv_us") if (v := c[f]) is not None)
    return (
        f"**Why.** Per request at that level, compute infer took {fmt(r.compute_infer_us, 0)} µs{flag_mark(r.point.flags)} "
        f"against {fmt(r.in_process_us, 0)} µs{in_process_mark(r)} for the same batch in-process: {fmt(r.overhead_us, 0)} µs of serving overhead "
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
    cpus, threads = env.get("cpu_count"), top.target.key.threads
    text += (
        f" On this host ({count(cpus, 'core') if isinstance(cpus, int) else '? cores'}, "
        f"{count(top.target.instances, 'instance')} of {count(threads, 'thread') if threads else 'default threads'}); "
        "the in-process run ran after the server stopped, without perf_analyzer beside it, the served one shared the host "
        "with perf_analyzer; " + _loads(top) + " Another model size, thread count or host moves the ratio."
    )
    return text


def _loads(r: EfficiencyRow) -> str:
    """Other processes' load on both sides of ``r``, as sampled."""
    served = r.point.get("host_busy_pct")
    inproc = r.in_process.host_busy_pct if r.in_process else None
    return (
        f"other processes used {fmt(served, 0) + ' %' if served is not None else 'an unsampled share'} of one core during the "
        f"served level and {fmt(inproc, 0) + ' %' if inproc is not None else 'an unsampled share'} during the in-process points."
    )
