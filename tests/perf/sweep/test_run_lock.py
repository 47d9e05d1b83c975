"""One writing command per run folder at a time (perf.records.run_lock): each command that reads a run's
record and saves it whole (a sweep, its --resume, `baseline RUN`, `coldstart --into RUN`, colocate)
stops with one error while another process writes the folder, and changes nothing in it. Before,
the later save dropped the other's measurements, and a second sweep under one --run-id emptied the
folder of the first while it started. The other process here is a real one holding the lock."""

from __future__ import annotations

import dataclasses
import shutil
import signal
from pathlib import Path

import pytest
from click.testing import CliRunner
from held_run import held_by_another_process

from clients.server import ServerOptions
from core.errors import PerfError, ToolkitError
from perf.cli import main as perf_cli
from perf.profile.baseline import baseline_for_run
from perf.records import results
from perf.records.run_lock import hold_run, holding_run
from perf.sweep.preflight import RAW_DIR, new_run_folder
from perf.sweep.run import Sweep, SweepOptions
from perf.sweep.server import now


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    for name in ("v_a", "v_b"):
        (tmp_path / "repo" / name / "1").mkdir(parents=True)
        (tmp_path / "repo" / name / "config.pbtxt").write_text(
            f'name: "{name}"\nbackend: "python"\nmax_batch_size: 8\n'
            'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
            'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        )
    return tmp_path / "repo"


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b"" for p in sorted(folder.rglob("*"))}


def _saved_run(tmp_path: Path, run_id: str = "r") -> Path:
    run_dir = tmp_path / "results" / run_id
    (run_dir / RAW_DIR).mkdir(parents=True)
    run = results.RunResult(run_id, now())
    run.variants.append(results.VariantResult("v_a"))
    results.save(run, run_dir)
    return run_dir


def test_a_second_sweep_resume_baseline_or_coldstart_on_a_held_run_changes_nothing(repo: Path, tmp_path: Path) -> None:
    run_dir = _saved_run(tmp_path)
    before = _files(run_dir)
    with held_by_another_process(run_dir):
        opts = SweepOptions(ServerOptions(repo, runtime="bundled"), results_dir=tmp_path / "results", run_id="r")
        res = CliRunner().invoke(perf_cli.cli, ["sweep", "--resume", "r", "--results-dir", str(tmp_path / "results")])
        assert res.exit_code == 1 and isinstance(res.exception, PerfError), res.output  # main() prints it, no traceback
        said = " ".join(f"{res.exception.message} -> {res.exception.hint}".split())
        assert f"run folder {run_dir} is in use: another command is writing to it" in said, said
        assert "this resume did nothing" in said and "wait for that command to end" in said
        with pytest.raises(PerfError, match="this baseline did nothing"):
            baseline_for_run(run_dir, repository=repo)
        res = CliRunner().invoke(perf_cli.cli, ["coldstart", "--into", str(run_dir), "-r", str(repo)])
        assert res.exit_code == 1 and "this cold start did nothing" in str(res.exception), res.output
        with pytest.raises(PerfError, match="already exists|is in use"):
            Sweep(opts)  # a new sweep under the same --run-id
        assert _files(run_dir) == before  # nothing read into a save, nothing written
    with holding_run(run_dir, "a later command") as hold:  # the other process ended: the folder is free
        assert hold is not None


def test_a_new_sweep_under_the_run_id_of_one_still_starting_does_not_empty_its_folder(repo: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "results" / "r"
    (run_dir / RAW_DIR).mkdir(parents=True)  # the first sweep saved its run before its server started: no level yet
    results.save(results.RunResult("r", now()), run_dir)
    (run_dir / "tritonserver.log").write_text("starting\n")
    before = _files(run_dir)
    with held_by_another_process(run_dir):
        with pytest.raises(PerfError, match="this sweep did nothing"):
            Sweep(SweepOptions(ServerOptions(repo, runtime="bundled"), results_dir=tmp_path / "results", run_id="r"))
        assert _files(run_dir) == before  # it was taken again (emptied) under the first sweep's feet
    sw = Sweep(SweepOptions(ServerOptions(repo, runtime="bundled"), results_dir=tmp_path / "results", run_id="r"))
    assert sw.run_dir == run_dir and not (run_dir / "tritonserver.log").exists()  # a folder left unmeasured: taken again


def test_a_hold_ends_with_its_process_however_it_ends(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    with held_by_another_process(folder) as proc:
        with pytest.raises(PerfError, match="is in use"):
            hold_run(folder, "this")
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        hold_run(folder, "this").release()  # the kernel let go of a killed holder's lock
    hold = new_run_folder(tmp_path / "new", "this sweep")  # made and held
    with pytest.raises(PerfError, match="this co-location run did nothing"):
        new_run_folder(tmp_path / "new", "this co-location run")
    hold.release()
    hold.release()  # a second release does nothing
    new_run_folder(tmp_path / "new", "this co-location run").release()  # raw/ only: never saved, taken again


def test_a_sweep_dropped_unrun_lets_go_of_its_folder(repo: Path, tmp_path: Path) -> None:
    opts = SweepOptions(ServerOptions(repo, runtime="bundled"), results_dir=tmp_path / "results", run_id="r")
    Sweep(opts)  # constructed, never run: its hold goes when it is collected
    with holding_run(tmp_path / "results" / "r", "a later command") as hold:
        assert hold is not None
    with holding_run(tmp_path / "missing", "x") as none:  # no folder: the command's own read says so
        assert none is None


def test_a_refused_resume_holds_nothing_while_its_error_is_handled(repo: Path, tmp_path: Path) -> None:
    opts = SweepOptions(ServerOptions(repo, runtime="bundled"), results_dir=tmp_path / "results", run_id="r")
    sw = Sweep(opts)
    sw.run.settings = sw._settings()  # type: ignore[assignment]
    sw._save()
    sw.close()
    shutil.rmtree(repo / "v_b")  # make clean, or a folder moved away
    with pytest.raises(ToolkitError) as refused:
        Sweep(dataclasses.replace(opts, resume=True))  # refused after its hold: v_b is not in the repository
    assert "v_b" in refused.value.message
    hold_run(sw.run_dir, "the next command").release()  # free although the error (and its frames) are still held
