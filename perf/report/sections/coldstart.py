"""The report's cold-start section: one table row per variant and one written conclusion.

Every number is computed here from the recorded fields (:class:`perf.records.coldstart.ColdStart`
and the sweep's levels): a first request is compared with the sweep's steady-state p50 at
concurrency 1 at the same batch size and shape (perf_analyzer's median); where the sweep has
no such level the table says so and uses the latency the requests settled at instead
(:func:`perf.records.coldstart.settled_at`), and where they did not settle it gives no ratio, count or
warmup count (:data:`perf.report.sections.coldstart_table.NOT_SETTLED_NOTE`). Variants with and without warmup that differ in nothing else are compared
(load time added, first request saved). The conclusion has the report's four parts: what
was compared, the numbers, the mechanism (:mod:`perf.report.phrases`, family ``cold_start``), and
where it holds; it ends with the warmup count measured for ``builders build --warmup-count``.
"""

from __future__ import annotations

import dataclasses
import shlex
import statistics

from core.wording import count, of, sentence
from perf.analysis.stats.pairs import differing
from perf.markdown import APPENDIX_FILE, TOP_N, UNSTABLE_MARK, flag_mark, fmt, fmt_given, packed, times
from perf.records.coldstart import CLIENT_ALLOWANCE_MS, STEADY_RATIO, FirstRequests, ratio, steady_count
from perf.records.levels import FLAG_MEANINGS, HOST_BUSY
from perf.records.results import RunResult
from perf.report.phrases import Facts, say
from perf.report.sections.coldstart_table import (  # the table, its marks and the variants' entries
    NOT_SETTLED_NOTE,
    OWN_MARK,
    SETTLED_SHORT,
    SETTLED_WORDS,
    Entry,
    entries,
    size_label,
    table_lines,
    unsettled,
)
from perf.report.sections.servers import how_loaded, sessions_sentence

#: The run id of ``triton-perf coldstart``'s own records (no run named with ``--into``).
STANDALONE_RUN = "perf-coldstart"


@dataclasses.dataclass(frozen=True)
class WarmupPair:
    """A variant without warmup and its twin with warmup (nothing else differs)."""

    cold: Entry
    warm: Entry

    @property
    def load_added_s(self) -> float | None:
        """Load time the warmup adds (warm minus cold), s; ``None`` when either was not measured."""
        a, b = self.cold.cold.load_s, self.warm.cold.load_s
        return None if a is None or b is None else b - a

    @property
    def first_saved_ms(self) -> float | None:
        """First-request latency the warmup saves (cold minus warm), ms; ``None`` when either was
        not measured."""
        a, b = self.cold.cold.first_request, self.warm.cold.first_request
        if a is None or b is None or a.first_ms is None or b.first_ms is None:
            return None
        return a.first_ms - b.first_ms


def warmup_pairs(items: list[Entry]) -> list[WarmupPair]:
    """Every (no warmup, warmup) pair of measured variants whose parameters differ only in ``warmup``."""
    measured = [e for e in items if e.params is not None and e.cold.first_request is not None and not e.cold.not_measured]
    return [
        WarmupPair(a, b)
        for a in measured
        for b in measured
        if a.params and b.params and a.params.warmup is None and b.params.warmup and differing(a.params, b.params) == ("warmup",)
    ]


def measured_warmup_count(items: list[Entry], run_id: str | None = None) -> tuple[int, str] | None:
    """``(count, reason)`` for ``builders build --warmup-count``: the most requests a variant
    without warmup needed at any size before one within :data:`STEADY_RATIO` x its steady latency
    (:func:`steady_count`; at least 1, every request sent where one size never got steady, and the
    reason says so); ``None`` when no variant without warmup was measured, or when one of them never
    settled at a size without a sweep level there (:func:`unsettled`: its count is not known, and a count
    from the other sizes could be too low)."""
    if unsettled([e for e in items if e.cold.warmup is None and not e.cold.not_measured]):
        return None
    judged = [
        (n, e, f)
        for e in items
        if e.cold.warmup is None and not e.cold.not_measured
        for f in e.cold.first
        if (n := steady_count(f, e.levels)) is not None
    ]
    if not judged:
        return None
    n, e, f = max(judged, key=lambda j: j[0])
    where = f"in run {run_id}" if run_id and run_id != STANDALONE_RUN else "by triton-perf coldstart"
    at = _at(f)
    needed = (
        f"was not steady within the {n} requests sent at {at} (at least {n})"
        if n == len(f.latencies_ms)
        else f"needed {count(n, 'request')} at {at} before one"
    )
    reason = (
        f"measured {where}: {e.name} without warmup {needed} within {STEADY_RATIO:g}x its steady latency "
        f"({count(len({j[1].name for j in judged}), 'variant')} judged at {', '.join(sorted({_at(j[2]) for j in judged}))})"
    )
    return max(1, n), reason


