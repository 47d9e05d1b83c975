"""The cold-start table: one row per variant (:func:`table_lines`), the marks its ratios carry and the words
under it, the variants of a run with a cold start (:func:`entries`) and the sizes that have no steady reference
(:func:`unsettled`). The section's conclusion (:mod:`perf.report.sections.coldstart`) uses the same.
"""

from __future__ import annotations

import dataclasses

from builders.config.variants import Variant
from perf.analysis.stats.pairs import variant_of
from perf.markdown import Align, errors_text, flag_mark, fmt, table, times
from perf.records.coldstart import SETTLE_GROUP, SETTLE_GROUPS, SETTLE_PCT, ColdStart, FirstRequests, ratio, steady_count
from perf.records.levels import LevelResult
from perf.records.results import RunResult
from perf.report.sections.servers import session_words

#: Marks a ratio to the latency the requests settled at (the sweep measured no level at that size).
OWN_MARK = "‡"
#: What a ratio marked :data:`OWN_MARK` divides by, in short (:data:`SETTLED_WORDS` says the rule).
SETTLED_SHORT = "the latency its requests settled at"
#: What a ratio marked :data:`OWN_MARK` divides by, in words.
SETTLED_WORDS = (
    f"{SETTLED_SHORT} (the median of the first {SETTLE_GROUPS * SETTLE_GROUP} in a row whose "
    f"{SETTLE_GROUPS} medians of {SETTLE_GROUP} were each within {SETTLE_PCT:g} % of their mean: perf_analyzer's "
    "stability rule)"
)
#: Why requests that did not settle give no number (trial 16, T16-11: a "steady" of requests still warming up
#: understated the ratio ~100x and advised --warmup-count 2).
NOT_SETTLED_NOTE = (
    "'steady not reached within N requests': the requests at that size were still warming up (or too noisy to "
    "settle) when the sender stopped, and no level of a run named with --into gives a steady latency there, so no "
    "ratio, no count and no warmup count is drawn from them"
)


@dataclasses.dataclass
class Entry:
    """One variant's cold start with every level the sweep measured on it (all its shapes)."""

    name: str
    cold: ColdStart
    params: Variant | None
    levels: list[LevelResult]


def entries(run: RunResult) -> list[Entry]:
    """The variants of ``run`` with a cold-start record, once each (a report that splits a
    variant into one series per swept shape gives its levels back to it), in run order."""
    out: dict[str, Entry] = {}
    for v in run.variants:
        if v.cold_start is None:
            continue
        name = v.cold_start.variant
        if name not in out:
            out[name] = Entry(name, v.cold_start, variant_of(v), [])
        out[name].levels += v.levels
    return list(out.values())


def _count_text(e: Entry) -> str:
    """The table's count: the most over the sizes; ``none of 12`` where a size never got steady."""
    counts = [(n, f) for f in e.cold.first if (n := steady_count(f, e.levels)) is not None]
    unsettled = [f for f in e.cold.first if f.latencies_ms and steady_count(f, e.levels) is None]
    if unsettled:  # the most over the sizes is not known where one size has no steady reference
        return "not reached" + (f" at {size_label(unsettled[0])}" if len(e.cold.first) > 1 else "")
    if not counts:
        return "—"
    n, f = max(counts, key=lambda x: x[0])
    return f.never_steady if n == len(f.latencies_ms) else str(n)


def _ratio_text(fr: FirstRequests, levels: list[LevelResult]) -> str:
    if fr.error:
        return f"failed: {errors_text(fr.error)}"
    r, from_level = ratio(fr, levels)
    if r is None and fr.latencies_ms:
        return fr.not_settled
    return "—" if r is None else times(r) + ("" if from_level else OWN_MARK)


def size_label(fr: FirstRequests) -> str:
    """A size in the table's and the conclusion's words: ``"b8"``, ``"b1 [seq=64]"``."""
    return f"b{fr.batch_size}" + (f" [{fr.size_text}]" if fr.shape else "")


def table_lines(items: list[Entry], run: RunResult | None = None) -> list[str]:
    """The cold-start table (markdown lines), one row per variant; in a ``run`` of several
    sessions a column says which session each cold start is from (:func:`session_words`)."""
    session = (lambda c: [session_words(run, c.session) or "-"]) if run is not None and len(run.sessions) > 1 else None
    headers = [
        "variant",
        "warmup",
        "load (s)",
        "load in server log (s)",
        "first request, batch 1 (ms)",
        "vs steady p50",
        "first request at later sizes vs steady",
        "requests before steady",
    ]
    rows: list[list[str]] = []
    sized = any(e.cold.first_sent for e in items)  # the sizes sent (--shape, the build's opt, a swept size): T16-11, T19-18
    for e in items:
        c = e.cold
        load = [
            fmt(c.load_s, 2),
            fmt(c.load_log_s, 2) + (f" (instances {fmt(c.instances_log_s, 2)})" if c.instances_log_s else ""),
        ]
        head = [
            f"`{e.name}`",
            *(session(c) if session else []),
            c.warmup or "off",
            *([c.first_sent or "-"] if sized else []),
            *load,
        ]
        first = c.first_request
        if c.not_measured or first is None:
            rows.append([*head, c.why_not_measured or ""])
            continue
        later = (
            "; ".join(
                f"{size_label(f)} {_ratio_text(f, e.levels)}{flag_mark(f.flag, words=False)}" for f in c.first if f is not first
            )
            or "(no other size swept)"
        )
        first_ms = fmt(first.first_ms, 1) + flag_mark(first.flag)
        rows.append([*head, first_ms, _ratio_text(first, e.levels), later, _count_text(e)])
    align: list[Align] = ["left", "left", "right", "right", "right", "right", "left", "right"]
    if sized:
        headers.insert(2, "inputs sized")
        align.insert(2, "left")
    if session:
        headers.insert(1, "session")
        align.insert(1, "left")
    return table(headers, rows, align)


def unsettled(items: list[Entry]) -> list[tuple[Entry, FirstRequests]]:
    """The sizes whose requests have no steady reference: answered, no sweep level there, and never settled
    (:attr:`perf.records.coldstart.FirstRequests.not_settled`); no ratio, count or warmup count comes from them."""
    return [(e, f) for e in items for f in e.cold.first if f.latencies_ms and steady_count(f, e.levels) is None]
