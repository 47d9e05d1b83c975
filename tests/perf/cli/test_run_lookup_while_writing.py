"""A run id is looked up while another sweep has just made its run folder (no results.json yet), and a refusal says what
is true of results/ (trial 23, T23-2: `report ctr-a` said "no run in results/ here" while results/ held ctr-a, finished,
and ctr-b, just started)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from factories import make_run

from perf.cli.main import cli
from perf.cli.runs import RunFolder
from perf.records.results import save
from perf.records.run_lock import hold_run


def test_a_finished_run_is_found_beside_one_being_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    save(make_run(), tmp_path / "results" / "ctr-a")
    (tmp_path / "results" / "ctr-b").mkdir()
    hold = hold_run(tmp_path / "results" / "ctr-b", "this sweep")  # held and unsaved, as a sweep starting
    try:
        assert RunFolder().convert("ctr-a", None, None) == Path("results") / "ctr-a"
        out = CliRunner().invoke(cli, ["report", "ctr-z"])
        said = " ".join(out.output.split())
        assert out.exit_code == 2 and "newest there: ctr-a" in said
    finally:
        hold.release()


def test_a_results_folder_with_no_saved_run_says_what_it_holds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results" / "ctr-b").mkdir(parents=True)
    said = " ".join(CliRunner().invoke(cli, ["report", "ctr-a"]).output.split())
    assert "no run in results/ here" not in said
    assert f"no run with a results.json in {tmp_path / 'results'}/; ctr-b: no results.json yet" in said


def test_no_results_folder_says_from_where_it_looked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    said = " ".join(CliRunner().invoke(cli, ["report", "ctr-a"]).output.split())
    assert f"no folder results/ in {tmp_path}" in said
