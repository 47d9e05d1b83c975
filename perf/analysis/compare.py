"""Run-to-run comparison: two sweeps (before/after, or two machines) level by level.

Levels are matched by variant name and (concurrency, batch size); each side is the median
over its trials (:func:`perf.analysis.stats.aggregate`), and a change is *significant* under
:mod:`perf.analysis.stats`'s noise rule: only when both runs measured the level in at least 2
trials and the change exceeds both min–max trial spreads. A level measured once on either
side has an unknown spread; the comparison says so and suggests ``--trials``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Literal

from core.errors import PerfError
from perf.analysis.fair import unfair
from perf.analysis.stats import MIN_TRIALS_FOR_SPREAD, P99, THROUGHPUT, Delta, Point, delta, fmt_spread, run_points
from perf.markdown import UNSTABLE_MARK, flag_mark, table
from perf.records.results import RunResult, load, split_by_shape

log = logging.getLogger(__name__)


def _env_line(run: RunResult) -> dict[str, str]:
    env = run.environment
    server = env.get("server") or {}
    gpus = ", ".join(g.get("name", "?") for g in env.get("gpus") or []) or "none"
    return {
        "host": str(env.get("host", "?")),
        "cpu": f"{env.get('cpu', '?')} ({env.get('cpu_count', '?')} cores)",
        "gpus": gpus,
        "server runtime": f"{server.get('runtime', '?')} {server.get('version') or ''}".strip(),
        "perf_analyzer": str((env.get("perf_analyzer") or {}).get("version", "?")),
        "protocol": str(run.settings.get("protocol", "?")),
        "measurement_interval_ms": str(run.settings.get("measurement_interval_ms", "?")),
    }


def _sig(d: Delta | None, why: str | None = None) -> str:
    """``yes``/``no``/``spread unknown (...)``, or ``not measured fairly (host busy)`` where a side
    was measured on a busy host (:func:`perf.analysis.fair.unfair`)."""
    if d is None:
        return "—"
    if why:
        return "not measured fairly (host busy)"
    return d.unknown_note if d.significant is None else ("yes" if d.significant else "no")


def _pct(d: Delta | None) -> str:
    return "—" if d is None or d.change_pct is None else f"{d.change_pct:+.1f}"


def matched_points(a: RunResult, b: RunResult) -> list[tuple[str, Point, Point]]:
    """(variant, point in a, point in b) for every level measured in both runs, matched by
    variant name and (concurrency, batch size), in ``a``'s order."""
    pa, pb = run_points(a), run_points(b)
    out = []
    for name in [n for n in pa if n in pb]:
        by_key = {(q.concurrency, q.batch_size): q for q in pb[name]}
        for p in pa[name]:
            q = by_key.get((p.concurrency, p.batch_size))
            if q is not None and p.ok and q.ok:
                out.append((name, p, q))
    return out


