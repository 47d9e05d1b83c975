"""Issue 26: ``triton-perf report RUN --latency-budget-ms 5`` overwrote the run's report.md,
appendix.md and plots while results.json still said 25 ms. A report whose options differ from the
run's (budget, percentile, --top) is a what-if view written beside the run's report, never over it.
No server; the real demo run (tests/data/demo_run)."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from synthetic_runs import DEMO_RUN

from perf.cli.main import cli
from perf.records.results import load
from perf.report.layout import what_if
from perf.report.write import REPORT_FILE, write_report


def _digests(folder: Path) -> dict[str, str]:
    """sha256 of every file directly in ``folder`` (report.md, appendix.md, PNGs, results.json)."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    shutil.copy(DEMO_RUN / "results.json", tmp_path / "results.json")
    write_report(tmp_path)  # the run's own report, as the sweep writes it (budget 25 ms)
    return tmp_path


@pytest.mark.parametrize(
    ("args", "folder", "words", "pct"),
    [
        (["--latency-budget-ms", "5"], "report-budget5ms", "p99 budget 5 ms instead of the run's 25 ms", "p99"),
        (["--latency-percentile", "95", "--top", "3"], "report-p95-top3", "the budget on p95 instead of the run's p99", "p95"),
    ],
)
def test_a_what_if_report_is_written_beside_the_runs_report(run_dir: Path, args: list[str], folder: str, words: str, pct: str):
    before = _digests(run_dir)
    assert {"report.md", "appendix.md", "results.json", "p99_vs_concurrency.png"} <= set(before)
    out = CliRunner().invoke(cli, ["report", str(run_dir), *args])
    assert out.exit_code == 0, out.output
    assert _digests(run_dir) == before  # report.md, appendix.md, every PNG and results.json as they were
    view = run_dir / folder
    text = (view / REPORT_FILE).read_text()
    assert "**What-if view**" in text and words in text
    assert f"[{REPORT_FILE}](../{REPORT_FILE})" in text  # the run's own report, one folder up
    assert (view / "appendix.md").exists() and (view / f"{pct}_vs_concurrency.png").stat().st_size > 5000
    assert f"![{pct} latency vs concurrency]({pct}_vs_concurrency.png)" in text  # its own plots, beside it, on its percentile
    assert f"what-if report (an option differs from the run's; its own report.md is unchanged): {view / REPORT_FILE}" in (
        " ".join(out.output.split())
    )


def test_the_runs_own_options_rewrite_the_runs_report(run_dir: Path):
    (run_dir / REPORT_FILE).write_text("stale\n")
    out = CliRunner().invoke(cli, ["report", str(run_dir), "--latency-budget-ms", "25", "--latency-percentile", "99"])
    assert out.exit_code == 0, out.output
    assert "Sweep report" in (run_dir / REPORT_FILE).read_text()
    assert not [p for p in run_dir.iterdir() if p.name.startswith("report-")]
    assert f"report: {run_dir / REPORT_FILE}" in " ".join(out.output.split())


def test_what_if_names_each_difference():
    run = load(DEMO_RUN)
    assert what_if(run, None, None) == [] and what_if(run, 25.0, 99) == []
    assert [t for t, _ in what_if(run, 5.0, 95, 3)] == ["budget5ms", "p95", "top3"]
    nobudget = run.__class__(**{**run.__dict__, "settings": {**run.settings, "latency_budget_ms": None}})
    assert what_if(nobudget, 25.0, None) == [("budget25ms", "p99 budget 25 ms instead of none in the run")]


def test_a_what_if_of_a_run_without_its_own_report_says_where_that_goes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from perf.plots import figures as plots

    monkeypatch.setattr(plots, "write_plots", lambda *a, **k: {})
    shutil.copy(DEMO_RUN / "results.json", tmp_path / "results.json")  # a sweep run with --no-report
    text = write_report(tmp_path, latency_budget_ms=5.0).read_text()
    assert not (tmp_path / REPORT_FILE).exists()
    assert f"goes to report.md in the run folder (`triton-perf report {tmp_path}` writes it)" in text


def test_a_what_if_views_commands_name_the_run_not_its_own_folder(run_dir: Path):
    """The view's "No in-process baseline" said `triton-perf baseline RUN/report-budget5ms`: a
    folder without results.json, which the baseline refuses. Its commands act on the run."""
    from perf.records.results import save

    run = load(run_dir)
    run.baseline = None
    save(run, run_dir)
    write_report(run_dir, latency_budget_ms=5)
    view = run_dir / "report-budget5ms"
    text = " ".join(((view / REPORT_FILE).read_text() + (view / "appendix.md").read_text()).split())
    assert f"`triton-perf baseline {run_dir}` measures it" in text
    assert "report-budget5ms`" not in text
