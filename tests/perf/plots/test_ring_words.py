"""One legend wording for the ring round a flagged level in every plot of a run, and a plot's words for a level's
flags are the tables' (trial 28, T28-6): small_multiples.png said "ring: a flagged level behind the point † host
busy" of levels the tables call "host busy; unstable" (the worst flag of :attr:`Point.status` where the tables
say :attr:`Point.flags`), the curve plots "flagged level: unstable or host busy (ring)" or "(ring, †)", the
request-rate plot "(ring)"; the Pareto plot's grey levels said "† host busy" of them too. Read back from the
matplotlib artists of the report's own plots."""

from __future__ import annotations

from pathlib import Path

from synthetic_runs import synthetic_run

from perf.analysis.recommendation.recommend import recommend
from perf.analysis.stats.points import run_points
from perf.markdown import flag_mark
from perf.plots import canvas, small_multiples
from perf.plots import figures as plots
from perf.plots.canvas import RING_LABEL
from perf.records.levels import SPREAD_NOTE

GRID_8 = {"formats": ("onnx", "torchscript"), "counts": (1, 2), "delays": (None, 500), "mbs": (64,)}


def _legend_texts(fig) -> list[str]:
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes)]
    return [t.get_text().replace("\n", " ") for lg in legends if lg is not None for t in lg.get_texts()]


def test_every_plot_words_the_ring_alike_and_a_level_s_flags_as_the_tables(tmp_path: Path, keep_figures) -> None:
    run = synthetic_run(GRID_8, concurrency=(1, 2, 4, 8))
    for v in run.variants:  # every level host busy, and unstable in a round too: "host busy; unstable" in the tables
        for lv in v.levels:
            lv.host_busy, lv.host_busy_pct = True, 60.0
            lv.notes = [*lv.notes, f"{SPREAD_NOTE} 20 % (more than ±10 %)"]
    flags = {p.flags for pts in run_points(run).values() for p in pts}
    assert flags == {"host busy; unstable"}
    kept = keep_figures(canvas)
    keep_figures(small_multiples)
    made = plots.write_plots(run, tmp_path, latency_budget_ms=40.0, rec=recommend(run, 40.0))
    assert "Throughput by factor (small multiples)" in made
    texts = [t for fig in kept for t in _legend_texts(fig)]
    rings = {t for t in texts if "ring" in t}
    assert rings == {RING_LABEL}, rings  # before: three wordings, one of them "† host busy"
    assert sum(RING_LABEL in _legend_texts(fig) for fig in kept) >= 5  # the curves, utilisation, small multiples
    marked = [t for t in texts if "†" in t and t != RING_LABEL]
    assert marked and all(flag_mark("host busy; unstable") in t for t in marked), marked  # before: "levels (...) † host busy"
