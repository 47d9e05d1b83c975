"""README's example console table says what the code prints for its cells (trial 27, T27-7: README said the best under
budget's row "shows the pick's own level (within it)" beside its own example's `mlp_onnx_cpu2_db500_mbs64` row at c=16,
over the 25 ms budget, the pick's c=8 only in the note, and its legend lacked the words the code prints for a note
"best under budget (c=N ...)"). The code's rule: a budget pick that is the best peak too keeps the peak's level in its
row, the pick's own level and numbers opening the note."""

from __future__ import annotations

from pathlib import Path

from factories import rounds_run
from rich.console import Console

from perf.cli.summary import summary_table
from perf.cli.summary_legend import summary_legend

README = Path(__file__).resolve().parents[3] / "README.md"


def _example() -> tuple[list[list[str]], str]:
    """README's example table: its rows' cells (a row's wrapped lines joined) and its legend, each in one line."""
    block = README.read_text().split("Sweep demo-20261203-153220 — p99 budget of 25.00 ms")[1].split("```")[0]
    lines = block.splitlines()
    rows: list[list[str]] = []
    for ln in (ln for ln in lines if ln.startswith("│")):
        cells = [c.strip() for c in ln.split("│")[1:-1]]
        if cells[0]:
            rows.append(cells)
        else:
            rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells)]
    legend = " ".join(" ".join(lines[next(i for i, ln in enumerate(lines) if ln.startswith("└")) + 1 :]).split())
    return rows, legend


def test_the_examples_legend_is_the_codes_for_its_cells() -> None:
    rows, legend = _example()
    cells = " ".join(c for r in rows for c in r[1:])
    assert legend == summary_legend(cells, 99, False, rounds_run({4: {0: 1.0}}), (0, 0, 0), 10)


def test_the_examples_pick_row_is_what_the_code_shows_for_a_pick_that_is_the_best_peak_too() -> None:
    rows, _ = _example()
    (pick,) = [r for r in rows if "best under budget" in r[-1]]
    assert "best measured" in pick[-1] or "best peak" in pick[-1]  # the pick is the best peak too
    assert pick[2].split()[0] == "16" and pick[-1].startswith(
        "best under budget (c=8 "
    )  # the peak's level; the pick's in the note
    # the code, for the same case (the one variant: its c=16 over a 30 ms budget the best level, c=4 within it)
    c4 = {0: 1900.0, 1: 1900.0, 2: 1900.0, 3: 1700.0, 4: 1700.0, 5: 1700.0}  # c=16 ahead in the 3 rounds they share
    run = rounds_run({1: dict.fromkeys(range(6), 600.0), 4: c4, 16: {3: 1750.0, 4: 1760.0, 5: 1770.0}})
    console = Console(record=True, width=500)
    console.print(summary_table(run, 30.0))
    row = next(ln for ln in console.export_text().splitlines() if ln.startswith("│ v "))
    at, note = row.split("│")[3].strip(), row.split("│")[6].strip()
    assert at == "16" and note.startswith("best under budget (c=4: ")
    said = " ".join(README.read_text().split())
    assert "except where that variant is the best peak too: its row then shows the peak's level" in said
