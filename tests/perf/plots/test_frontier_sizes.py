"""pareto_frontier.png of a shape sweep (trial 9, F31), read back from the matplotlib artists: one
frontier per input size (its own colour and line style, its own legend entry), never one staircase
through the levels of every size; variants counted by name, not by series (the two sizes of one
variant are one variant); and no label covers a point (a grey level was hidden under a frontier
label). Numbers shaped like the trial's run fc4 (``--shapes time=16,512``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from factories import level_result, params, run_result, variant_result

from perf.analysis.recommendation.frontier import frontier_section, frontier_summary, operating_frontier
from perf.analysis.recommendation.recommend import recommend
from perf.analysis.stats.points import run_points
from perf.plots import frontier as plot_frontier

NODB, DB = "forecaster_onnx_cpu2_nodb_mbs64", "forecaster_onnx_cpu2_db500_mbs64"
#: Series -> ((p99 ms, infer/s) at c=1, at c=4): fc4's medians.
FC4 = {
    f"{NODB} [time=16]": ((4.52, 1199.5), (7.16, 1874.3)),
    f"{NODB} [time=512]": ((6.16, 813.9), (8.84, 1313.0)),
    f"{DB} [time=16]": ((7.15, 460.0), (9.86, 1325.8)),
    f"{DB} [time=512]": ((7.8, 490.0), (13.57, 907.0)),
}


def _run():
    variants = []
    for name, levels in FC4.items():
        lv = [
            level_result(c, thr, p99, spread=True, batch_size=1, host_busy=True, host_busy_pct=40.0)  # as in fc4: †
            for c, (p99, thr) in zip((1, 4), levels)
        ]
        variants.append(variant_result(name, lv, params={**params(2, "db500" in name, model="forecaster"), "name": name}))
    return run_result(variants)


def test_one_frontier_per_input_size_each_a_staircase_of_its_own(tmp_path: Path, kept_figures: list) -> None:
    run = _run()
    points = run_points(run)
    drawn = plot_frontier.plot_frontier(points, tmp_path / "f.png", recommend(run, 10.0))
    assert drawn is not None
    (panel,) = drawn.values()
    fronts = {k: v for k, v in panel.items() if k.startswith("Pareto frontier")}
    assert sorted(fronts) == [  # before: one "Pareto frontier (4 levels)" through both sizes
        "Pareto frontier at time=16 (2 levels of 1 variant): nothing at time=16 beats them on both",
        "Pareto frontier at time=512 (2 levels of 1 variant): nothing at time=512 beats them on both",
    ]
    for label, (xs, ys) in fronts.items():
        size = label.split(" ")[3]
        p99s, thrs = zip(*FC4[f"{NODB} [{size}]"])
        assert (xs, ys) == (list(p99s), list(thrs))
        assert all(b >= a for a, b in zip(ys, ys[1:]))  # a frontier never steps down as p99 rises
    (fig,) = kept_figures
    (ax, *_) = fig.axes
    lines = [ln for ln in ax.get_lines() if ln.get_label().startswith("Pareto frontier")]
    # told apart by their line style; their colour is no series' (trial 15, T15-4: a frontier in a colour of its
    # own was read as the series of that colour in the other plots); their points are in their series' (test_series_colours)
    assert {ln.get_color() for ln in lines} == {plot_frontier.FRONTIER_COLOUR} and len({ln.get_linestyle() for ln in lines}) == 2
    # the grey levels: 8 levels of 2 variants (the sizes named), not "4 variants"
    assert [k for k in panel if k.startswith("every level")] == [
        "every level (8 levels of 2 variants at 2 input sizes (time=16, time=512)) † host busy"
    ]


def test_no_label_covers_a_point(tmp_path: Path, kept_figures: list) -> None:
    """fc4's grey db500 [time=16] c=4 level (1,325.8 infer/s at 9.86 ms) sat under the label of the
    time=512 c=4 frontier level."""
    run = _run()
    plot_frontier.plot_frontier(run_points(run), tmp_path / "f.png", recommend(run, 10.0))
    (fig,) = kept_figures
    (ax, *_) = fig.axes
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    marks = [  # (x, y, radius) in display pixels: every marker drawn
        (x, y, ln.get_markersize() * fig.dpi / 72 / 2)
        for ln in ax.get_lines()
        if ln.get_marker() not in (None, "None", "") and len(ln.get_xdata())
        for x, y in ln.get_transform().transform(np.column_stack([ln.get_xdata(), ln.get_ydata()]))
    ]
    texts = [t for t in ax.texts if t.get_text()]
    assert len(texts) == 4  # every frontier level labelled
    for t in texts:
        box = t.get_window_extent(renderer)
        covered = [(x, y) for x, y, r in marks if box.x0 < x + r and x - r < box.x1 and box.y0 < y + r and y - r < box.y1]
        assert not covered, f"{t.get_text()!r} covers a point"


def test_the_frontier_text_counts_variants_by_name_and_names_the_sizes() -> None:
    run = _run()
    points = run_points(run)
    rec = recommend(run, 10.0)
    words = "4 levels of 1 variant at 2 input sizes (time=16, time=512)"  # before: "4 levels of 2 variants"
    assert words in frontier_summary(points, rec)
    section = "\n".join(frontier_section(points, rec))
    assert words in section and "one frontier per input size, never compared across input sizes, each lowest p99 first" in section
    rows = [ln for ln in section.splitlines() if ln.startswith("| `")]
    assert [r.split("`")[1] for r in rows] == [f"{NODB} [time=16]"] * 2 + [f"{NODB} [time=512]"] * 2  # grouped by size
    assert len(operating_frontier(points)) == 4


def test_what_was_compared_counts_the_variants_not_their_sizes() -> None:
    """The same mistake in the conclusions: fc4's "4 variants of model `forecaster`" were 2 at 2 sizes."""
    from perf.records.workloads import series_name, split_by_workload
    from perf.report.conclusions.written import conclusions

    variants = []
    for name in (NODB, DB):
        lv = [
            level_result(c, thr, p99, spread=True, batch_size=1, shape=size)
            for size in ("time=16", "time=512")
            for c, (p99, thr) in zip((1, 4), FC4[series_name(name, size)])
        ]
        variants.append(variant_result(name, lv, params=params(2, "db500" in name, model="forecaster")))
    run = split_by_workload(run_result(variants))
    assert len(run.variants) == 4
    text = "\n".join(conclusions(run, recommend(run, 10.0)))
    assert "**What was compared.** 2 variants at 2 input sizes (time=16, time=512) of model `forecaster`" in text


def test_what_was_compared_names_variants_as_variant_name_does() -> None:
    """The count of variants is :func:`perf.records.workloads.variant_name`'s: a series whose name
    lacks the `` [size]`` tail keeps its whole name (the count once cut characters off it blindly,
    and "ab" and "cd" at time=16 were "1 variant")."""
    import dataclasses

    from perf.records.workloads import split_by_workload
    from perf.report.conclusions.written import conclusions

    variants = [
        variant_result(name, [level_result(1, 100.0, 5.0, spread=True, batch_size=1, shape="time=16")], params=params(2, False))
        for name in ("ab", "cd")
    ]
    run = split_by_workload(run_result(variants))
    run = dataclasses.replace(run, variants=[dataclasses.replace(v, name=n) for v, n in zip(run.variants, ("ab", "cd"))])
    text = "\n".join(conclusions(run, recommend(run, None)))
    assert "**What was compared.** 2 variants at 1 input size (time=16)" in text
