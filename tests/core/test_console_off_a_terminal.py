"""Output read in files and CI logs (core.console): a log or printed line is never wrapped off a
terminal, a table is never squeezed to a zero-width column, every console is made in one
place, and a closed pipe (``| head``) ends a command quietly with exit 0."""

from __future__ import annotations

import io
import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from factories import make_run

from core.cli import console, print_table, setup_logging
from perf.records.results import save

ROOT = Path(__file__).resolve().parents[2]
LONG = "seqnet_ts_cpu1_db500_mbs16 c=2 b=1: 1162 infer/s, p99 4.56 ms " * 3


def test_log_lines_to_a_file_are_never_wrapped(capsys: pytest.CaptureFixture[str]) -> None:
    setup_logging(0)
    try:
        logging.getLogger("perf.test").warning(LONG + "[host busy]")
    finally:
        logging.basicConfig(force=True, handlers=[logging.NullHandler()])
    c = console()
    c.log(LONG + "[failed]", markup=False)
    c.print(LONG + "(printed)", markup=False)
    lines = capsys.readouterr().err.splitlines()
    # the trial's log: "... p99 4.56 ms [host" / "           busy]" — grep for "host busy" missed it
    assert any("WARNING" in ln and ln.rstrip().endswith(LONG.rstrip() + " [host busy]") for ln in lines), lines
    assert any(ln.rstrip().endswith(LONG + "[failed]") for ln in lines), lines
    assert any(ln.rstrip() == LONG + "(printed)" for ln in lines), lines
    assert max(len(ln) for ln in lines) < len(LONG) + 40  # drawn at its own width, not padded


def test_a_console_given_a_width_keeps_it() -> None:
    out = io.StringIO()
    console(file=out, width=40).print("word " * 20)
    assert max(len(ln) for ln in out.getvalue().splitlines()) <= 40


def test_every_console_and_log_handler_of_the_clis_is_made_by_core_console() -> None:
    made_elsewhere = []
    for package in ("core", "perf", "builders", "clients"):
        for path in (ROOT / package).rglob("*.py"):
            if path == ROOT / "core" / "console.py":
                continue
            for n, line in enumerate(path.read_text().splitlines(), 1):
                if re.search(r"\b(Console|RichHandler)\(", line) and not line.lstrip().startswith("#"):
                    made_elsewhere.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not made_elsewhere, "make consoles with core.console.console(): " + "; ".join(made_elsewhere)


def test_a_table_off_a_terminal_at_a_narrow_columns_keeps_every_column(monkeypatch: pytest.MonkeyPatch) -> None:
    from rich.table import Table

    monkeypatch.setenv("COLUMNS", "60")
    t = Table("variant", "peak infer/s", "at c", "p99 ms", "knee c", "note")
    for col in t.columns[:5]:
        col.no_wrap = True
    t.add_row("seqnet_onnx_cpu1_db500_mbs16", "2,028.8", "4 †", "7.79", "—", "† host busy")
    t.add_row("seqnet_onnx_cpu2_db500_mbs16", "2,384.7", "4 †", "4.53", "—", "best under budget (c=4 †); best peak")
    out = io.StringIO()
    print_table(t, console(file=out, stderr=False))
    text = out.getvalue()
    # at COLUMNS=60 to a file the note column was drawn 0 characters wide: "│ │", no header, no notes
    assert "note" in text and "busy" in text and "budget" in text, text
    assert "│ │" not in text, text


def _closed_pipe_run(*args: str) -> subprocess.CompletedProcess[str]:
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the command writes: `| head` after its lines
    try:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        return subprocess.run(
            [sys.executable, *args], stdout=write, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env, timeout=120
        )
    finally:
        os.close(write)


@pytest.mark.parametrize(
    "args",
    [("-m", "perf", "-h"), ("-m", "builders.cli.main", "-h"), ("-m", "clients.cli.main", "-h")],
    ids=["perf", "builders", "clients"],
)
def test_a_closed_stdout_pipe_ends_every_cli_quietly_with_exit_0(args: tuple[str, ...]) -> None:
    done = _closed_pipe_run(*args)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr


def test_a_closed_stdout_pipe_under_a_rich_table_ends_quietly(tmp_path: Path) -> None:
    save(make_run(), tmp_path)  # `triton-perf report RUN | head`: rich's console exited 1
    done = _closed_pipe_run("-m", "perf", "report", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
