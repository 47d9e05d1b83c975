"""The serving-efficiency plot's legends sit outside the data (trial 9 F38: the right panel's legend,
at its lower right, hid the compute-output and client-recv segments of the two bottom bars)."""

from __future__ import annotations

from pathlib import Path

from perf.analysis.efficiency import efficiency_rows
from perf.plots import efficiency as plot_efficiency
from perf.records.baseline import BaselineKey, BaselinePoint, BaselineResult, BaselineSettings, BaselineTarget
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult

KEY = BaselineKey("m", "onnx", "fp32", "cpu", 2)


def _run(n: int, faster: int = 0) -> RunResult:
    """``n`` variants; the first ``faster`` of them served faster than in-process (a negative overhead)."""
    run = RunResult("r", "now", environment={"cpu_count": 2})  # type: ignore[typeddict-item]
    targets = []
    for i in range(n):
        name = f"m_onnx_cpu{i}_nodb_mbs8"
        levels = [
            LevelResult(
                c,
                throughput_infer_per_s=100.0 * c,
                latency_p50_ms=1.0,
                latency_p99_ms=2.0,
                avg_server_batch_size=1.0,
                client_send_us=300.0,
                network_server_us=600.0,
                server_queue_us=400.0,
                server_compute_input_us=50.0,
                server_compute_infer_us=100.0 if i < faster else 900.0,
                server_compute_output_us=500.0,
                client_recv_us=400.0,
                host_busy_pct=1.0,
            )
            for c in (1, 4)
        ]
        run.variants.append(VariantResult(name, status="ok", levels=levels))
        targets.append(BaselineTarget(name, KEY, 1, [1], "python"))
    point = BaselinePoint(KEY, 1, latency_p50_ms=0.5, latency_median_ms=0.5, throughput_infer_per_s=2000.0)
    point.rounds_ms, point.host_busy_pct, point.host_busy = [0.5] * 8, 2.0, False
    settings = BaselineSettings("timer", 0.1, 0.05, 3, 100, "inputs", 2, "rule", {}, rounds=8, host_busy_threshold_pct=10.0)
    run.baseline = BaselineResult("now", settings, targets, [point])
    return run


def test_no_legend_covers_a_bar_or_a_point(tmp_path: Path, keep_figures) -> None:
    figures = keep_figures(plot_efficiency)
    assert plot_efficiency.write_plot(efficiency_rows(_run(8)), tmp_path / "e.png") is not None
    (fig,) = figures
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        legend = ax.get_legend().get_window_extent(renderer)
        bars = [p.get_window_extent(renderer) for p in ax.patches if p.get_width() > 0 and p.get_height() > 0]
        points = [
            (x, y)
            for line in ax.get_lines()
            for x, y in ax.transData.transform(list(zip(line.get_xdata(), line.get_ydata(), strict=True)))
        ]
        assert not [b for b in bars if b.overlaps(legend)], ax.get_title()
        assert not [pt for pt in points if legend.contains(*pt)], ax.get_title()
        assert not ax.xaxis.label.get_window_extent(renderer).overlaps(legend)


def test_the_two_legends_stay_apart_and_no_swatch_repeats(tmp_path: Path, keep_figures) -> None:
    """Trial 17, T17-8: the left legend's "served faster" note ran into the right legend, and the
    negative-overhead note's empty bar showed the default blue of "network + protocol"."""
    figures = keep_figures(plot_efficiency)
    assert plot_efficiency.write_plot(efficiency_rows(_run(3, faster=1)), tmp_path / "e.png") is not None
    (fig,) = figures
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    left, right = (ax.get_legend() for ax in fig.axes)
    assert any("served faster" in t.get_text() for t in left.get_texts())
    assert any("negative overhead" in t.get_text() for t in right.get_texts())
    assert not left.get_window_extent(renderer).overlaps(right.get_window_extent(renderer))
    for legend in (left, right):
        assert fig.bbox.contains(*legend.get_window_extent(renderer).p0)
        assert fig.bbox.contains(*legend.get_window_extent(renderer).p1)
    for ax in fig.axes:
        colours = [
            tuple(h.get_facecolor()) for h in ax.get_legend().legend_handles if hasattr(h, "get_width") and h.get_visible()
        ]
        assert len(colours) == len(set(colours)), ax.get_title()
