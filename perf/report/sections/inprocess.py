"""The report's in-process baseline table (:mod:`perf.profile.baseline`'s points): its settings in
one paragraph, one row per point, and the host's load during it. Used by the serving-efficiency
section (:mod:`perf.report.sections.efficiency`), its appendix and ``triton-perf baseline``."""

from __future__ import annotations

from core.wording import count, sentence
from perf.markdown import APPENDIX_FILE, Align, flag_mark, fmt, table
from perf.records.baseline import BaselinePoint, BaselineResult
from perf.records.levels import HOST_BUSY


def baseline_lines(baseline: BaselineResult, table_rows: bool = True) -> list[str]:
    """The settings in one paragraph, then one row per in-process point (a point not run
    says why in its status cell); without ``table_rows`` a line saying where that table is."""
    s = baseline.settings
    versions = ", ".join(f"{k} {v}" for k, v in s.versions.items() if v)
    short = baseline.cut_short()  # the rounds timed, not only those planned (trial 12, F15)
    cut = "; ".join(f"`{m}` timed in {count(n, 'round')} of them only" for m, n in short.items())
    rounds = (
        f" over {s.rounds} interleaved rounds (each round times every point of a model once, in a shuffled order"
        + (f"; the time budget ran out: {cut})" if short else ")")  # a sweep's or the command's (re-check 14, NEW-5)
        if s.rounds
        else ""
    )
    lines = [
        f"Timed with {s.timer}; warm-up ≥ {s.warmup_runs} calls and {s.warmup_s:g} s, then {s.min_run_time_s:g} s "
        f"of blocks and {s.min_run_time_s:g} s (≤ {s.max_runs}) of single calls per point{rounds}. Inputs: {s.inputs}. "
        f"Threads: {sentence(s.threads_rule)} Versions: {versions}. Measured {baseline.created}. {load_sentence(baseline)}",
        "",
    ]
    if not table_rows:
        return [*lines, f"Every one of its {len(baseline.points)} points: [{APPENDIX_FILE}]({APPENDIX_FILE})."]
    sized = any(p.shape for p in baseline.points)  # the input sizes it timed (one per client workload's size)
    headers = [
        "model",
        "format",
        "precision",
        "device",
        "threads",
        *(["inputs"] if sized else []),
        "batch",
        "p50 ms",
        "p99 ms",
        "median ms",
        "spread %",
        "rounds spread %",
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
            *([p.shape or "—"] if sized else []),
            p.batch_size,
            fmt(p.latency_p50_ms, 3),
            fmt(p.latency_p99_ms, 3),
            fmt(p.latency_median_ms, 3),
            fmt(p.spread_pct),
            fmt(p.round_spread_pct),
            fmt(p.throughput_infer_per_s),
            point_status(p),
        ]
        for p in baseline.points
    ]
    left: list[Align] = ["left"]
    right: list[Align] = ["right"]
    align = left * 4 + right + (left if sized else []) + right * 7 + left
    lines += table(headers, body, align)
    lines += [f"- {n}" for n in baseline.notes]
    return lines


def point_status(p: BaselinePoint) -> str:
    """A baseline point's status cell: ``ok``, ``† host busy (55 % of one core)``, or why not run."""
    if not p.ok:
        return f"{p.status}: {p.reason}"
    mark = flag_mark(p.flag).strip()
    return f"{mark} ({fmt(p.host_busy_pct, 0)} % of one core)" if mark else "ok"


def load_sentence(baseline: BaselineResult) -> str:
    """Other processes' load during the in-process points, by the sweep's busy-host rule."""
    sampled = [p for p in baseline.points if p.ok and p.host_busy_pct is not None]
    if not sampled:
        return "Other processes' load was not sampled (a record from before the load was recorded)."
    busy = [p for p in sampled if p.host_busy]
    limit = baseline.settings.host_busy_threshold_pct
    most = max(p.host_busy_pct or 0.0 for p in sampled)
    if not busy:
        return f"Other processes used at most {fmt(most, 0)} % of one core meanwhile (under the {fmt(limit, 0)} % threshold)."
    return (
        f"{len(busy)} of {len(sampled)} points were measured while other processes used up to {fmt(most, 0)} % of one core "
        f"(over the {fmt(limit, 0)} % threshold; marked{flag_mark(HOST_BUSY)}): their ratios below are not measured fairly."
    )
