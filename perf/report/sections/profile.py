"""The report's sections for the profiler traces and the precision study (markdown lines).

Every number comes from the run's :class:`~perf.records.profile.ProfileRecord`; a row the
host did not run says so with its reason (never a number of 0).
"""

from __future__ import annotations

from collections.abc import Sequence

from core.wording import sentence
from perf.analysis.stats.paired import RULE, p_words, paired
from perf.markdown import APPENDIX_FILE, Align, flag_mark, fmt, ratio_span, table, times
from perf.records.load import HOST_BUSY
from perf.records.profile import NOT_DISTINGUISHABLE, UNFAIR, UNFAIR_SPREAD, PrecisionRow, ProfileRecord, TraceRecord, too_wide
from perf.report.layout import Part

#: Operators per trace named in report.md (the appendix has each trace's top-10 table).
TRACE_OPERATORS = 3
#: What the traces and the precision study ran, where the sizes they ran at come from.
RAN_ON = (
    "the build's reference inputs, at the largest batch the server formed for the variant at any input size (else 1); "
    "the sweep's levels may have sent other sizes"
)


def ran_at(shape: str | None, batch: int) -> str:
    """The input size and batch a trace or a precision row ran at, as the in-process baseline words a point's
    (its ``inputs`` and ``batch``): ``"input size seq=32, batch 8"``; ``"batch 8"`` without a size (no dynamic
    axes, or a record from before)."""
    return (f"input size {shape}, " if shape else "") + f"batch {batch}"


def profile_section(profile: ProfileRecord | None, up: str = "", operators: int | None = TRACE_OPERATORS) -> list[str]:
    """The traces (links, each with its top ``operators`` in one line: report.md; ``None``: the
    top-10 tables, as the terminal shows them) and the precision table; empty without either.
    Trace links are relative to the run folder, prefixed with ``up`` (``"../"`` from a what-if folder)."""
    if profile is None:
        return []
    return trace_lines(profile.traces, up, operators) + precision_lines(profile.precision, bool(profile.traces))


def profile_parts(profile: ProfileRecord | None, up: str = "") -> list[Part]:
    """report.md's traces and precision study, each a part that may move to the appendix on its own, so that
    each moved one leaves its own pointer under its own heading (trial 27, T27-9: the two moved as one part whose
    pointer was titled "Profiler traces" only, and report.md never named the precision study)."""
    if profile is None:
        return []
    traces = trace_lines(profile.traces, up, TRACE_OPERATORS)
    return [Part(traces, detail=True), Part(precision_lines(profile.precision, bool(profile.traces)), detail=True)]


def _why_none(records: Sequence[TraceRecord] | Sequence[PrecisionRow]) -> str:
    """Why none of ``records`` (traces, or precision rows) was measured, in one clause: each one's format or precision,
    device and size, its status and reason (trial 28, T28-3: a section of nothing but that moved to the appendix,
    its pointer telling the reader an analysis was there)."""
    said = []
    for r in records:
        what = r.format if isinstance(r, TraceRecord) else r.precision
        said.append(f"{what} on {r.device}, {ran_at(r.shape, r.batch_size)}: {r.status} ({r.reason or 'no reason recorded'})")
    return "; ".join(dict.fromkeys(said))


def trace_lines(traces: list[TraceRecord], up: str = "", operators: int | None = None) -> list[str]:
    """``## Profiler traces``: per traced format a link and its top operators by self time: with
    ``operators`` (report.md) that many in one bullet, the tables in the appendix; ``None`` (the
    appendix): the top-10 table."""
    if not traces:
        return []
    if all(t.status != "measured" or not t.file for t in traces):  # one line saying why: it stays in place (T28-3)
        return ["## Profiler traces (one batch per format)", "", f"No profiler trace in this run: {_why_none(traces)}.", ""]
    lines = [
        "## Profiler traces (one batch per format)",
        "",
        "Open a `torch.profiler` trace in `chrome://tracing` or https://ui.perfetto.dev; ONNX Runtime's "
        "profile is a list of the same Chrome-trace events. Self time: inside the operator itself, "
        f"the operators it calls excluded; % of the batch's total self time. Each traces one batch of {RAN_ON}."
        + (f" Each trace's top-10 operators: [{APPENDIX_FILE}]({APPENDIX_FILE})." if operators is not None else ""),
        "",
    ]
    for t in traces:
        what = f"{t.format} on {t.device}, {ran_at(t.shape, t.batch_size)}" + (f", {t.threads} threads" if t.threads else "")
        if t.status != "measured" or not t.file:
            lines += [f"- {what}: {t.status} ({t.reason or 'no reason recorded'})"]
            continue
        busy = (
            f"{flag_mark(t.flag)} (traced while other processes used {fmt(t.host_busy_pct, 0)} % of one core: the shares "
            "may be the host's, not the model's)"
            if t.flag == HOST_BUSY
            else ""
        )
        if operators is not None:
            top = "; ".join(f"{o.name} {fmt(o.self_pct, 1)} %" for o in t.top_operators[:operators])
            lines.append(
                f"- **{what}** ({t.profiler}): [{t.file}]({up}{t.file}) — top by self time: {top or 'none recorded'}{busy}"
            )
            continue
        lines += ["", f"**{what}** ({t.profiler}): [{t.file}]({up}{t.file}){busy}", ""]
        rows = [[o.name, fmt(o.self_us, 1), o.calls, fmt(o.self_pct, 1)] for o in t.top_operators]
        lines += table(["operator", "self µs", "calls", "% self"], rows, ["left", "right", "right", "right"])
    return [*lines, ""]


