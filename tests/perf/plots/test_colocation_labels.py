"""The co-location trade-off plot labels its points by the rule every labelled plot keeps
(:func:`perf.plots.canvas.place_labels`): a label that fits nowhere is left out and the legend says how many,
and a label never sits nearer another combination's point than its own (trial 19, T19-9: of five combinations
one point had no label and nothing said so, while pareto_frontier.png did; a one-line label below and left of its
point ran under the next point). Read back from the plot's artists."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from perf.plots.canvas import NEARER_X
from perf.plots.colocation import plot_tradeoff
from perf.records.colocation import ColocatedModel, ColocationRecord, SearchStep
from perf.records.colocation_measured import ColocationVisit, ModelSample

#: Trial 19's run c19a: (ranker variant, mlp variant) -> weighted infer/s, ranker p99 ms (budget 10), mlp p99 ms (budget 25).
C19A = {
    ("ranker_onnx_cpu2_nodb_mbs64", "mlp_onnx_cpu2_db500_mbs64"): (1633.1, 10.96, 24.38),
    ("ranker_onnx_cpu2_nodb_mbs64", "mlp_onnx_cpu2_nodb_mbs64"): (1330.5, 18.31, 25.67),
    ("ranker_onnx_cpu2_db500_mbs64", "mlp_onnx_cpu2_nodb_mbs64"): (784.8, 24.80, 30.79),
    ("ranker_onnx_cpu1_db500_mbs64", "mlp_onnx_cpu2_nodb_mbs64"): (750.3, 34.95, 58.31),
    ("ranker_onnx_cpu1_nodb_mbs64", "mlp_onnx_cpu2_nodb_mbs64"): (744.6, 31.40, 37.37),
}


def _record() -> ColocationRecord:
    names = {m: sorted({k[i] for k in C19A}) for i, m in enumerate(("ranker", "mlp"))}
    models = [
        ColocatedModel("ranker", names["ranker"], 4, latency_budget_ms=10.0),
        ColocatedModel("mlp", names["mlp"], 2, latency_budget_ms=25.0),
    ]
    combos = [{"ranker": r, "mlp": m} for r, m in C19A]
    visits = [
        ColocationVisit(
            0,
            r,
            o,
            dict(c),
            [
                ModelSample("ranker", c["ranker"], weighted - 100.0, ranker_p99),
                ModelSample("mlp", c["mlp"], 100.0, mlp_p99),
            ],
            wall_s=1.0,
        )
        for o, (c, (weighted, ranker_p99, mlp_p99)) in enumerate(zip(combos, C19A.values()))
        for r in range(3)
    ]
    steps = [SearchStep(0, "move", "ranker", dict(combos[0]), combos, 3)]
    return ColocationRecord("c19a", "now", "repo", models, steps=steps, visits=visits)


def test_every_point_is_labelled_or_counted_and_no_label_sits_nearer_another_point(tmp_path: Path, kept_figures: list):
    assert plot_tradeoff(_record(), tmp_path / "c.png") is not None
    (fig,) = kept_figures
    (ax,) = fig.axes
    renderer = fig.canvas.get_renderer()
    points = np.array([xy for line in ax.get_lines() if line.get_marker() == "x" for xy in line.get_xydata()])
    assert len(points) == len(C19A)
    labels = [t for t in ax.texts if "(step " in t.get_text()]
    notes = [line.get_label() for line in ax.get_lines() if " left out " in line.get_label()]
    left_out = len(C19A) - len(labels)
    if left_out:  # the legend counts what the plot could not label (trial 19: one point, said nowhere)
        (note,) = notes
        assert note.startswith(f"{left_out} combination label") and "Every combination measured" in note
    else:
        assert not notes
    display = ax.transData.transform(points)
    for t in labels:
        box = t.get_window_extent(renderer)
        own = ax.transData.transform(t.xy)
        dist = [
            np.hypot(max(box.x0 - x, x - box.x1, 0.0), max(box.y0 - y, y - box.y1, 0.0))
            for x, y in display
            if np.hypot(x - own[0], y - own[1]) >= 0.5
        ]
        mine = np.hypot(max(box.x0 - own[0], own[0] - box.x1, 0.0), max(box.y0 - own[1], own[1] - box.y1, 0.0))
        assert min(dist) >= NEARER_X * mine, t.get_text()  # read as its own point's, not a neighbour's
