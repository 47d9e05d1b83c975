"""PNG plots of one sweep (matplotlib, Agg backend, imported lazily).

Curves use each variant's medians over trials at the smallest client batch size, with
min–max error bars where a level has several trials and a ring around unstable levels.
A metric that is null at a level is left out of the curve at that level — never drawn
as 0; a utilisation panel exists only for a metric the run recorded.

Every ``plot_*`` function returns what it drew, read back from the matplotlib artists:
``{panel title: {curve label: (xs, ys)}}``, so tests can check the picture's data.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Sequence

from perf.analysis import P99, THROUGHPUT, Point, curve, gpu_metric, run_points
from perf.results import RunResult

log = logging.getLogger(__name__)

Drawn = dict[str, dict[str, tuple[list[float], list[float]]]]
BREAKDOWN = (("server queue", "server_queue_us"), ("compute input", "server_compute_input_us"),
             ("compute infer", "server_compute_infer_us"), ("compute output", "server_compute_output_us"))


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _series(points: Sequence[Point], metric: str, x_metric: str | None = None) -> tuple[list, list, list, list]:
    """(xs, medians, lows, highs) of the non-null ``metric`` values along the variant's curve;
    xs are concurrencies, or ``x_metric`` medians."""
    xs, ys, lo, hi = [], [], [], []
    for p in curve(points):
        y = p.get(metric)
        x = p.concurrency if x_metric is None else p.get(x_metric)
        if y is None or x is None:
            continue
        xs.append(x)
        ys.append(y)
        lo.append(p.low[metric])
        hi.append(p.high[metric])
    return xs, ys, lo, hi


def _draw_curves(ax, points: dict[str, list[Point]], metric: str, x_metric: str | None = None,
                 failed: frozenset[str] = frozenset()) -> None:
    unstable_labelled = False
    for name, pts in points.items():
        xs, ys, lo, hi = _series(pts, metric, x_metric)
        if not xs:
            continue
        yerr = [[y - a for y, a in zip(ys, lo)], [b - y for y, b in zip(ys, hi)]]
        has_spread = any(e > 0 for row in yerr for e in row)
        line = ax.errorbar(xs, ys, yerr=yerr if has_spread else None, marker="o", ms=4, capsize=3,
                           label=name + (" (failed)" if name in failed else ""), ls="--" if name in failed else "-")
        drawn_pts = [p for p in curve(pts) if p.get(metric) is not None and (x_metric is None or p.get(x_metric) is not None)]
        bad = [(x, y) for x, y, p in zip(xs, ys, drawn_pts) if not p.stable]
        if x_metric is not None:  # a trade-off curve: say which concurrency each point is
            for x, y, p in zip(xs, ys, drawn_pts):
                ax.annotate(f"c={p.concurrency}", (x, y), xytext=(4, 4), textcoords="offset points", fontsize=7, alpha=0.8)
        if bad:
            ax.scatter([b[0] for b in bad], [b[1] for b in bad], s=110, facecolors="none",
                       edgecolors=line.lines[0].get_color(), linewidths=1.5,
                       label=None if unstable_labelled else "unstable level (ring)")
            unstable_labelled = True


def _concurrency_axis(ax, points: dict[str, list[Point]]) -> None:
    ticks = sorted({p.concurrency for pts in points.values() for p in curve(pts)})
    ax.set_xscale("log", base=2)
    ax.set_xticks(ticks, [str(t) for t in ticks])
    ax.minorticks_off()
    ax.set_xlabel("concurrency (outstanding requests)")


def _finish(fig, ax_list, path: Path) -> Drawn:
    from matplotlib.container import ErrorbarContainer

    drawn: Drawn = {}
    for ax in ax_list:
        handles, labels = ax.get_legend_handles_labels()
        if handles:
            ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        ax.grid(True, alpha=0.3)
        drawn[ax.get_title()] = {  # errorbar() labels its container; the data line is lines[0]
            c.get_label(): ([float(x) for x in c.lines[0].get_xdata()], [float(y) for y in c.lines[0].get_ydata()])
            for c in ax.containers if isinstance(c, ErrorbarContainer) and not c.get_label().startswith("_")
        }
    fig.savefig(path, dpi=110, bbox_inches="tight")
    _plt().close(fig)
    return drawn


def plot_metric(points: dict[str, list[Point]], metric: str, ylabel: str, title: str, path: Path,
                x_metric: str | None = None, xlabel: str | None = None, failed: frozenset[str] = frozenset(),
                latency_budget_ms: float | None = None) -> Drawn:
    """One curve per variant of ``metric`` against concurrency (log2 axis) or ``x_metric``;
    ``failed`` variants are dashed; a p99 budget (ms) is drawn as a dotted line on a p99 axis."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(10, 5))
    ax.set_title(title)
    _draw_curves(ax, points, metric, x_metric, failed)
    ax.set_ylabel(ylabel)
    if x_metric is None:
        _concurrency_axis(ax, points)
    ax.set_xlabel(xlabel or ax.get_xlabel())
    if latency_budget_ms is not None and P99 in (metric, x_metric):
        draw = ax.axvline if x_metric == P99 else ax.axhline
        draw(latency_budget_ms, color="grey", ls=":", lw=1.2, label=f"p99 budget {latency_budget_ms:g} ms")
    return _finish(fig, [ax], path)


