"""request_rates.png rings its flagged (host busy) levels with the level plots' one mark, and the
ring's legend entry is drawn in black, not in the first series' colour (trial 7, F24 and F22);
read back from the matplotlib artists."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from factories import level_result, make_run, params, run_result, variant_result
from matplotlib.colors import to_hex

from perf.analysis.stats.points import run_points
from perf.plots import bars, figures
from perf.plots.canvas import RING_LABEL
from perf.records.levels import LevelResult

NAME = "t_onnx_cpu2_db500_mbs64"


def _axes(monkeypatch: pytest.MonkeyPatch, module) -> list:
    seen: list = []
    real = module.finish

    def spy(fig, axes, path):
        seen.extend(axes)
        return real(fig, axes, path)

    monkeypatch.setattr(module, "finish", spy)
    return seen


def _rings(ax) -> list[tuple[list[tuple[float, float]], str]]:
    """(points, edge colour) of each hollow scatter with points."""
    out = []
    for c in ax.collections:
        offsets = np.asarray(c.get_offsets())
        if len(offsets) and not len(c.get_facecolors()):
            out.append(([tuple(map(float, o)) for o in offsets], to_hex(c.get_edgecolors()[0])))
    return out


def _legend_ring(ax) -> str:
    legend = ax.get_legend() or ax.legend()
    (handle,) = [h for h, t in zip(legend.legend_handles, legend.get_texts()) if t.get_text() == RING_LABEL]
    return to_hex(handle.get_edgecolors()[0])


def test_request_rates_rings_its_host_busy_levels(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    levels = [
        LevelResult(
            0,
            4,
            t,
            throughput_infer_per_s=4 * rate,
            latency_p99_ms=8.0,
            request_rate=rate,
            achieved_rate_per_s=rate,
            host_busy=busy,
        )
        for rate, busy in ((100.0, True), (200.0, False))
        for t in range(3)
    ]
    run = run_result([variant_result(NAME, levels, params={"name": NAME})], finished="x")
    axes = _axes(monkeypatch, bars)
    assert bars.plot_request_rates(run, tmp_path / "request_rates.png") is not None
    (ax,) = axes
    rings = _rings(ax)
    assert [set(pts) for pts, _ in rings] == [{(100.0, 100.0)}]  # the host-busy level's visits, not the quiet one's
    assert _legend_ring(ax) == "#000000"


def test_the_level_plots_ring_legend_entry_is_black(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    run = make_run()
    for lv in run.variants[0].levels:
        lv.host_busy, lv.host_busy_pct = True, 55.0
    axes = _axes(monkeypatch, figures)
    figures.plot_metric(run_points(run), "throughput_infer_per_s", "infer/s", "throughput", tmp_path / "t.png")
    ax = axes[0]
    colours = {colour for _, colour in _rings(ax)}
    assert colours and "#000000" not in colours  # the rings: the series' colour
    assert _legend_ring(ax) == "#000000"  # its legend entry: no series' colour


def test_pick_markers_sit_above_the_points_and_full_utilisation_is_inside_the_frame(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Trial 7, F22: the best-peak marker hidden under the points; host CPU 100 % drawn on the top frame."""
    from perf.analysis.recommendation.recommend import recommend

    run = make_run()
    for v in run.variants:
        for lv in v.levels:
            lv.cpu_utilization_pct = 100.0
    points = run_points(run)
    axes = _axes(monkeypatch, figures)
    figures.plot_metric(points, "throughput_infer_per_s", "infer/s", "throughput", tmp_path / "t.png", rec=recommend(run))
    ax = axes[0]
    (pick,) = [ln for ln in ax.get_lines() if ln.get_marker() == "P"]  # the best-peak pick's marker
    assert pick.get_zorder() > max(c.get_zorder() for c in ax.collections)  # above every point and ring
    assert pick.get_zorder() > max(ln.get_zorder() for ln in ax.get_lines() if ln is not pick)
    axes.clear()
    figures.plot_utilisation(points, tmp_path / "u.png")
    assert axes[0].get_ylim()[1] > 100.0 * 1.03  # the 100 % points sit inside the frame


def test_request_rates_draws_each_series_in_its_colour_of_the_level_plots(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Trial 15, T15-4 (the kind): a series has one colour in every plot of a run. request_rates.png coloured its
    series by their place among the series with a request rate: the second variant of the run, the only one
    swept by rate, was drawn in the first one's colour."""
    a, b = params(1), params(2, True)
    rated = [
        LevelResult(0, 1, t, throughput_infer_per_s=rate, latency_p99_ms=5.0, request_rate=rate, achieved_rate_per_s=rate)
        for rate in (100.0, 200.0)
        for t in range(3)
    ]
    by_load = [level_result(c, 100.0 * c, 2.0 * c) for c in (1, 2)]
    run = run_result(
        [variant_result(a["name"], by_load, params=a), variant_result(b["name"], [*by_load, *rated], params=b)], finished="x"
    )
    axes = _axes(monkeypatch, figures)
    figures.plot_metric(run_points(run), "throughput_infer_per_s", "infer/s", "throughput", tmp_path / "t.png")
    curves = {c.get_label(): to_hex(c.lines[0].get_color()) for c in axes[0].containers}
    assert len(set(curves.values())) == 2
    rates = _axes(monkeypatch, bars)
    assert bars.plot_request_rates(run, tmp_path / "request_rates.png") is not None
    drawn = {c.get_label(): to_hex(c.lines[0].get_color()) for c in rates[-1].containers}
    assert drawn == {b["name"]: curves[b["name"]]}
