"""The report's sections for the profiler traces and the precision study (markdown lines).

Every number comes from the run's :class:`~perf.records.profile.ProfileRecord`; a row the
host did not run says so with its reason (never a number of 0).
"""

from __future__ import annotations

from perf.markdown import fmt, table
from perf.records.profile import PrecisionRow, ProfileRecord, TraceRecord


def profile_section(profile: ProfileRecord | None) -> list[str]:
    """The traces (links and top-10 operator tables) and the precision table; empty without
    either. Trace links are relative to the run folder, where ``report.md`` is written."""
    if profile is None:
        return []
    return trace_lines(profile.traces) + precision_lines(profile.precision)


def trace_lines(traces: list[TraceRecord]) -> list[str]:
    """``## Profiler traces``: one link and one top-10 table per traced format."""
    if not traces:
        return []
    lines = [
        "## Profiler traces (one batch per format)",
        "",
        "Open a `torch.profiler` trace in `chrome://tracing` or https://ui.perfetto.dev; ONNX Runtime's "
        "profile is a list of the same Chrome-trace events. Self time: inside the operator itself, "
        "the operators it calls excluded; % of the batch's total self time.",
        "",
    ]
    for t in traces:
        what = f"{t.format} on {t.device}, batch {t.batch_size}" + (f", {t.threads} threads" if t.threads else "")
        if t.status != "measured" or not t.file:
            lines += [f"- {what}: {t.status} ({t.reason or 'no reason recorded'})", ""]
            continue
        lines += [f"**{what}** ({t.profiler}): [{t.file}]({t.file})", ""]
        rows = [[o.name, fmt(o.self_us, 1), o.calls, fmt(o.self_pct, 1)] for o in t.top_operators]
        lines += table(["operator", "self µs", "calls", "% self"], rows, ["left", "right", "right", "right"]) + [""]
    return lines


def precision_lines(rows: list[PrecisionRow]) -> list[str]:
    """``## Precision study``: one table, against fp32 eager PyTorch on the CPU."""
    if not rows:
        return []
    first = rows[0]
    lines = [
        "## Precision study",
        "",
        f"{first.runtime}, batch {first.batch_size}"
        + (f", {first.threads} threads" if first.threads else "")
        + f"; {first.method}. Errors against fp32 eager PyTorch on the CPU; latency: median (IQR) of one call "
        '(`torch.utils.benchmark`). "computes in": what the kernels really run in (builders.verify.verdicts.KERNEL_PRECISION).',
        "",
    ]
    body = []
    for r in rows:
        if r.status != "measured":
            body.append([r.device, r.precision, r.computes_in or "—", f"{r.status}: {r.reason or 'no reason recorded'}"])
            continue
        body.append(
            [
                r.device,
                r.precision,
                r.computes_in or "—",
                "measured",
                f"{fmt(r.latency_median_ms, 3)} ({fmt(r.latency_iqr_ms, 3)})",
                fmt(r.throughput_samples_per_s, 0),
                "—" if r.speedup_vs_fp32 is None else f"{r.speedup_vs_fp32:.3g}×",
                "—" if r.max_abs_err is None else f"{r.max_abs_err:.3g}",
                "—" if r.max_rel_err is None else f"{r.max_rel_err:.3g}",
                "—" if r.within_rtol is None else (f"yes (rtol {r.rtol:g})" if r.within_rtol else f"no (rtol {r.rtol:g})"),
            ]
        )
    headers = ["device", "precision", "computes in", "status", "ms median (IQR)", "samples/s", "vs fp32", "max abs err"]
    headers += ["max rel err", "within rtol"]
    lines += table(headers, body, ["left", "left", "left", "left", "right", "right", "right", "right", "right", "left"])
    return lines + [""]