def _span(r: PrecisionRow) -> str:
    """The min–max of ``r``'s paired ratios (:func:`perf.markdown.ratio_span`); ``—`` where the record has none."""
    lo, hi = r.speedup_low, r.speedup_high
    return "—" if lo is None or hi is None else ratio_span(lo, hi, 3)


def speedup_cell(r: PrecisionRow, why: str | None = None) -> str:
    """``"faster: 1.75× fp32's speed (1.61–1.90)"``, ``"not distinguishable at this noise: 1.02× fp32's speed
    (0.95–1.08)"``, or ``—``; where every round went one way and the rule did not call it (``why``:
    :func:`_uncalled`), that and why, never "not distinguishable" (trial 15, T15-2): ``"faster in every round, not
    called (too few rounds): 1.57× fp32's speed (1.5–1.91)"``. The ratio is said as what it is, as the bullets
    below the table say it, never "0.799× slower" (issue 26, trial 19, T19-7; :func:`perf.markdown.factor`)."""
    if r.speedup_vs_fp32 is None:
        return "—"
    if r.speedup_verdict == UNFAIR or too_wide(r.speedup_low, r.speedup_high):  # an older record too
        return f"{UNFAIR} (paired ratios {_span(r)})"
    spread = f" ({_span(r)})" if r.speedup_low is not None and r.speedup_high is not None else ""
    speed = f"{times(r.speedup_vs_fp32, 3)} fp32's speed{spread}"
    if why is not None:
        way = "faster" if r.speedup_vs_fp32 > 1 else "slower"
        return f"{way} in every round, not called ({why}): {speed}"
    return f"{r.speedup_verdict}: {speed}" if r.speedup_verdict else speed


def _uncalled(rows: list[PrecisionRow], r: PrecisionRow) -> str | None:
    """Why the paired rule did not call ``r``'s speed-up against fp32 of its device although every round went one
    way (:meth:`perf.analysis.stats.paired.Paired.uncalled`, short; on the rounds the record keeps), else ``None``."""
    fp32 = next((q for q in rows if q.device == r.device and q.precision == "fp32" and q.rounds_ms), None)
    if fp32 is None or not r.rounds_ms or len(r.rounds_ms) != len(fp32.rounds_ms):
        return None
    pr = paired(fp32.rounds_ms, r.rounds_ms)  # as perf.profile.precision_study pairs them
    return pr.uncalled(short=True) if pr is not None else None


