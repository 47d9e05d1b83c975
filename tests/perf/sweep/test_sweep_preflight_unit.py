"""A sweep that cannot measure anything fails before a server starts and leaves no run folder
(issue 26, perf.sweep.preflight): ``--runtime local`` with no tritonserver left a folder that
neither ``--resume`` (which keeps the run's runtime) nor the same ``--run-id`` could use;
``--batch-sizes 128`` above every variant's max_batch_size started a server to measure nothing;
the container runtime with its engine down. No server starts here."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path
from typing import Any

import pytest

from clients.server import ServerOptions
from core.errors import FlagError, PerfError, ServerError
from perf.records import results
from perf.records.levels import LevelResult
from perf.records.results import RunResult, VariantResult
from perf.sweep.preflight import unmeasured_folder
from perf.sweep.run import Sweep, SweepOptions


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    for name, mbs in (("v_mbs8", 8), ("v_mbs16", 16)):
        (tmp_path / "repo" / name).mkdir(parents=True)
        (tmp_path / "repo" / name / "config.pbtxt").write_text(
            f'name: "{name}"\nbackend: "python"\nmax_batch_size: {mbs}\n'
            'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
            'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        )
    return tmp_path / "repo"


def _opts(repo: Path, tmp_path: Path, **kw: Any) -> SweepOptions:
    server = kw.pop("server", ServerOptions(repo, runtime="bundled"))
    return SweepOptions(server, concurrency=(1,), results_dir=tmp_path / "results", run_id="r", **kw)


def test_batch_sizes_above_every_variants_limit_are_one_usage_error_before_anything(repo: Path, tmp_path: Path) -> None:
    with pytest.raises(FlagError) as e:
        Sweep(_opts(repo, tmp_path, batch_sizes=(128,)))
    assert e.value.flag == "--batch-sizes"
    assert e.value.message.startswith(
        "batch size 128 is above the max_batch_size of every variant of this sweep (v_mbs16 16, v_mbs8 8)"
    )
    assert "--batch-sizes 16 or less" in (e.value.hint or "")
    assert not (tmp_path / "results").exists()
    Sweep(_opts(repo, tmp_path, batch_sizes=(8, 128)))  # one fits: 128 is skipped for both and listed, as before


def test_a_runtime_whose_server_is_not_there_is_refused_before_the_run_folder(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TRITONSERVER", raising=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    local = ServerOptions(repo, runtime="local")
    with pytest.raises(ServerError, match="no local tritonserver found") as e:
        Sweep(_opts(repo, tmp_path, server=local))
    assert "--runtime bundled" in (e.value.hint or "") and not (tmp_path / "results").exists()
    # a binary the user named that is not there: its own refusal, a usage error (clients.runtimes.local)
    named = ServerOptions(repo, runtime="local", binary=tmp_path / "none")
    with pytest.raises(ServerError, match="the tritonserver binary --tritonserver names: .* does not exist") as e:
        Sweep(_opts(repo, tmp_path, server=named))
    assert e.value.flag == "--tritonserver" and not (tmp_path / "results").exists()
    # the advice followed: the same --run-id with --runtime bundled is a new run, not "already exists"
    assert Sweep(_opts(repo, tmp_path)).run_dir == tmp_path / "results" / "r"


def test_a_resumed_runs_runtime_is_its_own_and_its_refusal_says_so(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--resume keeps the run's saved runtime (its numbers and the new ones are ranked together):
    the runtime's "use --runtime bundled" would be ignored there, so the refusal names a new run."""
    sw = Sweep(_opts(repo, tmp_path))
    sw.run.settings = sw._settings()  # type: ignore[assignment]
    sw.run.settings["server"]["runtime"] = "local"
    sw._save()
    sw.close()
    monkeypatch.delenv("TRITONSERVER", raising=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    resume = dataclasses.replace(_opts(repo, tmp_path), resume=True, given=frozenset({"server"}))
    with pytest.raises(ServerError, match="no local tritonserver found") as e:
        Sweep(resume)
    assert "--resume keeps the run's --runtime local" in (e.value.hint or "")
    assert "another --run-id" in (e.value.hint or "")


def test_a_folder_that_holds_no_measurement_is_taken_again_by_a_plain_rerun(repo: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "results" / "r"
    run_dir.mkdir(parents=True)
    failed = RunResult("r", "2026-12-02T05:00:00", variants=[VariantResult("v_mbs8", None, status="skipped")])
    results.save(failed, run_dir)
    (run_dir / "server.log").write_text("the start that failed\n")
    assert unmeasured_folder(run_dir)
    Sweep(_opts(repo, tmp_path))  # a new run in the same folder
    assert not (run_dir / "server.log").exists()
    measured = RunResult("r", "2026-12-02T05:00:00", variants=[VariantResult("v_mbs8", None, status="ok")])
    measured.variants[0].levels.append(LevelResult(concurrency=1, batch_size=1, throughput_infer_per_s=10.0))
    results.save(measured, run_dir)
    assert not unmeasured_folder(run_dir)
    with pytest.raises(PerfError, match="already exists"):
        Sweep(_opts(repo, tmp_path))
    (tmp_path / "results" / "mine").mkdir()  # not a run folder: never taken
    with pytest.raises(PerfError, match="already exists"):
        Sweep(dataclasses.replace(_opts(repo, tmp_path), run_id="mine"))


def test_a_container_engine_that_is_down_is_refused_before_the_run_folder(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "docker").write_text("#!/bin/sh\necho 'Cannot connect to the Docker daemon' >&2\nexit 1\n")
    (bindir / "docker").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    container = ServerOptions(repo, runtime="container", shm_size="1g")
    with pytest.raises(ServerError, match=r"^the container engine is not running: `docker info` fails \(exit 1: Cannot"):
        Sweep(_opts(repo, tmp_path, server=container))
    assert not (tmp_path / "results").exists()


def test_resume_says_which_wins_when_a_server_setting_changes(
    repo: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The run's saved server settings win over the flags on --resume; the warning says why and the way out."""
    sw = Sweep(_opts(repo, tmp_path))
    sw.run.settings = sw._settings()  # type: ignore[assignment]
    sw._save()
    sw.close()
    again = ServerOptions(repo, runtime="local")
    resume = dataclasses.replace(_opts(repo, tmp_path, server=again), resume=True, given=frozenset({"server"}))
    with caplog.at_level("WARNING"):
        assert Sweep(resume).opts.server.runtime == "bundled"
    assert "server setting --runtime local ignored; the run continues with its saved --runtime bundled" in caplog.text
    assert "a new --run-id measures with yours" in caplog.text


def test_a_server_that_fails_at_its_start_leaves_a_folder_the_same_run_id_takes_again(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from perf.sweep.servers import ServerPool

    def crash(self: ServerPool) -> None:
        (tmp_path / "results" / "r" / "server.log").write_text("E1202 failed to load\n")
        raise ServerError("tritonserver exited with code 1 during start-up", hint="read the log above")

    monkeypatch.setattr(ServerPool, "start_all", crash)
    with pytest.raises(ServerError) as e:
        Sweep(_opts(repo, tmp_path)).run_all()
    assert "nothing was measured: " in (e.value.hint or "") and "the same --run-id starts over in it" in (e.value.hint or "")
    assert (tmp_path / "results" / "r" / "server.log").is_file()  # the reason stays until the rerun
    assert unmeasured_folder(tmp_path / "results" / "r")
    Sweep(_opts(repo, tmp_path))  # the rerun: not "already exists"


def test_servers_the_toolkit_does_not_start_pass_the_runtime_check_one_or_several() -> None:
    """The pre-start check built the remote runtime, which talks to one server, and so refused every
    `--url a,b` sweep (the server pool connects to each): caught by the two-server integration tests."""
    from perf.sweep.preflight import check_runtime

    for urls in (("127.0.0.1:1",), ("127.0.0.1:1", "127.0.0.1:2")):
        check_runtime(ServerOptions(Path("."), runtime="remote", urls=urls))  # nothing connects here: no error
        check_runtime(ServerOptions(Path("."), urls=urls))  # --runtime auto with --url


def _native(repo: Path, name: str) -> None:
    """A --serving native ONNX variant: the onnxruntime backend, which the bundled server lacks."""
    (repo / name).mkdir(parents=True)
    (repo / name / "config.pbtxt").write_text(
        f'name: "{name}"\nbackend: "onnxruntime"\nmax_batch_size: 8\n'
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    )


def test_a_sweep_of_only_variants_the_runtime_cannot_serve_starts_nothing_and_writes_no_folder(tmp_path: Path) -> None:
    """A new user's repository held one --serving native ONNX variant and the sweep ran on the
    bundled server: it started a server, wrote a run folder, and said "no variant was measured"."""
    repo = tmp_path / "native"
    _native(repo, "m_onnx_cpu1")
    with pytest.raises(ServerError) as e:
        Sweep(_opts(repo, tmp_path))
    assert e.value.message.startswith("the bundled runtime's server cannot load the only variant: model 'm_onnx_cpu1' needs")
    assert "'onnxruntime' backend" in e.value.message and "no run folder was written" in e.value.message
    assert "--runtime local" in (e.value.hint or "") and "--serving python" in (e.value.hint or "")
    assert not (tmp_path / "results").exists()


def test_a_variant_the_runtime_cannot_serve_fails_unloaded_beside_the_others(repo: Path, tmp_path: Path) -> None:
    _native(repo, "m_onnx_cpu1")
    sw = Sweep(_opts(repo, tmp_path))
    plan = sw.plans["m_onnx_cpu1"]
    assert plan.levels == [] and plan.error is not None and "needs Triton's 'onnxruntime' backend" in plan.error
    assert sw.plans["v_mbs8"].levels and sw.plans["v_mbs8"].error is None


def test_a_folder_stopped_before_its_first_save_is_taken_again_and_its_resume_says_so(repo: Path, tmp_path: Path) -> None:
    """Ctrl-C between the folder's creation and the first save left results/r with an empty raw/:
    "run folder ... already exists" for the same --run-id, "no run to resume" for --resume."""
    from perf.sweep.preflight import never_saved

    run_dir = tmp_path / "results" / "r"
    (run_dir / "raw").mkdir(parents=True)
    (run_dir / "results.json.3fa9c1d2e4b5.tmp").write_text('{"cut short')  # the first save, interrupted
    assert never_saved(run_dir) and unmeasured_folder(run_dir)
    with pytest.raises(PerfError) as e:
        Sweep(dataclasses.replace(_opts(repo, tmp_path), resume=True))
    assert e.value.message.startswith("run r in ") and "was stopped before its first save" in e.value.message
    assert "--run-id r instead of --resume r" in (e.value.hint or "")
    Sweep(_opts(repo, tmp_path))  # the same --run-id: a new run in that folder
    assert not (run_dir / "results.json.3fa9c1d2e4b5.tmp").exists()
    for kept in ("raw/a_level.csv", "notes.txt"):  # a file a run writes later, or the user's: never taken
        shutil.rmtree(run_dir)
        (run_dir / "raw").mkdir(parents=True)
        (run_dir / kept).write_text("x")
        assert not never_saved(run_dir) and not unmeasured_folder(run_dir)
        with pytest.raises(PerfError, match="already exists"):
            Sweep(_opts(repo, tmp_path))
        assert (run_dir / kept).is_file()


def test_a_run_stopped_before_its_first_round_resumes_against_its_own_time_budget(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C while the server started: the run recorded no budget (the plan is made before the first
    round), and --resume planned against the default 360 s instead of the user's --time-budget 120."""
    from perf.sweep.options import DEFAULT_TIME_BUDGET_S
    from perf.sweep.servers import ServerPool

    def interrupted(self: ServerPool) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(ServerPool, "start_all", interrupted)
    with pytest.raises(KeyboardInterrupt):
        Sweep(_opts(repo, tmp_path, time_budget_s=120.0)).run_all()
    saved = results.load(tmp_path / "results" / "r")
    assert saved.settings["time_budget_s"] == 120.0 and (saved.rounds is None or saved.rounds.budget is None)
    assert DEFAULT_TIME_BUDGET_S != 120.0
    resumed = Sweep(dataclasses.replace(_opts(repo, tmp_path), resume=True, given=frozenset()))
    assert resumed.opts.time_budget_s == 120.0 and resumed.recorded_budget_s == 120.0
    assert "the run's own 120 s time budget: all 120 s (it was stopped before its first round)" in (resumed.budget_note or "")
    resumed.close()
    again = Sweep(dataclasses.replace(_opts(repo, tmp_path, time_budget_s=60.0), resume=True, given=frozenset({"time_budget_s"})))
    assert again.opts.time_budget_s == 60.0  # a budget given on the resume replaces it, as before


def test_a_remote_sweep_of_only_variants_someone_else_loaded_writes_no_run_folder(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Trial 28, T28-14: every variant of a remote sweep already READY on the server, loaded by someone else: each was
    refused at its load, and the run folder stayed with an empty results.json that report and compare then listed.
    Refused before the folder is written, as the README says of sweeps that cannot measure anything."""
    import tritonclient.http as th
    from fake_triton import FakeTriton

    servers = {"127.0.0.1:18600": FakeTriton(loaded={"v_mbs8": {"name": "v_mbs8"}, "v_mbs16": {"name": "v_mbs16"}})}
    monkeypatch.setattr(th, "InferenceServerClient", lambda url, **kw: servers[url])
    remote = ServerOptions(repo, runtime="remote", urls=("127.0.0.1:18600",))
    with pytest.raises(ServerError) as e:
        Sweep(_opts(repo, tmp_path, server=remote))
    assert e.value.message.startswith(
        "every variant is already loaded on the server at 127.0.0.1:18600, by someone else (v_mbs16 READY, v_mbs8 READY): "
    )
    assert e.value.message.endswith("nothing was started or measured, and no run folder was written")
    assert "--replace-models" in e.value.message and "--no-deploy" in (e.value.hint or "")
    assert not (tmp_path / "results").exists() and servers["127.0.0.1:18600"].calls == []  # nothing loaded or unloaded
    # allowed by name, measured as served, or one variant free there: the sweep goes on (each refused at its load)
    for server in (dataclasses.replace(remote, replace_models=True), dataclasses.replace(remote, deploy=False)):
        Sweep(_opts(repo, tmp_path / "allowed", server=server, variants=("v_mbs8",))).close()
    servers["127.0.0.1:18600"].loaded.pop("v_mbs16")
    Sweep(_opts(repo, tmp_path, server=remote)).close()
    assert (tmp_path / "results" / "r").is_dir()
