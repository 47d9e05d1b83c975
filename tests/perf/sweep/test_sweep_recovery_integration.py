"""A sweep that loses its server or a variant that will not go: real bundled tritonserver and
perf_analyzer. The crashed level is measured again on resume, every server start keeps its
own log, and a variant still loaded after its unload request gets the server restarted
before the next variant (recorded in results.json)."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import signal
import threading
from pathlib import Path

import pytest
from process_checks import gone
from python_models import SITE_PACKAGES, write_python_model

from clients.server import ServerOptions
from perf.records.settings import MeasureSettings
from perf.sweep.run import Sweep, SweepOptions, run_sweep

pytestmark = pytest.mark.integration

FAST = MeasureSettings(measurement_interval_ms=500, max_trials=6, unstable_retries=1)
TINY = "tiny_onnx_cpu1_nodb_mbs8"

#: A python-backend model whose finalize() sleeps: Triton lists it as UNLOADING (not ready,
#: instances still there) for that long after an unload request.
SLOW_UNLOAD_MODEL = (
    SITE_PACKAGES
    + """import time
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        return [pb_utils.InferenceResponse([pb_utils.Tensor("y", pb_utils.get_input_tensor_by_name(r, "x").as_numpy())])
                for r in requests]

    def finalize(self):
        print("slow_unload: finalize sleeps", flush=True)
        time.sleep(%(sleep_s)s)
"""
)


def _children(pid: int) -> list[int]:
    """Process ids of ``pid``'s children (Linux ``/proc``)."""
    out = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            out += [int(c) for c in (task / "children").read_text().split()]
    return out


def test_a_server_killed_mid_level_is_measured_again_on_resume_and_every_log_is_kept(tiny_repo: Path, tmp_path: Path):
    opts = SweepOptions(
        ServerOptions(tiny_repo, runtime="bundled"),
        variants=(TINY,),
        concurrency=(1, 2),
        measure=FAST,
        results_dir=tmp_path,
        run_id="crash",
        warmup_requests=0,
        design="sequential",
    )
    killed: list[int] = []

    stubs: list[int] = []

    def kill(pid: int) -> None:
        stubs.extend(_children(pid))  # its python-backend stubs may outlive a SIGKILL: the sweep ends them
        os.kill(pid, signal.SIGKILL)

    def kill_during_concurrency_2(e: dict) -> None:
        if e["event"] == "level_start" and e["concurrency"] == 2 and not killed:
            killed.append(sw.server.pid)
            threading.Timer(0.8, kill, (killed[0],)).start()  # while perf_analyzer measures

    sw = Sweep(opts, kill_during_concurrency_2)
    try:
        run = sw.run_all()
        assert stubs and all(gone(pid, timeout_s=5) for pid in stubs), "the killed server's stubs outlived the sweep"
    finally:
        for pid in stubs:
            if not gone(pid, timeout_s=0):
                os.kill(pid, signal.SIGKILL)
    run_dir = sw.run_dir
    v = run.variant(TINY)
    crashed = v.level(2)
    assert killed and v.status == "failed" and not crashed.ok
    assert "tritonserver died while measuring" in crashed.error and "(its log: server.log)" in crashed.error
    assert "server.log" in v.error
    assert [s.log for s in run.server_starts] == ["server.log", "server-2.log"]
    assert run.server_starts[1].reason.startswith("tritonserver died while measuring")
    first_log = (run_dir / "server.log").read_text()
    good = dataclasses.asdict(v.level(1))
    assert v.level(1).ok

    resumed, _ = run_sweep(dataclasses.replace(opts, resume=True))
    again = resumed.variant(TINY)
    assert again.status == "ok" and again.error is None
    assert again.level(2).ok and again.level(2).throughput_infer_per_s > 0  # measured again, not kept as failed
    assert dataclasses.asdict(again.level(1)) == good  # the good level is kept as it was
    assert [s.log for s in resumed.server_starts] == ["server.log", "server-2.log", "server-3.log"]
    assert resumed.server_starts[2].reason == "run resumed"
    assert (run_dir / "server.log").read_text() == first_log  # the log the error names is still there
    assert (run_dir / "server-3.log").read_text().strip()


def test_a_variant_still_unloading_gets_the_server_restarted_before_the_next(tiny_repo: Path, tmp_path: Path):
    repo = tmp_path / "repo"
    shutil.copytree(tiny_repo, repo)
    write_python_model(repo, "slow_unload", SLOW_UNLOAD_MODEL % {"sleep_s": 30})
    opts = SweepOptions(
        ServerOptions(repo, runtime="bundled", exit_timeout_s=2),
        variants=("slow_unload", TINY),
        concurrency=(1,),
        measure=FAST,
        results_dir=tmp_path,
        run_id="stuck",
        warmup_requests=0,
        unload_timeout_s=2,
        design="sequential",
    )
    run, run_dir = run_sweep(opts)
    assert run.variant("slow_unload").status == "ok" and run.variant(TINY).status == "ok"
    assert [s.log for s in run.server_starts] == ["server.log", "server-2.log"]
    assert run.server_starts[1].reason.startswith("slow_unload was still UNLOADING 2 s after its unload request")
    # the next variant ran alone on the fresh server: its log never saw slow_unload
    second = (run_dir / "server-2.log").read_text()
    assert TINY in second and "slow_unload" not in second
