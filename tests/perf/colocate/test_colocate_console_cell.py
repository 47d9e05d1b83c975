"""The console's "each model alone and co-located" table keeps its ratio cell short (trial 17, T17-7: the
report's 30-word sentence in a 12-character column wrapped into 13 lines a model); the caption says what
the short cell's numbers are."""

from __future__ import annotations

import io

from rich.console import Console

from perf.analysis.stats.paired import CELL_WORDS, paired
from perf.cli.colocate import neighbour_table
from perf.colocate.neighbours import Neighbours

TOGETHER = [210.0, 190.0, 200.0, 202.0, 180.0, 240.0]
ALONE = [300.0, 290.0, 310.0, 293.0, 280.0, 260.0]


def test_the_ratio_cell_fits_a_row_or_two() -> None:
    p = paired(TOGETHER, ALONE)
    assert p is not None
    cell = p.cell()
    assert cell.startswith(f"{p.median:.3g}×, ") and f"{p.wins}/{p.rounds} ahead" in cell
    assert f"{p.decided_p:.2g}" in cell
    word = {"higher": "higher", "lower": "lower"}.get(p.verdict, "not told apart")
    assert word in cell or "not called" in cell  # the rule's verdict, as the report says it
    rows = [Neighbours(m, f"{m}_onnx_cpu2_db500_mbs64", 293.0, 202.0, p, 39.19, 870.0, 6842.0) for m in ("sig", "mlp")]
    out = io.StringIO()
    Console(file=out, width=120, color_system=None).print(neighbour_table(rows))
    text = out.getvalue()
    body = [ln for ln in text.splitlines() if "│" in ln and "model" not in ln]
    assert all(r.variant in text for r in rows), text  # the names whole
    assert len(body) <= 3 * len(rows) + 2, text  # three lines a model at most (13 before), the header's two aside
    assert all(ln.rstrip().endswith(("│", "┃")) for ln in text.splitlines() if "│" in ln)  # no column cut off
    assert "co-located / alone, per round:" in " ".join(text.split()) and CELL_WORDS.split()[0] in text


def test_a_ratio_cell_says_which_over_which_and_the_medians_ratio_where_the_rounds_disagree() -> None:
    """Trial 18, T18-8: "co-located / alone 1.15× not told apart" beside alone 48 and co-located 44 (44/48 = 0.92): the
    cell was the median of the per-round ratios under a label that reads as the ratio of the medians beside it."""
    together, alone = [44.0, 35.0, 65.0], [48.0, 30.0, 60.0]  # per round 0.917, 1.17, 1.08: median 1.08
    p = paired(together, alone)
    assert p is not None and p.median > 1
    row = Neighbours("segnet", "segnet_onnx_cpu2_nodb_mbs8", 48.0, 44.0, p, 39.0, 870.0, 6842.0)
    agree = Neighbours("mlp", "mlp_onnx_cpu2_nodb_mbs64", 300.0, 202.0, paired(TOGETHER, ALONE), 39.0, 870.0, 6842.0)
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(neighbour_table([row, agree]))
    text = " ".join(out.getvalue().replace("│", " ").split())
    assert "co-located / alone, per round" in text  # the label says what the value is: the per-round median
    assert "44.0 / 48.0 = 0.917×" in text  # and the ratio of the two numbers beside it, which points the other way
    assert text.count("medians' ratio") == 1  # only where the two disagree
    for short in (True, False):  # the console's cell and the report's
        assert row.ratio_words(short).endswith("; the medians' ratio 44.0 / 48.0 = 0.917×")
        assert "medians' ratio" not in agree.ratio_words(short)
