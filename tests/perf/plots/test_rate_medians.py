"""request_rates.png draws each request-rate level at the number the report's table gives it: the
median over its rounds, with their min–max as an error bar (trial 11, F22: the line ran through
every round's point, ending at the worst round's 828 req/s with a second ring at 997 joined by a
vertical segment, while the table said "997.4 [827.4–998.5]"). Read back from the artists."""

from __future__ import annotations

import re
import statistics
from pathlib import Path

import pytest
from factories import run_result, variant_result
from matplotlib.collections import LineCollection

from perf.plots import bars
from perf.records.levels import LevelResult
from perf.report.sections.tables import request_rate_table

#: variant -> client batch size -> offered rate (requests/s) -> achieved rate of each round (the trial's numbers)
TRIAL = {
    "t_onnx_cpu1_db500_mbs64": {1: {500.0: (498.4, 498.8, 498.9), 1000.0: (827.4, 997.4, 998.5)}},
    "t_onnx_cpu1_nodb_mbs64": {1: {500.0: (491.8, 499.2, 499.6), 1000.0: (878.9, 996.4, 999.3)}},
}
#: The same with a second client batch size: a series of its own, never joined to b=1's
TWO_SIZES = {**TRIAL, "t_onnx_cpu1_nodb_mbs64": {**TRIAL["t_onnx_cpu1_nodb_mbs64"], 8: {500.0: (499.0, 500.0, 470.0)}}}


def _run(achieved: dict):
    variants = [
        variant_result(
            name,
            [
                LevelResult(0, bs, r, throughput_infer_per_s=bs * a, latency_p99_ms=5.0, request_rate=rate, achieved_rate_per_s=a)
                for bs, rates in sizes.items()
                for rate, rounds in rates.items()
                for r, a in enumerate(rounds)
            ],
            params={"name": name},
        )
        for name, sizes in achieved.items()
    ]
    return run_result(variants, finished="x")  # trials, not rounds: the words say "trials"


def _table_cells(run) -> dict[tuple[str, int, float], str]:
    """``{(variant, batch, offered): achieved cell}`` of the report's request-rate table."""
    rows = [ln for ln in request_rate_table(run) if ln.startswith("| `")]
    cells = {}
    for row in rows:
        name, offered, batch, _, achieved = [c.strip() for c in row.strip("|").split("|")][:5]
        cells[(name.strip("`"), int(batch), float(offered.replace(",", "")))] = achieved
    return cells


@pytest.mark.parametrize("achieved", [TRIAL, TWO_SIZES], ids=["one batch size", "two batch sizes"])
def test_the_lines_run_through_the_tables_medians_with_min_max_bars(tmp_path: Path, kept_figures: list, achieved: dict) -> None:
    run = _run(achieved)
    assert bars.plot_request_rates(run, tmp_path / "request_rates.png") is not None
    (fig,) = kept_figures
    (ax,) = fig.axes
    cells = _table_cells(run)
    assert len(cells) == sum(len(rates) for sizes in achieved.values() for rates in sizes.values())
    for name, sizes in achieved.items():
        for bs, rates in sizes.items():
            label = name + (f" (b={bs})" if achieved is TWO_SIZES else "")  # a series per client batch size
            (line,) = [c.lines[0] for c in ax.containers if c.get_label() == label]  # an errorbar's data line
            xs, ys = [float(x) for x in line.get_xdata()], [float(y) for y in line.get_ydata()]
            assert xs == sorted(rates)  # one point per level, not one per round
            assert ys == [statistics.median(rates[r]) for r in sorted(rates)]
            for x, y in zip(xs, ys):  # the table's median is the point's y
                median = float(re.match(r"[\d,.]+", cells[(name, bs, x)]).group().replace(",", ""))
                assert abs(median - y) < 0.05
    bars_drawn = {
        (round(float(a[0]), 3), round(float(a[1]), 3), round(float(b[1]), 3))
        for c in ax.collections
        if isinstance(c, LineCollection)
        for a, b in c.get_segments()
    }
    for sizes in achieved.values():
        for rates in sizes.values():
            for rate, rounds in rates.items():
                if len(set(rounds)) > 1:
                    assert (rate, min(rounds), max(rounds)) in bars_drawn  # the min–max bar
    words = ax.get_ylabel() + ax.get_title()
    assert "median over trials" in words and "min–max" in words
