"""The sweep's other plots: the server latency breakdown bars and achieved vs offered request rate.

Both return what they drew (:data:`perf.plots.canvas.Drawn`), or None (and no file) when the
run has nothing to show.
"""

from __future__ import annotations

from pathlib import Path

from perf.analysis.stats import Point, curve
from perf.markdown import flag_mark
from perf.plots.canvas import Drawn, finish, pyplot, ring_flagged
from perf.plots.palette import ALERT, COMPONENT_COLOURS, REFERENCE
from perf.plots.styles import style
from perf.plots.ticks import save
from perf.records.results import RunResult

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
            color=COMPONENT_COLOURS[metric],
        )
        drawn[label] = ([float(i) for i, _ in rows], [float(w) for _, w in rows])
        for i, w in rows:
            left[i] += w
    ax.set_yticks(
        range(len(chosen)),
        [
            f"{p.variant} (c={p.concurrency}, b={p.batch_size}{flag_mark(p.status)}){' (failed)' if p.variant in failed else ''}"
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
    """Achieved against offered request rate (requests/s), one series per variant, with the
    line where they are equal; ``not achieved`` levels are crossed out. None (no file)
    when the run has no request-rate level with an achieved rate."""
    series = {
        v.name: sorted(
            (lv.request_rate, lv.achieved_rate_per_s, lv.status)
            for lv in v.levels
            if lv.request_rate and lv.achieved_rate_per_s is not None
        )
        for v in run.variants
    }
    series = {n: s for n, s in series.items() if s}
    if not series:
        return None
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(10, 5))
    ax.set_title("Achieved vs offered request rate")
    top = max(r for s in series.values() for r, _, _ in s)
    ax.plot([0, top], [0, top], color=REFERENCE, ls=":", lw=1, label="achieved = offered")
    crossed = ringed = False
    for i, (name, pts) in enumerate(series.items()):
        look = style(i)
        ax.errorbar(
            [r for r, _, _ in pts],
            [a for _, a, _ in pts],
            marker=look.marker,
            ms=4,
            color=look.colour,
            ls=look.linestyle,
            label=name,
        )
        flagged = [(r, a) for r, a, st in pts if st in ("host busy", "unstable")]  # the level plots' ring (trial 7, F24)
        ring_flagged(ax, flagged, look.colour, None if ringed else "flagged level: unstable or host busy (ring)")
        ringed = ringed or bool(flagged)
        missed = [(r, a) for r, a, st in pts if st == "not achieved"]
        if missed:
            ax.scatter(
                [r for r, _ in missed],
                [a for _, a in missed],
                marker="x",
                s=120,
                color=ALERT,
                zorder=3,
                label=None if crossed else "not achieved (never recommended)",
            )
            crossed = True
    ax.set_xlabel("offered (requests/s)")
    ax.set_ylabel("achieved (requests/s)")
    return finish(fig, [ax], path)