def plot_utilisation(points: dict[str, list[Point]], path: Path, failed: frozenset[str] = frozenset()) -> Drawn | None:
    """CPU and/or GPU utilisation (%) against concurrency: one panel per metric the run has.

    Returns:
        What was drawn, or None (and no file) when the run has no utilisation metric.
    """
    panels = [(m, t) for m, t in (("cpu_utilization_pct", "CPU utilisation (nv_cpu_utilization)"),
                                  (gpu_metric(points), "GPU utilisation")) if m]
    panels = [(m, t) for m, t in panels if any(p.get(m) is not None for pts in points.values() for p in pts)]
    if not panels:
        return None
    plt = _plt()
    fig, axes = plt.subplots(len(panels), 1, figsize=(10, 4 * len(panels)), squeeze=False, layout="constrained")
    for ax, (metric, title) in zip(axes[:, 0], panels):
        ax.set_title(title)
        _draw_curves(ax, points, metric, failed=failed)
        _concurrency_axis(ax, points)
        ax.set_ylabel("utilisation (%)")
        ax.set_ylim(bottom=0)
    return _finish(fig, list(axes[:, 0]), path)


def breakdown_points(points: dict[str, list[Point]], concurrency: int | None = None) -> dict[str, Point]:
    """The level each variant's breakdown bar shows: ``concurrency`` if given (variants
    without it are left out), else the variant's highest measured concurrency."""
    out = {}
    for name, pts in points.items():
        c = curve(pts)
        chosen = [p for p in c if p.concurrency == concurrency] if concurrency is not None else c[-1:]
        if chosen:
            out[name] = chosen[0]
    return out


def plot_breakdown(points: dict[str, list[Point]], path: Path, concurrency: int | None = None,
                   failed: frozenset[str] = frozenset()) -> Drawn | None:
    """Stacked horizontal bars per variant: server queue vs compute input/infer/output (µs
    per request). Null segments are left out. None (no file) when nothing has a breakdown."""
    chosen = breakdown_points(points, concurrency)
    chosen = {n: p for n, p in chosen.items() if any(p.get(m) is not None for _, m in BREAKDOWN)}
    if not chosen:
        return None
    plt = _plt()
    names = list(chosen)
    fig, ax = plt.subplots(figsize=(10, 1.0 + 0.45 * len(names)))
    title = "Server time per request" + (f" at concurrency {concurrency}" if concurrency else " at each variant's highest level")
    ax.set_title(title)
    left = [0.0] * len(names)
    drawn: dict[str, tuple[list[float], list[float]]] = {}
    for label, metric in BREAKDOWN:
        rows = [(i, chosen[n].get(metric)) for i, n in enumerate(names) if chosen[n].get(metric) is not None]
        if not rows:
            continue
        ax.barh([i for i, _ in rows], [w for _, w in rows], left=[left[i] for i, _ in rows], label=label)
        drawn[label] = ([float(i) for i, _ in rows], [float(w) for _, w in rows])
        for i, w in rows:
            left[i] += w
    ax.set_yticks(range(len(names)), [f"{n} (c={chosen[n].concurrency}){' (failed)' if n in failed else ''}"
                                      for n in names], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("µs per request (Triton statistics via perf_analyzer)")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    ax.grid(True, axis="x", alpha=0.3)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return {title: drawn}


def write_plots(run: RunResult, out_dir: Path, breakdown_concurrency: int | None = None,
                latency_budget_ms: float | None = None) -> dict[str, Path]:
    """Write every plot the run's data allows into ``out_dir``.

    Args:
        run: A loaded sweep.
        out_dir: Folder for the PNG files (the run folder).
        breakdown_concurrency: Concurrency of the breakdown bars (default: each variant's highest).
        latency_budget_ms: p99 budget (ms) drawn on the p99 plots (default: none).

    Returns:
        ``{title: png path}`` in report order.
    """
    points = {n: pts for n, pts in run_points(run).items() if any(p.ok for p in pts)}
    out_dir = Path(out_dir)
    made: dict[str, Path] = {}
    failed = frozenset(v.name for v in run.variants if v.status == "failed")
    if not points:
        log.warning("no measured level in run %s: no plots", run.run_id)
        return made
    specs = [("Throughput vs concurrency", "throughput_vs_concurrency.png", THROUGHPUT, "throughput (infer/s)", None),
             ("p99 latency vs concurrency", "p99_vs_concurrency.png", P99, "client p99 latency (ms)", None),
             ("Throughput vs p99 latency", "throughput_vs_p99.png", THROUGHPUT, "throughput (infer/s)", P99)]
    for title, file, metric, ylabel, x_metric in specs:
        plot_metric(points, metric, ylabel, title, out_dir / file, x_metric,
                    "client p99 latency (ms)" if x_metric else None, failed, latency_budget_ms)
        made[title] = out_dir / file
    if plot_utilisation(points, out_dir / "utilisation_vs_concurrency.png", failed) is not None:
        made["Utilisation vs concurrency"] = out_dir / "utilisation_vs_concurrency.png"
    if plot_breakdown(points, out_dir / "latency_breakdown.png", breakdown_concurrency, failed) is not None:
        made["Server latency breakdown"] = out_dir / "latency_breakdown.png"
    return made
