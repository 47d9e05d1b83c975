"""A pick's legend entry never sits under a higher median without saying why (trial 17, T17-17: the Pareto plot's
"best measured throughput: mlp_onnx_cpu2_db500_mbs64 c=4" at 421.8 infer/s below mlp_onnx_cpu1_db500_mbs64 c=4 at
469.0, the report's reason, the paired rounds, not on the plot). Read back from the matplotlib artists."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from factories import make_run

from perf.analysis.recommendation.excluded import candidate
from perf.analysis.recommendation.recommend import recommend
from perf.analysis.stats.points import THROUGHPUT, run_points
from perf.plots import frontier as plot_frontier

RIVAL = "`{v}`'s median higher, {t:,.1f}: the pick ahead in 2 of 2 shared rounds"


def _lower_pick(rivals: bool):
    """The run, its points and a recommendation whose best peak is the best level of another variant than the
    highest median's, as a paired ranking names it (with ``rivals``: the recommendation's why)."""
    run = make_run()
    points = run_points(run)
    rec = recommend(run, None)
    every = sorted((p for pts in points.values() for p in pts if candidate(p)), key=lambda p: -p.value(THROUGHPUT))
    top = every[0]
    second = next(p for p in every if p.variant != top.variant)
    assert rec.best_peak is not None
    said = [RIVAL.format(v=top.variant, t=top.value(THROUGHPUT))] if rivals else []
    rec.best_peak = dataclasses.replace(
        rec.best_peak,
        variant=second.variant,
        concurrency=second.concurrency,
        throughput_infer_per_s=second.value(THROUGHPUT),
        latency_ms={99: second.value("latency_p99_ms")},
        rivals=said,
        level_why=None,
        unreached=None,
    )
    return points, rec, top, second


def _legend(kept_figures: list) -> list[str]:
    (fig,) = kept_figures
    (ax,) = fig.axes
    return [t.get_text().replace("\n", " ") for t in ax.get_legend().get_texts()]


def test_the_peak_entry_says_why_a_higher_median_is_not_the_pick(tmp_path: Path, kept_figures: list) -> None:
    points, rec, top, second = _lower_pick(rivals=True)
    plot_frontier.plot_frontier(points, tmp_path / "f.png", rec)
    (entry,) = [t for t in _legend(kept_figures) if t.startswith("best peak throughput: ")]
    assert f"{second.variant} c={second.concurrency}" in entry
    assert f"{top.variant}'s median higher" in " ".join(entry.split()) and "ahead in 2 of 2 shared rounds" in entry


def test_a_higher_median_the_recommendation_does_not_explain_is_named(tmp_path: Path, kept_figures: list) -> None:
    points, rec, top, second = _lower_pick(rivals=False)
    plot_frontier.plot_frontier(points, tmp_path / "f.png", rec)
    legend = " ".join(" ".join(_legend(kept_figures)).split())
    assert "higher medians than the best peak throughput's" in legend
    assert f"{top.variant} c={top.concurrency}" in legend and f"{top.value(THROUGHPUT):,.1f} infer/s" in legend
