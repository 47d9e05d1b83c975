"""The sweep's console table explains every mark it shows and only those (trial 9): each † is named
in its row's note (F16: unstable rows carried a bare †), a note says "peak not reached" once (F23:
a size's pick said it, then the row again), and the legend lists only what the table shows (F3:
"b: client batch size" under a table with no b)."""

from __future__ import annotations

from factories import run_result, variant_result
from rich.console import Console
from tables import table_rows

from perf.cli.summary import summary_table
from perf.records.levels import LevelResult


def _text(run, width: int = 400) -> str:
    console = Console(width=width, record=True)
    console.print(summary_table(run))
    return console.export_text()


def _rows(text: str) -> dict[str, str]:
    """Variant name -> its row (a wide console: one line each)."""
    return {k: " ".join(cells) for k, cells in table_rows(text).items()}


def _levels(thr: float, *, stable: bool = True, busy: bool = False, batch: int = 1, shape: str | None = None):
    return [
        LevelResult(
            c, batch, t, throughput_infer_per_s=thr * c, latency_p99_ms=1.0 * c, stable=stable, host_busy=busy, shape=shape
        )
        for c in (1, 4)
        for t in range(3)
    ]


def test_an_unstable_level_is_named_in_its_note_and_the_legend_has_no_b():
    run = run_result(
        [
            variant_result("a", _levels(100.0, stable=False)),
            variant_result("b", _levels(200.0, busy=True)),
            variant_result("c", _levels(50.0)),
        ],
        finished="x",
    )
    text = _text(run)
    rows = _rows(text)
    assert "4 †" in rows["a"] and "† unstable" in rows["a"]  # F16: was a bare †
    assert "† host busy" in rows["b"]
    assert "†" not in rows["c"]
    legend = " ".join(text.split("└")[1].split())
    assert "b: client batch size" not in legend  # F3: no b in the table
    assert "unstable: perf_analyzer did not reach a stable measurement" in legend and "host busy: other processes" in legend


def test_the_legend_names_b_only_when_a_level_shows_it_and_no_flag_kind_it_does_not_show():
    run = run_result([variant_result("a", _levels(100.0, batch=4)), variant_result("b", _levels(50.0, busy=True))], finished="x")
    legend = " ".join(_text(run).split("└")[1].split())
    assert "b: client batch size" in legend
    assert "host busy: other processes" in legend and "unstable:" not in legend
    quiet = run_result([variant_result("a", _levels(100.0)), variant_result("b", _levels(50.0))], finished="x")
    assert "†" not in " ".join(_text(quiet).split("└")[1].split())


def test_a_sizes_pick_says_peak_not_reached_once_and_its_flag():
    levels = _levels(100.0, busy=True, shape="time=16") + _levels(80.0, shape="time=512")
    run = run_result([variant_result("v", levels)], finished="x", settings={"latency_budget_ms": 10.0})
    rows = _rows(_text(run, 600))
    note = rows["v [time=16]"]
    assert note.count("peak not reached") == 1  # F23: twice in one cell
    assert "for time=16 clients (c=4 † host busy)" in note
