"""Trial 25, T25-2: in `make demo > log`, report.md's length warning ended "... 250 lines at 100 columns, a table row
one" and nothing followed: the whole message, whose last words read as a line cut short, with no what to do. Run as a
command does, through core.console's log handler, its stderr a file (not a terminal). No server."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
RUN = REPO / "tests" / "data" / "trial25_seq1" / "results.json.gz"

#: Writes the report with a bound its findings cannot keep (40 read lines), so the warning is said.
SCRIPT = """
import sys
from pathlib import Path
from core.console import setup_logging
import perf.report.write as w
from perf.plots import figures
setup_logging(0)
figures.write_plots = lambda run, d, *a, **k: {}
w.MAX_REPORT_LINES = 40
w.write_report(Path(sys.argv[1]))
"""


@pytest.mark.parametrize("columns", [None, "60"])
def test_the_length_warning_is_whole_in_a_file(tmp_path: Path, columns: str | None) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "results.json").write_bytes(gzip.decompress(RUN.read_bytes()))
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"} | {"PYTHONPATH": str(REPO)}
    if columns:
        env["COLUMNS"] = columns  # a CI runner's narrow setting: still no line cut or wrapped off a terminal
    log = tmp_path / "log"
    with log.open("w") as out:
        subprocess.run([sys.executable, "-c", SCRIPT, str(run)], stdout=out, stderr=subprocess.STDOUT, check=True, env=env)
    lines = [ln for ln in log.read_text().splitlines() if "report.md reads as" in ln]
    assert len(lines) == 1, log.read_text()
    line = lines[0]
    assert "WARNING" in line and "over its bound of 40 lines at 100 columns, a table row one line: " in line
    # what was wrong, what was expected, what to do: whole, on its one line
    assert line.rstrip().endswith("a part of the report has no rule to move it"), line
    assert "-> please report it with this run's results.json" in line