def _at(f: FirstRequests) -> str:
    return f"batch {f.batch_size}" + (f" [{f.size_text}]" if f.shape else "")


def next_step(items: list[Entry], run_id: str | None = None) -> str | None:
    """The ``builders build`` flags that feed the measured warmup count back, or ``None``."""
    got = measured_warmup_count(items, run_id)
    if got is None:
        return None
    n, reason = got
    return f"--warmup-count {n} --warmup-count-reason {shlex.quote(reason)}"


def conclusion(run: RunResult, items: list[Entry]) -> str:
    """The written cold-start conclusion: comparison, numbers, mechanism, boundary and next step, packed into a
    short paragraph and bullets (:func:`perf.markdown.packed`: markdown lines joined by newlines; trial 19, T19-17: one
    line of up to 2,205 characters)."""
    server = run.environment.get("server") or {}
    measured = [e for e in items if e.cold.first_request is not None and not e.cold.not_measured]
    skipped = [e for e in items if e not in measured]
    sizes = sorted({size_label(f) for e in measured for f in e.cold.first}, key=lambda s: (len(s), s))
    sent = sorted({s for e in measured if (s := e.cold.unswept_sizes)})  # the --shape given (T16-11); not a swept size's (T19-18)
    parts = [
        f"**Cold start.** {count(len(items), 'variant')} {'was' if len(items) == 1 else 'were'} "
        + how_loaded(run, [e.cold.others_loaded for e in items], server.get("runtime", "?"))
        + f" and sent single requests right after the load, before any other traffic, at {', '.join(sizes) or 'no size'}"
        + (f" (inputs sized {' / '.join(sent)})" if sent else "")
        + "; "
        + (
            f"{own}, so each first request is compared with {SETTLED_SHORT} (marked {OWN_MARK})."
            if (own := _no_levels(run))
            else "each first request is compared with the sweep's steady p50 at concurrency 1 at that size "
            f"(else, marked {OWN_MARK}, with {SETTLED_SHORT})."
        )
    ]
    parts.append(_numbers(measured))
    parts += [_unsettled_words(measured)] if unsettled(measured) else []
    facts = _facts(measured)
    mechanism = say("cold_start", facts)
    if mechanism:
        parts.append(f"Why: {sentence(mechanism)}")
    env = run.environment
    gpus = ", ".join(g.get("name", "?") for g in env.get("gpus") or []) or "no GPU"
    bound = (
        f"This holds for a fresh load with no concurrent traffic on `{env.get('host', '?')}` ({env.get('cpu', '?')}, "
        f"{gpus}); 'steady' means within {STEADY_RATIO:g}× of the steady latency the ratios use"
    )
    if skipped:
        bound += f"; {count(len(skipped), 'variant')} not measured ({skipped[0].name}: {skipped[0].cold.why_not_measured})"
    parts.append(sentence(bound))
    parts += [sessions_sentence(run)] if len(run.sessions) > 1 else []
    step = next_step(items, run.run_id)
    if step:
        parts.append(f"To warm up what a variant will be sent, rebuild with `--warmup random` (or `zero`) and `{step}`.")
    return "\n".join(packed(parts))


def _unsettled_words(measured: list[Entry]) -> str:
    """The sizes that never settled, named with the requests sent, and what is not drawn from them."""
    gone = unsettled(measured)
    named = "; ".join(f"`{e.name}` {size_label(f)}: {f.not_settled}" for e, f in gone[:3]) + (
        f"; and {len(gone) - 3} more" if len(gone) > 3 else ""
    )
    return (
        f"At {count(len(gone), 'size')} the requests never settled ({named}): they were still warming up, or too "
        "noisy, when the sender stopped, so no ratio, count of requests before steady or warmup count is drawn from "
        "them (a sweep's steady level at that size, `--into RUN`, would be the reference)."
    )