def speedup_sentences(rows: list[PrecisionRow]) -> list[str]:
    """One bullet per reduced precision with a speed-up: the paired verdict with its numbers,
    and the host's load where it flagged the rows."""
    out = []
    for r in rows:
        if r.speedup_vs_fp32 is None or r.precision == "fp32":
            continue
        if r.speedup_p_value is None or r.speedup_low is None or r.speedup_high is None:
            out.append(
                f"- On {r.device}, {r.precision}: {times(r.speedup_vs_fp32, 3)} fp32's speed, not measured fairly (an older "
                "record: fp32 and this precision were timed one after the other, not paired in rounds)."
            )
            continue
        n = len(r.rounds_ms)
        verdict = r.speedup_verdict or NOT_DISTINGUISHABLE
        if verdict == UNFAIR or too_wide(r.speedup_low, r.speedup_high):
            out.append(
                f"- On {r.device}, {r.precision} against fp32: {UNFAIR}: its paired ratios over {n} interleaved rounds span "
                f"{_span(r)} (more than a factor of {UNFAIR_SPREAD:g}), so no speed-up is given "
                "and the two rows' times are not to be compared; time them again on a quiet host."
            )
            continue
        why = _uncalled(rows, r) if verdict == NOT_DISTINGUISHABLE else None
        if why is not None:  # every round one way: not "not distinguishable" (trial 15, T15-2)
            way = "faster" if r.speedup_vs_fp32 > 1 else "slower"
            what = f"{r.precision} against fp32: {times(r.speedup_vs_fp32, 3)} fp32's speed, {way} in each of the {n} rounds, not called: {why}"  # fmt: skip
        elif verdict == NOT_DISTINGUISHABLE:
            what = f"{r.precision} against fp32: {times(r.speedup_vs_fp32, 3)} fp32's speed, {NOT_DISTINGUISHABLE}"
        else:
            what = f"{r.precision} is {verdict} than fp32: {times(r.speedup_vs_fp32, 3)} fp32's speed"
        text = (
            f"- On {r.device}, {what} (median of the paired ratios over {n} interleaved rounds, min–max "
            f"{_span(r)}, {p_words(r.speedup_p_value, r.speedup_p_tier)})"
        )
        if r.flag == HOST_BUSY:
            text += (
                f"; measured while other processes used {fmt(r.host_busy_pct, 0)} % of one core{flag_mark(HOST_BUSY)}: "
                "fp32 and this precision shared that load round by round, but the times themselves are the loaded host's"
            )
        out.append(sentence(text))
    return out


def precision_lines(rows: list[PrecisionRow], traced: bool = False) -> list[str]:
    """``## Precision study``: one table, against fp32 eager PyTorch on the CPU, then the paired
    speed-ups in words (:mod:`perf.analysis.stats.paired`'s rule); its method, then the paired rule as a bullet
    (trial 19, T19-17: one line of 1,400 characters). ``traced``: the traces' section above says
    what inputs they ran on (:data:`RAN_ON`), said once."""
    if not rows:
        return []
    if all(r.status != "measured" for r in rows):  # one line saying why: it stays in place (T28-3)
        return ["## Precision study", "", f"No precision measured in this run: {_why_none(rows)}.", ""]
    first, at = rows[0], list(dict.fromkeys(ran_at(r.shape, r.batch_size) for r in rows))
    lines = [
        "## Precision study",
        "",
        f"{first.runtime} on {'the inputs the traces ran on (above)' if traced else RAN_ON}: "
        f"{at[0] if len(at) == 1 else 'the input size and batch each row names'}"
        + (f", {first.threads} threads" if first.threads else "")
        + f"; {sentence(first.method)} Errors against fp32 eager PyTorch on the CPU; latency: median (IQR) over the "
        "rounds of each round's median call (`torch.utils.benchmark` blocks), samples/s from that median. "
        '"computes in": what the kernels really run in (builders.verify.verdicts.KERNEL_PRECISION).',
        "- **vs fp32**: the precisions of one device are timed interleaved in rounds; fp32's time over this one's, "
        f"round by round, not the ratio of the two medians: {sentence(RULE)}",
        "",
    ]
    body = []
    for r in rows:
        each = [ran_at(r.shape, r.batch_size)] if len(at) > 1 else []  # rows at several sizes: each says its own
        if r.status != "measured":
            body.append([*each, r.device, r.precision, r.computes_in or "—", f"{r.status}: {r.reason or 'no reason recorded'}"])
            continue
        body.append(
            [
                *each,
                r.device,
                r.precision,
                r.computes_in or "—",
                "measured" + flag_mark(r.flag),
                f"{fmt(r.latency_median_ms, 3)} ({fmt(r.latency_iqr_ms, 3)})",
                fmt(r.throughput_samples_per_s, 0),
                speedup_cell(r, _uncalled(rows, r) if r.speedup_verdict in (None, NOT_DISTINGUISHABLE) else None),
                "—" if r.max_abs_err is None else f"{r.max_abs_err:.3g}",
                "—" if r.max_rel_err is None else f"{r.max_rel_err:.3g}",
                "—" if r.within_rtol is None else (f"yes (rtol {r.rtol:g})" if r.within_rtol else f"no (rtol {r.rtol:g})"),
            ]
        )
    headers = [*(["ran at"] if len(at) > 1 else []), "device", "precision", "computes in", "status", "ms median (IQR)"]
    headers += ["samples/s", "vs fp32", "max abs err", "max rel err", "within rtol"]
    left: list[Align] = ["left"]
    right: list[Align] = ["right"]
    align = left * (len(headers) - 6) + right * 5 + left
    lines += table(headers, body, align)
    said = speedup_sentences(rows)
    return lines + ([""] + said if said else []) + [""]
