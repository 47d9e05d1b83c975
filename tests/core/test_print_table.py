"""Tables printed through :func:`core.cli.print_table` off a terminal (issue 26): at ``COLUMNS``
where it is set, else at a sane width, cells wrapped, nothing cut."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console
from rich.table import Table

from core.cli import print_table

#: A sane width for a table in a CI log (characters): what `-h` uses.
SANE_WIDTH = 120

WHY = (
    "served by the python backend, which runs its own ONNX Runtime, not the release's; "
    "the release's limits apply to repositories written with --serving native"
)


def _table() -> Table:
    t = Table(title="checks not run", show_lines=True)
    for col in ("file", "check", "why", "what to do"):
        t.add_column(col)
    for i in range(3):
        t.add_row(
            f"model_{i}/1/model.onnx", "ONNX limits of Triton 24.10 (ONNX Runtime 1.19.2)", WHY, "verify it where it is served"
        )
    return t


def _printed(monkeypatch: pytest.MonkeyPatch, columns: str | None) -> list[str]:
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    out = io.StringIO()
    print_table(_table(), Console(file=out))
    return out.getvalue().splitlines()


def test_a_piped_table_wraps_to_a_sane_width(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _printed(monkeypatch, None)
    assert max(len(line) for line in lines) <= SANE_WIDTH  # was ~290 characters
    text = " ".join(lines)
    assert "…" not in text
    for word in WHY.split():  # every word of the longest cell is there, none cut
        assert word in text


def test_a_piped_table_honours_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _printed(monkeypatch, "80")
    assert max(len(line) for line in lines) <= 80
    assert "…" not in " ".join(lines)


def test_a_narrow_table_is_drawn_at_its_own_width(monkeypatch: pytest.MonkeyPatch) -> None:
    t = Table()
    t.add_column("a")
    t.add_row("1")
    out = io.StringIO()
    monkeypatch.delenv("COLUMNS", raising=False)
    print_table(t, Console(file=out))
    assert max(len(line) for line in out.getvalue().splitlines()) < 10


def test_an_unbreakable_column_is_never_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "40")
    t = Table()
    t.add_column("variant", no_wrap=True)
    t.add_column("note")
    t.add_row("a_variant_name_of_fifty_characters_long_enough_xx", "wrapped as needed")
    out = io.StringIO()
    print_table(t, Console(file=out))
    assert "a_variant_name_of_fifty_characters_long_enough_xx" in out.getvalue()


def test_a_table_too_wide_for_the_terminal_wraps_and_loses_no_column() -> None:
    """On a narrow terminal rich cropped the one-line columns and dropped the last ones (the
    baseline table's numbers, the summary's note): every column wraps instead."""
    t = Table()
    t.add_column("variant", no_wrap=True)
    for col in ("peak infer/s", "p99 ms"):
        t.add_column(col, justify="right", no_wrap=True)
    t.add_column("note")
    cells = ["mlp_onnx_cpu1_db500_mbs64", "1,234.5", "12.34", "best under budget; failed: the server died"]
    t.add_row(*cells)
    out = io.StringIO()
    print_table(t, Console(file=out, width=40, force_terminal=True, color_system=None))
    lines = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue()).splitlines()
    assert max(len(line) for line in lines) <= 40
    body = [line.strip("│").split("│") for line in lines if line.startswith("│")]
    assert len(body[0]) == 4  # no column dropped
    for i, cell in enumerate(cells):  # each cell whole, read down its column
        assert "".join(row[i].strip() for row in body) == cell.replace(" ", "")


def test_a_piped_table_folds_no_word_while_its_longest_words_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    # the trial: builders validate at COLUMNS=60 folded a flag (`--load-artifac`/`ts`) and a path mid-word
    monkeypatch.setenv("COLUMNS", "60")
    path = "mlp_ts_cpu1_db500_mbs64/1/model.pt"
    t = Table(title="checks not run")
    for col in ("files", "check", "why", "what to do"):
        t.add_column(col)
    t.add_row(
        f"8 files: {path} and 7 more", "torchscript load", WHY + "; pass --load-artifacts to load it", "pass --load-artifacts"
    )
    t.add_row(".", "target server limits", WHY, "pass --target-triton with the serving container tag (e.g. 24.10)")
    out = io.StringIO()
    print_table(t, Console(file=out))
    lines = out.getvalue().splitlines()
    words = {w for line in lines for w in re.split(r"[\s│┃]+", line)}
    assert path in words and "--load-artifacts" in words and "--target-triton" in words  # each on one line, whole
    assert max(len(line) for line in lines) <= len(path) + 3 * len("--load-artifacts") + 20  # still narrow