def _first_ratios(e: Entry) -> tuple[float | None, list[tuple[float, FirstRequests]]]:
    first = e.cold.first_request
    r0 = ratio(first, e.levels)[0] if first is not None else None
    later = [(r, f) for f in e.cold.first if f is not first and (r := ratio(f, e.levels)[0]) is not None]
    return r0, later


def _cold(measured: list[Entry]) -> list[Entry]:
    """The variants without warmup (the cold start proper), else every measured one."""
    return [e for e in measured if not e.cold.warmup] or measured


def _numbers(measured: list[Entry]) -> str:
    if not measured:
        return "No variant answered a first request."
    loads = [e.cold.load_s for e in measured if e.cold.load_s is not None]
    text = f"Loads took {fmt(min(loads), 2)}–{fmt(max(loads), 2)} s." if loads else ""
    cold = _cold(measured)
    which = "without warmup " if len(cold) < len(measured) else ""
    firsts = [(r, e) for e in cold if (r := _first_ratios(e)[0]) is not None]
    if firsts:
        r, e = max(firsts, key=lambda x: x[0])
        fr = e.cold.first_request
        ms = fr.first_ms if fr else None
        mark = flag_mark(fr.flag) if fr else ""
        text += f" The first request at batch 1 was up to {times(r)} its steady latency (`{e.name}`: {fmt(ms, 1)} ms{mark})"
        if len(firsts) > 1:
            text += f"; the median over {len(firsts)} variants {which}is {times(statistics.median(x[0] for x in firsts))}"
        text += "."
    later = [(r, f, e) for e in cold for r, f in _first_ratios(e)[1]]
    if later:
        r, f, e = max(later, key=lambda x: x[0])
        text += (
            f" The first request at a size not sent before was up to {times(r)} its steady latency (`{e.name}`, {size_label(f)})."
        )
    pairs = warmup_pairs(measured)
    added = [a for p in pairs if (a := p.load_added_s) is not None]
    saved = [s for p in pairs if (s := p.first_saved_ms) is not None]
    if added and saved:
        busy_pairs = [p for p in pairs if HOST_BUSY in (_flag(p.cold), _flag(p.warm))]
        text += (
            f" With warmup ({count(len(pairs), 'pair')} differing only in it), load time changed by a median "
            f"{statistics.median(added):+.2f} s and the first request at batch 1 by {0.0 - statistics.median(saved):+.1f} ms"
            + (
                f" (not measured fairly: in {count(len(busy_pairs), 'pair')} a first request was sent while other processes "
                "used the host (host busy))"
                if busy_pairs
                else ""
            )
            + "."
        )
    elif not pairs:
        text += " The grid has no variants differing only in warmup, so warmup on vs off is not compared here."
    return (text + _busy_words(measured)).strip()


def _busy_words(measured: list[Entry]) -> str:
    """Whose first requests were sent on a busy host, counted as the table shows them: variants (its rows),
    at each size (trial 9: "4 sizes were sent" for 4 variants at one size, b1)."""
    busy = {e.name: [f for f in e.cold.first if f.flag == HOST_BUSY] for e in measured}
    firsts = [f for fs in busy.values() for f in fs]
    if not firsts:
        return ""
    sizes = {size_label(f): sum(1 for fs in busy.values() if any(size_label(f) == size_label(x) for x in fs)) for f in firsts}
    at = ", ".join(f"at {size}" + (f" for {n}" if len(sizes) > 1 else "") for size, n in sizes.items())
    most = max((f.host_busy_pct or 0.0) for f in firsts)
    return (
        f" The first requests of {of(sum(1 for fs in busy.values() if fs), len(measured), 'variant')} ({at}) were sent while "
        f"other processes used up to {fmt(most, 0)} % of one core (marked{flag_mark(HOST_BUSY)}): they and their ratios may be "
        "the host's, not the variant's."
    )


def _flag(e: Entry) -> str:
    """The mark status of ``e``'s very first request (``host busy`` when sent on a busy host)."""
    fr = e.cold.first_request
    return fr.flag if fr is not None else "ok"


