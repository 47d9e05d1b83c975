"""The sweep's other plots: the server latency breakdown bars and achieved vs offered request rate.

Both return what they drew (:data:`perf.plots.canvas.Drawn`), or None (and no file) when the
run has nothing to show.
"""

from __future__ import annotations

from pathlib import Path

from perf.analysis.stats.curves import curve
from perf.analysis.stats.points import Point, rate_points, run_points
from perf.markdown import flag_mark
from perf.plots.canvas import Drawn, finish, pyplot, ring_flagged
from perf.plots.palette import ALERT, COMPONENT_LOOKS, REFERENCE
from perf.plots.styles import series_looks, style
from perf.plots.ticks import save
from perf.records.levels import HOST_BUSY, UNSTABLE
from perf.records.results import RunResult

#: The field request_rates.png draws (requests/s).
ACHIEVED = "achieved_rate_per_s"
BREAKDOWN = (
    ("server queue", "server_queue_us"),
    ("compute input", "server_compute_input_us"),
    ("compute infer", "server_compute_infer_us"),
    ("compute output", "server_compute_output_us"),
)


def breakdown_points(points: dict[str, list[Point]], concurrency: int | None = None) -> list[Point]:
    """The levels the breakdown bars show, one per variant and client batch size:
    ``concurrency`` if given (variants without it are left out), else the highest measured."""
    out = []
    for pts in points.values():
        for bs in sorted({p.batch_size for p in pts if p.ok}):
            c = curve(pts, bs)
            out += [p for p in c if p.concurrency == concurrency][:1] if concurrency is not None else c[-1:]
    return out


def plot_breakdown(
    points: dict[str, list[Point]], path: Path, concurrency: int | None = None, failed: frozenset[str] = frozenset()
) -> Drawn | None:
    """Stacked horizontal bars per variant and client batch size: server queue vs compute
    input/infer/output (µs per request), each bar labelled with its level (``c=``, ``b=``,
    ``†`` when unstable). Null segments are left out. None (no file) when nothing has a breakdown."""
    chosen = [p for p in breakdown_points(points, concurrency) if any(p.get(m) is not None for _, m in BREAKDOWN)]
    if not chosen:
        return None
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(10, 1.0 + 0.45 * len(chosen)))
    title = "Server time per request" + (f" at concurrency {concurrency}" if concurrency else " at each variant's highest level")
    ax.set_title(title)
    left = [0.0] * len(chosen)
    drawn: dict[str, tuple[list[float], list[float]]] = {}
    for label, metric in BREAKDOWN:
        rows = [(i, w) for i, p in enumerate(chosen) if (w := p.get(metric)) is not None]
        if not rows:
            continue
        ax.barh(
            [i for i, _ in rows],
            [w for _, w in rows],
            left=[left[i] for i, _ in rows],
            label=label,
            color=(fill := COMPONENT_LOOKS[metric]).colour,
            hatch=fill.hatch,
            edgecolor=fill.hatch_colour,  # the hatch's ink; no outline (lw 0)
            lw=0,
        )
        drawn[label] = ([float(i) for i, _ in rows], [float(w) for _, w in rows])
        for i, w in rows:
            left[i] += w
    ax.set_yticks(
        range(len(chosen)),
        [
            f"{p.variant} (c={p.concurrency}, b={p.batch_size}{flag_mark(p.flags)}){' (failed)' if p.variant in failed else ''}"
            for p in chosen
        ],
        fontsize=8,
    )
    ax.invert_yaxis()
    ax.set_xlabel("µs per request (Triton statistics via perf_analyzer)")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    ax.grid(True, axis="x", alpha=0.3)
    save(fig, path)
    plt.close(fig)
    return {title: drawn}


def plot_request_rates(run: RunResult, path: Path) -> Drawn | None:
    """Achieved against offered request rate (requests/s), one series per variant and client batch
    size, with the line where they are equal: each level at its median over its rounds (or trials)
    with their min–max as an error bar, the numbers of the report's table
    (:func:`perf.analysis.stats.points.rate_points`; trial 11, F22: the line ran through every round and
    ended at the worst one, 828 req/s where the table said 997). A level flagged (its worst round's
    status, as the table's) is ringed, a ``not achieved`` one crossed out. None (no file) when the
    run has no request-rate level with an achieved rate. A series is in its look of every other plot of the
    run (:func:`perf.plots.styles.series_looks`; one without a concurrency level in a look no other has)."""
    series: dict[tuple[str, int], list[tuple[float, Point]]] = {}  # (variant, batch size) -> (offered, level)
    for (name, bs, rate), p in rate_points(run).items():
        if p.get(ACHIEVED) is not None:
            series.setdefault((name, bs), []).append((rate, p))
    if not series:
        return None
    several = len({bs for _, bs in series}) > 1
    unit = "rounds" if run.rounds is not None else "trials"
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(10, 5))
    ax.set_title(f"Achieved vs offered request rate (median over {unit}, bar: their min–max)")
    top = max(r for levels in series.values() for r, _ in levels)
    ax.plot([0, top], [0, top], color=REFERENCE, ls=":", lw=1, label="achieved = offered")
    crossed = ringed = False
    looks = series_looks(run_points(run), (v.name for v in run.variants if v.status == "failed"), run)
    own = {n: style(len(looks) + i) for i, n in enumerate(dict.fromkeys(n for n, _ in series if n not in looks))}
    for (name, bs), levels in series.items():
        look = looks.get(name) or own[name]
        xs, pts = [r for r, _ in levels], [p for _, p in levels]
        ys = [p.value(ACHIEVED) for p in pts]
        lows, highs = zip(*(p.bounds(ACHIEVED) for p in pts))
        yerr = [[y - lo for y, lo in zip(ys, lows)], [hi - y for y, hi in zip(ys, highs)]]
        ax.errorbar(
            xs,
            ys,
            yerr=yerr if any(e > 0 for row in yerr for e in row) else None,
            marker=look.marker,
            ms=4,
            capsize=3,
            color=look.colour,
            ls=look.linestyle,
            label=name + (f" (b={bs})" if several else ""),
        )
        flagged = [(x, y) for x, y, p in zip(xs, ys, pts) if p.status in (HOST_BUSY, UNSTABLE)]  # the level plots' ring
        ring_flagged(ax, flagged, look.colour, not ringed)
        ringed = ringed or bool(flagged)
        missed = [(x, y) for x, y, p in zip(xs, ys, pts) if p.status == "not achieved"]
        if missed:
            ax.scatter(
                [x for x, _ in missed],
                [y for _, y in missed],
                marker="x",
                s=120,
                color=ALERT,
                zorder=3,
                label=None if crossed else f"not achieved in one of its {unit} or more (never recommended)",
            )
            crossed = True
    ax.set_xlabel("offered (requests/s)")
    ax.set_ylabel(f"achieved (requests/s; median over {unit}, bar: min–max)")
    return finish(fig, [ax], path)
