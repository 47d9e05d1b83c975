"""The GPU check's compact table: one line per (variant, level), and the best level per model.

The best level is chosen by :func:`perf.analysis.recommendation.recommend.best_under_budget` (the report's own rule);
perf is imported only when a table is made, so the module imports with the standard library.
"""

from __future__ import annotations

from typing import Any


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def _model_of(variant: Any) -> str:
    from core.naming import parse_variant_name

    params = variant.params or {}
    parts = parse_variant_name(variant.name)
    return params.get("model") or (parts.model if parts else variant.name)


def best_under_budget(run: Any, budget_ms: float) -> dict[str, Any]:
    """Per model: the best level under ``budget_ms`` as :func:`perf.analysis.recommendation.recommend.best_under_budget`
    picks it (the report's own rule: medians over trials, stable levels first, failed and not
    achieved levels never), or ``None`` for a model with no such level. Failed variants are
    left out.

    Args:
        run: A :class:`perf.records.results.RunResult`.
        budget_ms: p99 latency budget (ms).

    Returns:
        ``{model: perf.analysis.stats.points.Point | None}``.
    """
    from perf.analysis.recommendation.recommend import best_under_budget as pick
    from perf.analysis.stats.points import run_points
    from perf.analysis.stats.trials import DEFAULT_TOLERANCE_PCT

    points = run_points(run)
    by_model: dict[str, list[Any]] = {}
    for v in run.variants:
        by_model.setdefault(_model_of(v), []).extend(points[v.name] if v.status != "failed" else [])
    tolerance = float(run.settings.get("stability_pct") or DEFAULT_TOLERANCE_PCT)
    return {model: pick(pts, budget_ms, tolerance) for model, pts in by_model.items()}


def compact_table(run: Any, budget_ms: float | None = None) -> str:
    """The sweep as plain text: one line per (variant, concurrency level, batch size).

    A level measured more than once (the rounds design measures it once a round; ``--trials``)
    is one line of medians over its measurements (:func:`perf.analysis.stats.points.run_points`,
    the report's own folding), ``n`` saying how many there were.
    Columns: variant, concurrency, n, throughput (infer/s), client p99 (ms), GPU utilisation
    (%) from the server's metrics (``nv_gpu_utilization``, via perf_analyzer or the
    metrics sampler) and from local NVML sampling, GPU memory used (MiB, peak of
    ``nv_gpu_memory_used_bytes``), and a note (the level's status when not ``ok``: ``unstable``, ``host busy``,
    ``not achieved``; ``over budget``; errors; ``b=N`` for a client batch other than 1).
    Missing numbers (no GPU metric on this host) print as ``-``. Below the table: the best
    variant per model under ``budget_ms``, and failed variants with their error.

    Args:
        run: A :class:`perf.records.results.RunResult`.
        budget_ms: p99 budget (ms); default the run's ``latency_budget_ms`` setting.
    """
    from perf.analysis.stats.points import run_points

    if budget_ms is None:
        budget_ms = run.settings.get("latency_budget_ms")
    points = run_points(run)
    width = max([len("variant")] + [len(v.name) for v in run.variants])
    head = (
        f"{'variant':<{width}} {'conc':>4} {'n':>3} {'infer/s':>9} {'p99 ms':>8} {'GPU% srv':>8} {'GPU% nvml':>9} "
        f"{'GPU MiB':>8}  note"
    )
    lines = [head, "-" * len(head)]
    for v in run.variants:
        pts = sorted(points[v.name], key=lambda pt: (pt.batch_size, pt.concurrency))
        if not pts:
            lines.append(
                f"{v.name:<{width}} {'':>4} {'':>3} {'-':>9} {'-':>8} {'-':>8} {'-':>9} {'-':>8}  "
                f"{v.status}{': ' + v.error if v.error else ''}"
            )
            continue
        for i, pt in enumerate(pts):
            name = v.name if i == 0 else ""
            mem = pt.get("gpu_memory_used_bytes")
            mib = None if mem is None else mem / 2**20
            p99 = pt.get("latency_p99_ms")
            note = []
            if not pt.ok:
                note.append(f"error: {(pt.errors[0] if pt.errors else 'no measurement')[:60]}")
            elif pt.status != "ok":  # unstable, host busy, not achieved
                note.append(pt.status)
            if pt.ok and budget_ms is not None and p99 is not None and p99 > budget_ms:
                note.append("over budget")
            if pt.batch_size != 1:
                note.append(f"b={pt.batch_size}")
            lines.append(
                f"{name:<{width}} {pt.concurrency:>4} {pt.trials:>3} {_fmt(pt.get('throughput_infer_per_s'), '.0f'):>9} "
                f"{_fmt(p99, '.2f'):>8} {_fmt(pt.get('gpu_utilization_pct'), '.0f'):>8} "
                f"{_fmt(pt.get('nvml_gpu_utilization_pct'), '.0f'):>9} {_fmt(mib, '.0f'):>8}  {', '.join(note)}".rstrip()
            )
    if budget_ms is not None:
        lines.append("")
        for model, hit in best_under_budget(run, budget_ms).items():
            if hit is None:
                lines.append(f"best {model} under p99 {budget_ms:g} ms: none (no level met the budget)")
            else:
                lines.append(
                    f"best {model} under p99 {budget_ms:g} ms: {hit.variant} at concurrency {hit.concurrency}: "
                    f"{hit.get('throughput_infer_per_s'):.0f} infer/s, p99 {hit.get('latency_p99_ms'):.2f} ms"
                )
    failed = [v for v in run.variants if v.status == "failed"]
    for v in failed:
        lines.append(f"failed: {v.name}: {v.error or 'no level produced a measurement'}")
    return "\n".join(lines)
