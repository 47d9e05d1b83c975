"""The report's "What was run" section: where and how the sweep ran, and what it compared."""

from __future__ import annotations

from pathlib import Path

from perf.analysis.measured import has_numbers
from perf.analysis.stats.pairs import FACTORS, value_order, variant_of
from perf.analysis.stats.points import aggregate
from perf.markdown import APPENDIX_FILE, capped, fmt, table
from perf.records.results import COMMANDS_FILE, RunResult
from perf.records.rounds import NOT_IN_ROUNDS
from perf.search.plan import skipped_lines

#: Runs with more variants list the grid's values instead of a table of every variant.
VARIANT_TABLE_MAX = 12


def grid_lines(run: RunResult) -> list[str]:
    """What the variants' parameters took, one bullet per factor of :data:`perf.analysis.stats.pairs.FACTORS`
    with more than one value, and where the table of every variant is."""
    typed = [t for t in (variant_of(v) for v in run.variants) if t is not None]
    lines = [f"**{len(run.variants)} variants**; the grid's factors and their values:", ""]
    for f in FACTORS:
        values = sorted({f.value(t) for t in typed if f.value(t) is not None}, key=value_order)
        if len(values) > 1:
            lines.append(f"- {f.label}: {', '.join(f.show(v) for v in values)}")
    statuses: dict[str, int] = {}
    for v in run.variants:
        statuses[v.status] = statuses.get(v.status, 0) + 1
    lines.append("- status: " + ", ".join(f"{n} {s}" for s, n in statuses.items()))
    return lines + ["", f"Every variant's parameters: [{APPENDIX_FILE}]({APPENDIX_FILE}) and `flat.csv`."]


def settings_shown(run: RunResult) -> dict[str, object]:
    """The run's settings as the report lists them (``variants`` has its own table): in a rounds
    run without the ones the design does not use (:data:`perf.records.rounds.NOT_IN_ROUNDS`),
    and with the round window that took effect."""
    s: dict[str, object] = {k: v for k, v in run.settings.items() if k != "variants"}
    if run.rounds is not None:
        s = {k: v for k, v in s.items() if k not in NOT_IN_ROUNDS}
        s["round_window_ms"] = run.rounds.rules.window_ms
    return s


def what_was_run(run: RunResult, run_dir: Path, up: str = "") -> list[str]:
    """The report's "What was run" section: run, host, server, perf_analyzer, versions,
    settings, the variants' parameters (a table up to :data:`VARIANT_TABLE_MAX` variants, else
    the grid's values per parameter, the table going to the appendix), failed variants,
    skipped levels and server starts (long lists continue in the appendix).

    Args:
        run: The run.
        run_dir: Its folder.
        up: Prefix of links to the run folder's own files (``"../"`` from a what-if folder).
    """
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
        f"- Run `{run.run_id}`, started {run.created}, "
        + (f"finished {_finished(run)}." if run.finished else "**did not finish** (see the note at the top)."),
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
        lines.append("- Settings: " + ", ".join(f"{k}={v}" for k, v in settings_shown(run).items()) + ".")
    lines += dynamic_axes_lines(run)
    if (run_dir / COMMANDS_FILE).exists():
        lines.append(f"- Every command line (server, perf_analyzer) is in [{COMMANDS_FILE}]({up}{COMMANDS_FILE}).")
    if len(run.variants) <= VARIANT_TABLE_MAX:
        lines += ["", *variant_table(run)]
    else:
        lines += ["", *grid_lines(run)]
    failed = [v for v in run.variants if v.status == "failed"]
    if failed:
        lines += ["", "**Failed variants:**", ""] + capped(
            [f"`{v.name}`: {(v.error or 'no error recorded').strip()}" for v in failed]
        )
    skipped = skipped_lines(run.variants)
    if skipped:
        lines += ["", "**Skipped levels** (asked for, not measured):", "", *capped(skipped)]
    if len(run.server_starts) > 1:
        lines += ["", "**Server starts** (one log each):", ""] + capped(
            [f"[{s.log}]({up}{s.log}) at {s.started}: {s.reason}" for s in run.server_starts]
        )
    return lines


def dynamic_axes_lines(run: RunResult) -> list[str]:
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


def variant_table(run: RunResult) -> list[str]:
    """A table of every variant's parameters (format, precision, instances, max_batch_size,
    dynamic batching), status and measured levels."""
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
                "not measured further" if v.status == "skipped" and has_numbers(run, v.name) else v.status,  # an older record
                sum(1 for q in aggregate(v.levels) if q.ok),
            ]
        )
    return [
        *table(
            ["variant", "format", "precision", "instances", "max_batch_size", "dynamic batching", "status", "levels"],
            rows,
            ["left", "left", "left", "left", "right", "left", "left", "right"],
        ),
    ]


def _finished(run: RunResult) -> str:
    """``"2026-12-02T04:50:12+0000"``, or with the in-process baseline measured after it
    ``"... (the measurements; the in-process baseline after them until ...)"``: a run's
    ``finished`` is the end of its levels, not of the baseline (trial 6: 2 minutes apart)."""
    b = run.baseline
    after = b is not None and b.created and run.finished and b.created > run.finished
    return f"{run.finished}" + (
        f" (the measurements; the in-process baseline after them until {b.created})" if after and b else ""
    )
