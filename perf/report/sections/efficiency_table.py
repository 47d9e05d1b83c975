"""The "Serving efficiency" section's table, served vs in-process per level (:func:`efficiency_table`), what the
report shows of it (:func:`top_rows`), its cells and the reasons below it (:func:`not_evidence_lines`);
:mod:`perf.report.sections.efficiency` writes the section.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.wording import some_of
from perf.analysis.efficiency import EfficiencyRow, best_rows, faster_words
from perf.markdown import APPENDIX_FILE, LIST_LIMIT, TOP_N, capped, flag_mark, fmt, name_then_numbers, table, times
from perf.records.levels import HOST_BUSY


def ratio_text(ratio: float | None) -> str:
    """``0.75×`` (:func:`perf.markdown.times`: ``"1.2×"``, ``"0.0024×"``, never ``"1.00×"`` for 0.9996), ``—`` for None."""
    if ratio is None:
        return "—"
    return times(ratio)


def top_rows(rows: Sequence[EfficiencyRow], top_n: int = TOP_N) -> tuple[list[EfficiencyRow], list[EfficiencyRow], str]:
    """What the report's plot and table show (issue 18: a report readable at 200 variants; issue 26:
    at any ladder size). Up to ``top_n`` rows: every row in both, no sentence. More rows: the table
    has each variant at its highest served throughput — the ``top_n`` highest when there are more
    variants — with a sentence saying so and where every level is; the plot has every level of
    those variants."""
    if len(rows) <= top_n:
        return list(rows), list(rows), ""
    best = best_rows(rows)
    top = sorted(best, key=lambda n: -best[n].served_infer_per_s)[:top_n]
    n = len({r.variant for r in rows})
    note = (
        f"The {len(top)} variants with the highest served throughput, each at that level, of {n} with a baseline"
        if len(top) < n
        else "Each variant at its highest served throughput"
    ) + f" (the conclusion above uses them all; every level: [{APPENDIX_FILE}]({APPENDIX_FILE}))."
    return [r for r in rows if r.variant in top], [best[v] for v in top], note


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
                fmt(r.served_infer_per_s) + flag_mark(r.point.flags),
                fmt(r.in_process.throughput_infer_per_s if r.in_process else None) + in_process_mark(r),
                ratio_cell(r),
                fmt(r.compute_infer_us, 0),
                fmt(r.in_process_us, 0),
                overhead_cell(r),
                fmt(c["server_queue_us"], 0),
                fmt(sum(x for x in outside if x is not None) if any(x is not None for x in outside) else None, 0),
                r.in_process.how_text if r.in_process else "no in-process point",
            ]
        )
    return table(headers, body, [*name_then_numbers(len(headers) - 1), "left"])


def in_process_mark(r: EfficiencyRow) -> str:
    """The mark of the in-process figures a row uses: host busy when any point behind them was."""
    return flag_mark(HOST_BUSY) if r.in_process is not None and r.in_process.host_busy else ""


def ratio_cell(r: EfficiencyRow) -> str:
    """The ratio (host-busy mark); none where the served run beat in-process, naming on what (``faster_words``)."""
    if r.served_faster:
        return f"— ({faster_words([r])}: not evidence)"
    return ratio_text(r.ratio) + (flag_mark(HOST_BUSY) if r.note else "") + cut_words(r)


def cut_words(r: EfficiencyRow) -> str:
    """What a ratio on in-process points the time budget cut short carries (trial 12, F15: such a ratio
    looked like any other): ``" (in-process timed in 2 of 8 rounds: cut for time)"``, else ``""``."""
    if r.rounds_cut is None:
        return ""
    return f" (in-process timed in {r.rounds_cut[0]} of {r.rounds_cut[1]} rounds: cut for time)"


def overhead_cell(r: EfficiencyRow) -> str:
    """The overhead (µs, % of compute infer), "not significant" within the noise of both measurements."""
    if r.served_faster and (r.overhead_us or 0.0) < 0:
        return fmt(r.overhead_us, 0) + " (compute infer below in-process: not evidence)"
    text = fmt(r.overhead_us, 0) + (f" ({r.overhead_pct:+.0f} %)" if r.overhead_pct is not None else "")
    noise = f"; not significant (within ±{fmt(r.overhead_noise_us, 0)} µs of noise)"
    return text + (noise if r.overhead_significant is False else "")


def not_evidence_lines(rows: Sequence[EfficiencyRow], limit: int | None = LIST_LIMIT) -> list[str]:
    """Below the table: each reason a ratio is no evidence, with the rows it holds for (the first
    ``limit`` reasons, then how many more are in the appendix; ``None``: every one)."""
    why: dict[str, list[str]] = {}
    for r in rows:
        if r.note:
            why.setdefault(r.note, []).append(f"`{r.variant}` c={r.point.concurrency}")
    # a reason that names its levels itself (a host-busy served level) is not followed by them again (trial 27, T27-16)
    reasons = [note if all(n in note for n in names) else f"{note}: {some_of(names)}" for note, names in why.items()]
    lines = capped(reasons, limit) if limit is not None else [f"- {x}" for x in reasons]
    if any(r.overhead_significant is False for r in rows):
        lines.append(
            "- *not significant*: the overhead is within the two measurements' noise (the in-process points' spread "
            "over rounds plus the served level's spread over trials, else perf_analyzer's windows), whatever the ratio "
            "beside it."
        )
    return ["", *lines] if lines else []
