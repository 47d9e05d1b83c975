"""``triton-perf report RUN --html`` names every file it wrote, not only report.md (new-user trial)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from factories import make_run

from perf.cli.main import cli
from perf.records.results import save


def test_report_prints_every_file_it_wrote(tmp_path: Path) -> None:
    save(make_run(), tmp_path)
    before = {p.name for p in tmp_path.iterdir()}
    out = CliRunner().invoke(cli, ["report", str(tmp_path), "--html"])
    assert out.exit_code == 0, out.output
    written = {p.name for p in tmp_path.iterdir()} - before
    assert {"report.md", "appendix.md", "report.html"} <= written and any(n.endswith(".png") for n in written)
    missing = [n for n in written if n not in out.output]
    assert not missing, f"written but not printed: {missing}\n{out.output}"