def compare_markdown(a: RunResult, b: RunResult, label_a: str = "A", label_b: str = "B") -> str:
    """The comparison report as markdown (see :func:`compare_runs`)."""
    pa, pb = run_points(a), run_points(b)
    lines = [f"# Comparison: {a.run_id} ({label_a}) → {b.run_id} ({label_b})", ""]
    ea, eb = _env_line(a), _env_line(b)
    lines += table(
        ["", f"{label_a}: {a.run_id}", f"{label_b}: {b.run_id}"],
        [[f"{k}{' (differs)' if ea[k] != eb[k] else ''}", ea[k], eb[k]] for k in ea],
        ["left"] * 3,
    )
    lines += [
        "",
        "Changes are (B − A) / A. Matched by variant name and (concurrency, batch size); "
        "values are medians over trials. **Significant** means both runs measured the level in at least "
        f"{MIN_TRIALS_FOR_SPREAD} trials and the change exceeds both min–max trial spreads; with fewer trials "
        f"the spread is unknown and no noise level is assumed. A level measured while other processes used the "
        "host (host busy) is marked, and a change involving it is *not measured fairly*: the two runs may differ "
        f"by the host's load, not by what changed. {UNSTABLE_MARK} unstable: perf_analyzer did not reach a stable "
        f"measurement; {UNSTABLE_MARK} host busy: other processes used the host's CPU during it.",
        "",
    ]
    rows: dict[str, list[list[object]]] = {}
    counts = {THROUGHPUT: [0, 0, 0, 0, 0], P99: [0, 0, 0, 0, 0]}  # up, down, not significant, unknown, unfair
    for name, p, q in matched_points(a, b):
        dt, dl = delta(p, q, THROUGHPUT), delta(p, q, P99)
        why = unfair(p, q)
        for d in (dt, dl):
            if d is not None:
                c = counts[d.metric]
                c[4 if why else 3 if d.significant is None else 2 if not d.significant else (0 if d.b > d.a else 1)] += 1
        mark_a, mark_b = flag_mark(p.status), flag_mark(q.status)
        rows.setdefault(name, []).append(
            [
                p.concurrency,
                p.batch_size,
                f"{fmt_spread(p, THROUGHPUT)}{mark_a}",
                f"{fmt_spread(q, THROUGHPUT)}{mark_b}",
                _pct(dt),
                _sig(dt, why),
                fmt_spread(p, P99, 2),
                fmt_spread(q, P99, 2),
                _pct(dl),
                _sig(dl, why),
            ]
        )
    t, l99 = counts[THROUGHPUT], counts[P99]
    lines += [
        "## Summary",
        "",
        f"- Matched levels: {sum(t)} in {len(rows)} variant(s).",
        f"- Throughput: {t[0]} significantly higher in B, {t[1]} significantly lower, {t[2]} not significant, "
        f"{t[3]} with unknown spread, {t[4]} not measured fairly (a side host busy).",
        f"- p99 latency: {l99[1]} significantly lower in B, {l99[0]} significantly higher, {l99[2]} not significant, "
        f"{l99[3]} with unknown spread, {l99[4]} not measured fairly (a side host busy).",
    ]
    if t[3] or l99[3]:
        lines.append(
            f"- Levels with unknown spread were measured in fewer than {MIN_TRIALS_FOR_SPREAD} trials in A or B: "
            f"run both sweeps with `--trials 3` (or more) to tell a change from run-to-run variation."
        )
    only_a, only_b = [n for n in pa if n not in pb], [n for n in pb if n not in pa]
    if only_a:
        lines.append(f"- Only in {label_a}: {', '.join(only_a)}.")
    if only_b:
        lines.append(f"- Only in {label_b}: {', '.join(only_b)}.")
    headers = [
        "concurrency",
        "batch",
        f"throughput {label_a} (infer/s)",
        f"throughput {label_b} (infer/s)",
        "Δ %",
        "significant",
        f"p99 {label_a} (ms)",
        f"p99 {label_b} (ms)",
        "Δ %",
        "significant",
    ]
    align: list[Literal["left", "right", "center"]] = [
        "right",
        "right",
        "right",
        "right",
        "right",
        "center",
        "right",
        "right",
        "right",
        "center",
    ]
    for name, body in rows.items():
        lines += ["", f"## {name}", "", *table(headers, body, align)]
    return "\n".join(lines) + "\n"


def compare_runs(run_a: Path, run_b: Path, out: Path | None = None) -> Path:
    """Compare two sweeps (before/after, or two machines) and write a markdown report.

    Per variant (matched by name) and level (matched by concurrency and batch size): the
    throughput (infer/s) and p99 latency (ms) of each run, the change in %, and whether it
    is significant under :mod:`perf.analysis.stats`'s noise rule (both runs >= 2 trials and the
    change exceeds both trial spreads; otherwise "spread unknown").

    Args:
        run_a: Run folder of the baseline ("before") sweep.
        run_b: Run folder of the compared ("after") sweep.
        out: Markdown file to write (default ``<run_b>/compare_<run_a id>.md``).

    Returns:
        The path written.

    Raises:
        PerfError: the two folders are one, a run folder has no readable ``results.json``, or
            the two runs share no measured level.
    """
    if Path(run_a).resolve() == Path(run_b).resolve():
        raise PerfError(
            f"both runs are {run_a}: a run compared with itself shows no change by construction",
            hint="give the run before the change and the run after it (two folders under results/)",
        )
    a, b = split_by_shape(load(Path(run_a))), split_by_shape(load(Path(run_b)))
    if (a.run_id, a.created) == (b.run_id, b.created):
        raise PerfError(
            f"{run_a} and {run_b} hold the same run ({a.run_id}, started {a.created}): one is a copy of the other, "
            "so every level would compare equal",
            hint="give the run before the change and the run after it",
        )
    if not matched_points(a, b):
        raise PerfError(
            f"runs {a.run_id} and {b.run_id} share no measured level",
            hint="compare runs that swept the same variant names at the same concurrency and batch sizes",
        )
    text = compare_markdown(a, b)
    out = Path(out) if out else Path(run_b) / f"compare_{a.run_id}.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    log.info("comparison written to %s", out)
    return out