def _facts(measured: list[Entry]) -> Facts:
    cold = _cold(measured)
    firsts = [r for e in cold if (r := _first_ratios(e)[0]) is not None]
    later = [r for e in cold for r, _f in _first_ratios(e)[1]]
    pairs = warmup_pairs(measured)
    added = [a for p in pairs if (a := p.load_added_s) is not None]
    saved = [s for p in pairs if (s := p.first_saved_ms) is not None]
    return Facts(
        first_ratio=statistics.median(firsts) if firsts else None,
        new_size_ratio=max(later) if later else None,
        warmup_load_added_s=statistics.median(added) if added else None,
        warmup_first_saved_ms=statistics.median(saved) if saved else None,
        warmup_unfair=any(HOST_BUSY in (_flag(p.cold), _flag(p.warm)) for p in pairs),
    )


def section(run: RunResult, limit: int = TOP_N) -> list[str]:
    """The report's ``## Cold start`` section (markdown lines); empty for a run without
    cold-start records (one written before they existed). With more than ``limit`` variants
    the table shows the ``limit`` slowest first requests (ratio at batch 1) and points to the
    appendix (:func:`appendix_lines`); the conclusion is always over every variant."""
    items = entries(run)
    if not items:
        return []
    shown = items
    if len(items) > limit:
        slowest = sorted(items, key=lambda e: -(_first_ratios(e)[0] or 0.0))[:limit]
        shown = [e for e in items if e in slowest]
    lines: list[str] = ["## Cold start", ""]
    lines += table_lines(shown, run)
    if len(shown) < len(items):
        lines += [
            "",
            f"The {limit} slowest first requests of {len(items)} variants; every variant: [{APPENDIX_FILE}]({APPENDIX_FILE}).",
        ]
    lines += _notes(lines, run)
    lines += ["", *conclusion(run, items).splitlines(), ""]  # one line a bullet: the report counts its lines
    return lines


def appendix_lines(run: RunResult) -> list[str]:
    """The appendix's cold-start table, every variant (empty without records)."""
    items = entries(run)
    if not items:
        return []
    lines = ["## Cold start, every variant", "", *table_lines(items, run)]
    return [*lines, *_notes(lines, run), ""]


def _no_levels(run: RunResult | None) -> str | None:
    """Why no ratio of ``run`` is to a sweep's p50, in words, or ``None`` where its levels give them: every
    ratio is then to the following requests' median, and the words say so instead of naming a sweep's p50.
    ``triton-perf coldstart`` without ``--into RUN`` named no run, which is not that no sweep measured the
    variants (trial 15, T15-7: "no sweep measured these variants" was said while two sweeps had); a run
    named may have measured no level of them (a sweep stopped before its first)."""
    if run is None or any(v.levels for v in run.variants):
        return None
    if run.run_id == STANDALONE_RUN:
        return "no run was named (`--into RUN` compares each first request with that run's steady p50 at concurrency 1)"
    return f"run {run.run_id} measured no level of these variants"


def _notes(lines: list[str], run: RunResult | None = None) -> list[str]:
    out = []
    if any(OWN_MARK in ln for ln in lines):
        why = _no_levels(run) or "the sweep measured no level at concurrency 1 at that size"
        out += ["", sentence(f"{OWN_MARK} {why}: compared with {SETTLED_WORDS}")]
    if any("steady not reached" in ln or "| not reached" in ln for ln in lines):
        out += ["", sentence(NOT_SETTLED_NOTE)]
    if any(UNSTABLE_MARK in ln for ln in lines):
        out += ["", f"{UNSTABLE_MARK} host busy: {FLAG_MEANINGS[HOST_BUSY]} while those requests were sent."]
    return [
        *out,
        "",
        f"'requests before steady': how many were sent before the first within {STEADY_RATIO:g}× the steady latency "
        f"its ratio uses (the sweep's p50, plus {fmt_given(CLIENT_ALLOWANCE_MS, 0)} ms for the other client, else {OWN_MARK} the "
        "latency its requests settled at), the most over the sizes; 0: the "
        "first request was already steady; 'none of N': every request sent was slower. The first requests are sent by "
        "Python's tritonclient, whose own time per request can be above perf_analyzer's: a ratio to the sweep's p50 "
        "and the count are upper bounds.",
    ]
