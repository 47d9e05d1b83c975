"""Trial 25, T25-17: ``triton-perf report RUN`` (and a ``--resume`` of a finished run, which writes the report again)
rewrote report.md and appendix.md, a user's notes in them lost with no copy, where export-deployment keeps an earlier
bundle and its edits as ``<folder>.previous-N``. Every report file a user may edit (report.md, appendix.md,
report.html, a co-location run's report.md, a comparison) is written by perf.markdown.write_kept: one that differs
from what the toolkit last wrote is kept aside as ``<stem>.previous-N<suffix>`` (the bundle's naming rule) and said
in one line; an unedited one is replaced silently. No server."""

from __future__ import annotations

import gzip
import logging
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from perf.analysis.comparison.runs import compare_runs
from perf.cli.main import cli
from perf.markdown import WRITTEN_FILE, previous_path, write_kept
from perf.plots import figures as plots
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult, save
from perf.report.write import write_report
from perf.sweep.refused_run import refused_flags_text

DATA = Path(__file__).resolve().parents[2] / "data"
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def run_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(plots, "write_plots", lambda run, d, *a, **k: {})
    folder = tmp_path / "seq1"
    folder.mkdir()
    (folder / "results.json").write_bytes(gzip.decompress((DATA / "trial25_seq1" / "results.json.gz").read_bytes()))
    return folder


def _kept_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING and "kept as" in r.getMessage()]


def test_an_edited_report_and_appendix_are_kept_aside_an_unedited_one_is_replaced_silently(
    run_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    report = write_report(run_dir)
    appendix = run_dir / "appendix.md"
    first = report.read_text()
    write_report(run_dir)  # nothing edited: replaced, no copy, nothing said
    assert report.read_text() == first and not list(run_dir.glob("*.previous-*")) and not _kept_lines(caplog)

    report.write_text(first + "\nMY NOTES: deploy this one\n")
    appendix.write_text(appendix.read_text() + "\nmore notes\n")
    write_report(run_dir)
    assert "MY NOTES" not in report.read_text() and report.read_text() == first
    assert "MY NOTES: deploy this one" in (run_dir / "report.previous-1.md").read_text()
    assert "more notes" in (run_dir / "appendix.previous-1.md").read_text()
    said = _kept_lines(caplog)
    assert len(said) == 2 and all("\n" not in s for s in said), said
    assert any(s.endswith("kept as report.previous-1.md") and str(report) in s for s in said), said

    report.write_text("second edit\n")  # a second edit: the next free N, the first copy untouched
    write_report(run_dir)
    assert (run_dir / "report.previous-2.md").read_text() == "second edit\n"
    assert "MY NOTES" in (run_dir / "report.previous-1.md").read_text()


def test_a_report_of_no_record_is_kept_aside_since_an_edit_cannot_be_told(run_dir: Path) -> None:
    """A report written before the toolkit recorded what it writes (or with its record lost) may hold edits."""
    (run_dir / "report.md").write_text("an older toolkit's report, perhaps with notes\n")
    write_report(run_dir)
    assert (run_dir / "report.previous-1.md").read_text() == "an older toolkit's report, perhaps with notes\n"
    (run_dir / WRITTEN_FILE).unlink()
    write_report(run_dir)  # the record lost, the report as it would be written: nothing to lose, no copy
    assert not (run_dir / "report.previous-2.md").exists()
    (run_dir / WRITTEN_FILE).unlink()
    with (run_dir / "report.md").open("a") as f:
        f.write("notes\n")
    write_report(run_dir)
    assert (run_dir / "report.previous-2.md").read_text().endswith("notes\n")


def test_the_report_command_says_the_kept_copy_and_lists_neither_it_nor_the_record_as_written(run_dir: Path) -> None:
    assert CliRunner().invoke(cli, ["report", str(run_dir)]).exit_code == 0
    with (run_dir / "report.md").open("a") as f:
        f.write("MY NOTES\n")
    res = CliRunner().invoke(cli, ["report", str(run_dir)])
    assert res.exit_code == 0, res.output
    assert "MY NOTES" in (run_dir / "report.previous-1.md").read_text()
    also = next(ln for ln in res.output.splitlines() if ln.startswith("also written in"))
    assert WRITTEN_FILE not in also and "previous" not in also, also


def test_an_edited_comparison_is_kept_aside(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    env = {"host": "h", "cpu": "c", "cpu_count": 4, "gpus": [], "server": {"runtime": "bundled"}, "perf_analyzer": {}}

    def one(run_id: str, thr: float) -> Path:
        levels = [LevelResult(1, 1, 0, throughput_infer_per_s=thr, latency_p99_ms=2.0)]
        save(RunResult(run_id, run_id, env, {}, [VariantResult("v", None, "ok", None, levels)]), tmp_path / run_id)
        return tmp_path / run_id

    a, b = one("a", 100.0), one("b", 120.0)
    out = compare_runs(a, b, refused=refused_flags_text)
    text = out.read_text()
    out.write_text(text + "my reading of it\n")
    assert compare_runs(a, b, refused=refused_flags_text).read_text() == text
    assert "my reading of it" in out.with_name(f"{out.stem}.previous-1.md").read_text()
    assert _kept_lines(caplog)


def test_the_kept_name_is_the_bundles_rule_for_a_folder_and_keeps_a_files_suffix(tmp_path: Path) -> None:
    (tmp_path / "deployment-x").mkdir()
    (tmp_path / "deployment-x.previous-1").mkdir()
    assert previous_path(tmp_path / "deployment-x") == tmp_path / "deployment-x.previous-2"
    (tmp_path / "report.md").write_text("x")
    assert previous_path(tmp_path / "report.md") == tmp_path / "report.previous-1.md"
    assert write_kept(tmp_path / "notes.md", "a\n") is None and write_kept(tmp_path / "notes.md", "b\n") is None


def test_every_report_file_is_written_by_the_rule_that_keeps_edits() -> None:
    """The kind: no report or comparison writer writes its markdown or page straight over an earlier one."""
    writers = [*(ROOT / "perf" / "report").rglob("*.py"), ROOT / "perf" / "analysis" / "comparison" / "runs.py"]
    straight = [str(p.relative_to(ROOT)) for p in writers if re.search(r"\.write_(text|bytes)\(", p.read_text())]
    assert not straight, f"written without perf.markdown.write_kept: {straight}"
