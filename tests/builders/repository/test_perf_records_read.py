"""builders reads perf's run records without importing perf (the layers' contract): its copies of their file names,
of the sweep's default results folder and of the record fields it reads must stay perf's. Written twice and tied by no
test (session 23 review), a rename on perf's side would silently turn off ``builders remove``'s and ``make clean``'s
refusal while a run measures the variants (T29-7, s23r M4)."""

from __future__ import annotations

from pathlib import Path

from colocation_source import record
from factories import make_run

from builders.repository import measured_runs
from perf.cli.runs import DEFAULT_RESULTS_DIR
from perf.records import colocation, results
from perf.records.run_lock import hold_run


def test_builders_names_of_perf_s_files_are_perf_s() -> None:
    assert measured_runs.RESULTS_FILE == results.RESULTS_FILE
    assert measured_runs.COLOCATION_FILE == colocation.COLOCATION_FILE
    assert measured_runs.RESULTS_DIR == DEFAULT_RESULTS_DIR


def _live(repo: Path, run_dir: Path, names: list[str]) -> list[str]:
    hold = hold_run(run_dir, "a run at work")
    try:
        return measured_runs.live_runs(repo, names, results_dir=run_dir.parent)
    finally:
        hold.release()


def test_a_live_colocation_record_as_perf_saves_it_is_seen(tmp_path: Path) -> None:
    repo = tmp_path / "model_repository"
    repo.mkdir()
    rec = record()
    rec.repository = str(repo)
    run_dir = tmp_path / "results" / "colocate-1"
    run_dir.mkdir(parents=True)
    colocation.save(rec, run_dir)
    planned = rec.models[0].variants[0]
    live = _live(repo, run_dir, [planned])
    assert len(live) == 1 and live[0].startswith(f"{rec.run_id} ("), live
    assert _live(repo, run_dir, ["not_planned_by_it"]) == []


def test_a_live_sweep_record_as_perf_saves_it_is_seen(tmp_path: Path) -> None:
    repo = tmp_path / "model_repository"
    repo.mkdir()
    run = make_run()
    run.settings["repository"] = str(repo)
    run_dir = tmp_path / "results" / run.run_id
    results.save(run, run_dir)
    live = _live(repo, run_dir, [run.variants[0].name])
    assert len(live) == 1 and live[0].startswith(f"{run.run_id} ("), live
    assert _live(repo, run_dir, ["not_planned_by_it"]) == []
