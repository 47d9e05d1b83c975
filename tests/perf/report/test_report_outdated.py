"""A report written from an earlier state of the run's record says so (s22z, Z-13: ``perf/run_sweep.sh --resume RUN
--time-budget 2m --no-report`` changed the pick; the run folder kept the older report.md, appendix.md and plots naming
the old pick, with no mark). Every save of the record marks such a report at its top (report.md and appendix.md), and
the commands that saved it and wrote no report say so at their end; ``triton-perf report`` rewrites it unmarked."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from factories import level_result
from saved_sweeps import sweep_said, two_variant_run

from perf.cli.main import cli as perf_cli
from perf.records import colocation, results
from perf.records.baseline import BaselineResult, BaselineSettings
from perf.records.coldstart import ColdStart
from perf.records.results import Session
from perf.report_state import MARK, STATE_FILE, outdated_text, record_written


def test_a_no_report_session_marks_the_earlier_report_and_says_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "results" / "r"
    said = sweep_said(monkeypatch, two_variant_run(200.0, 1))  # the report written, then its time saved: not a change of state
    assert "out of date" not in said
    first = (folder / "report.md").read_text()
    assert MARK not in first and (folder / STATE_FILE).is_file()
    assert "Best measured" in first or "`a_mbs4`" in first

    said = sweep_said(monkeypatch, two_variant_run(400.0, 2), "--no-report")  # a later session: b now leads
    report = (folder / "report.md").read_text().splitlines()
    assert report[0] == "# Sweep report: r" and report[2].startswith(MARK), report[:4]
    assert "before a later session of the run (--resume, started 2026-12-05 07:51:00)" in report[2]
    assert "`triton-perf report results/r` rewrites them" in report[2]
    assert report[3:] == first.splitlines()[1:]  # nothing else of the file changed
    assert (folder / "appendix.md").read_text().splitlines()[2].startswith(MARK)
    assert "not written (--no-report)" in said
    assert "report.md in results/r is out of date (written " in said
    assert "says so at its top; `triton-perf report results/r` rewrites it" in said

    other = tmp_path / "results" / "o"  # a reader of the run says it too
    results.save(dataclasses.replace(two_variant_run(300.0, 1), run_id="o", created="before"), other)
    res = CliRunner().invoke(perf_cli, ["compare", "results/o", "results/r"])
    assert res.exit_code == 0, res.output
    assert "report.md in results/r is out of date (written " in " ".join(res.output.split())

    res = CliRunner().invoke(perf_cli, ["report", "results/r"])  # rewritten: unmarked, the marked one not kept as edited
    assert res.exit_code == 0, res.output
    assert MARK not in (folder / "report.md").read_text() and MARK not in (folder / "appendix.md").read_text()
    assert not list(folder.glob("*.previous-*")), sorted(p.name for p in folder.iterdir())
    assert outdated_text(folder) is None


def test_an_edited_report_marked_stays_told_as_edited(tmp_path: Path) -> None:
    run = two_variant_run(200.0, 1)
    results.save(run, tmp_path)
    from perf.report.write import write_report

    write_report(tmp_path, None)
    with (tmp_path / "report.md").open("a") as f:
        f.write("my notes\n")
    run.variants[0].levels.append(level_result(8, 210.0, 16.0))
    results.save(run, tmp_path)
    text = (tmp_path / "report.md").read_text()
    assert MARK in text and text.endswith("my notes\n")
    write_report(tmp_path, None)
    kept = tmp_path / "report.previous-1.md"  # the user's notes, with the mark, kept aside
    assert kept.is_file() and "my notes" in kept.read_text() and MARK not in (tmp_path / "report.md").read_text()


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ("cold", "a cold start recorded into it (`triton-perf coldstart --into`)"),
        ("baseline", "its in-process baseline measured (`triton-perf baseline`)"),
        ("levels", "further measurements of its variants"),
    ],
)
def test_every_save_that_changes_the_run_marks_its_reports_once(tmp_path: Path, change: str, words: str) -> None:
    run = two_variant_run(200.0, 1)
    results.save(run, tmp_path)
    for folder in (tmp_path, tmp_path / "report-budget5ms"):  # the run's report and a what-if view's
        folder.mkdir(exist_ok=True)
        (folder / "report.md").write_text("# Sweep report: r\n\nthe pick is a_mbs4\n")
        record_written(folder, tmp_path / results.RESULTS_FILE)
    run.sessions[-1].report_s = 3.0
    results.save(run, tmp_path)  # a report's time recorded after it: not a change
    assert MARK not in (tmp_path / "report.md").read_text() and outdated_text(tmp_path) is None
    changed = copy.deepcopy(run)
    if change == "cold":
        changed.variants[0].cold_start = ColdStart("a_mbs4", load_s=1.5)
    elif change == "baseline":
        changed.baseline = BaselineResult("then", BaselineSettings("blocked_autorange", 1.0, 1.0, 3, 100, "random"))
    else:
        changed.variants[1].levels.append(level_result(8, 210.0, 16.0))
    results.save(changed, tmp_path)
    results.save(changed, tmp_path)  # marked once
    for folder in (tmp_path, tmp_path / "report-budget5ms"):
        text = (folder / "report.md").read_text()
        assert text.count(MARK) == 1 and words in text, text
    assert (
        "with the options this view's folder name says (report-budget5ms)"
        in (tmp_path / "report-budget5ms/report.md").read_text()
    )
    said = outdated_text(tmp_path)
    assert said is not None and words in said and "report-budget5ms/report.md in " in said


def test_a_report_of_no_recorded_state_is_left_as_it_is(tmp_path: Path) -> None:
    run = two_variant_run(200.0, 1)
    results.save(run, tmp_path)
    (tmp_path / "report.md").write_text("# Sweep report: r\n")  # written before the state was recorded
    run.variants[0].levels.append(level_result(8, 210.0, 16.0))
    results.save(run, tmp_path)
    assert (tmp_path / "report.md").read_text() == "# Sweep report: r\n" and outdated_text(tmp_path) is None


def test_a_colocation_save_marks_its_report(tmp_path: Path) -> None:
    from fake_colocation_server import invoke_faked

    res = invoke_faked(tmp_path, pytest.MonkeyPatch(), {"big_x1": 1, "small_x1": 1})
    assert res.exit_code == 0, res.output
    run_dir = tmp_path / "results" / "r"
    record = colocation.load(run_dir)
    record.visits = record.visits[:-1]
    colocation.save(record, run_dir)
    assert (run_dir / "report.md").read_text().splitlines()[2].startswith(MARK)
    said = outdated_text(run_dir, colocation.COLOCATION_FILE)
    assert said is not None and "further measurements" in said


def test_a_baseline_stopped_into_the_run_says_its_report_is_out_of_date(tmp_path: Path, capsys: Any) -> None:
    """A Ctrl-C of `triton-perf baseline RUN` keeps what it measured in the run (a save): its end says the report."""
    from perf.cli.baseline import _interrupted
    from perf.profile.stopped import BaselineInterrupted

    run = two_variant_run(200.0, 1)
    results.save(run, tmp_path)
    (tmp_path / "report.md").write_text("# Sweep report: r\n")
    record_written(tmp_path, tmp_path / results.RESULTS_FILE)
    run.baseline = BaselineResult("then", BaselineSettings("blocked_autorange", 1.0, 1.0, 3, 100, "random"))
    stop = BaselineInterrupted(run.baseline)
    stop.stored = results.save(run, tmp_path)  # as perf.profile.stopped.kept_in files it
    with pytest.raises(SystemExit):
        _interrupted(stop, None, None, False)
    said = " ".join(capsys.readouterr().err.split())
    assert f"report.md in {tmp_path} is out of date (written " in said and "its in-process baseline measured" in said


def test_a_resumes_cold_starts_are_its_own_and_further_measurements_said_once(tmp_path: Path) -> None:
    """Trial 29, T29-2: a resume that loaded two variants and measured their cold starts was said as "further
    measurements of its variants, a cold start recorded into it (`triton-perf coldstart --into`), further
    measurements": the command named was never run, and "further measurements" came twice."""
    run = two_variant_run(200.0, 1)
    results.save(run, tmp_path)
    (tmp_path / "report.md").write_text("# Sweep report: r\n\nthe pick is a_mbs4\n")
    record_written(tmp_path, tmp_path / results.RESULTS_FILE)
    changed = copy.deepcopy(run)
    changed.sessions.append(Session("2026-12-05T10:38:05"))
    changed.variants[0].cold_start = ColdStart("a_mbs4", load_s=1.5, session=2)  # measured by the resume
    changed.variants[1].levels.append(level_result(8, 210.0, 16.0))
    changed.finished = "later"  # a part no other names changed too ("further measurements")
    results.save(changed, tmp_path)
    said = outdated_text(tmp_path)
    assert said is not None and "coldstart --into" not in said, said
    assert (
        "a later session of the run (--resume, started 2026-12-05 10:38:05)" in said
        and "cold starts that session measured" in said
    )
    assert said.count("further measurements") == 1, said
    changed.variants[1].cold_start = ColdStart("b_mbs4", load_s=1.5)  # then `coldstart --into`: no session of the run
    results.save(changed, tmp_path)
    assert "a later session" in (outdated_text(tmp_path) or "")
