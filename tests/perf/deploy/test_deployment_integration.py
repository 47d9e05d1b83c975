"""End to end through the CLIs: a real small sweep (bundled tritonserver, real perf_analyzer),
then ``triton-perf export-deployment`` of its recommendation; the manifests read back with the
``kubernetes`` client."""

from __future__ import annotations

import hashlib
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from builders.config.pbtxt import read_config
from perf.deploy import k8s
from perf.deploy.bundle import MANIFEST_DIR, SERVER_FILE, STORAGE_FILE
from perf.deploy.measured import Measured, cpu_request_cores
from perf.records import results

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[3]
VARIANT = "tiny_onnx_cpu1_nodb_mbs8"


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "perf.cli.main", *args], cwd=ROOT, capture_output=True, text=True, timeout=240)


def test_the_winner_of_a_real_sweep_becomes_a_bundle(tiny_repo: Path, tmp_path: Path):
    sweep = _cli(
        "sweep",
        "--runtime=bundled",
        f"--repository={tiny_repo}",
        f"--variants={VARIANT}",
        "--concurrency=1",
        "--round-window=300",
        f"--results-dir={tmp_path}",
        "--run-id=r",
        "--no-report",
        "--no-baseline",  # the sweep is only there to produce a winner
    )
    assert sweep.returncode == 0, sweep.stderr[-2000:]
    run_dir = tmp_path / "r"
    assert results.load(run_dir).variant(VARIANT).status == "ok"

    out = _cli("export-deployment", str(run_dir))
    assert out.returncode == 0, out.stderr[-2000:]
    assert f"variant: {VARIANT} (the run's recommendation" in out.stdout
    assert "python-backend" in out.stderr  # the bundled server measured it through model.py: said
    bundle = run_dir / f"deployment-{VARIANT}"
    assert f"bundle: {bundle}" in out.stdout
    assert read_config(bundle / "model_repository" / VARIANT / "config.pbtxt").platform == "onnxruntime_onnx"

    objs = {o.kind: o for f in (STORAGE_FILE, SERVER_FILE) for o in k8s.read_manifests(bundle / MANIFEST_DIR / f)}
    assert set(objs) == {"PersistentVolumeClaim", "Pod", "Deployment", "Service"}
    (c,) = objs["Deployment"].spec.template.spec.containers
    assert (c.readiness_probe.http_get.path, c.liveness_probe.http_get.path) == ("/v2/health/ready", "/v2/health/live")
    assert {p.name: p.container_port for p in c.ports} == {"http": 8000, "grpc": 8001, "metrics": 8002}
    run = results.load(run_dir)
    measured_cores = [lv.server_cpu_cores for lv in run.variant(VARIANT).levels if lv.ok]  # one level, every round
    assert measured_cores and all(c is not None and c > 0 for c in measured_cores)  # the server's own CPU, measured here
    cores = statistics.median(measured_cores)
    busy = [lv.host_busy_pct / 100 for lv in run.variant(VARIANT).levels if lv.ok and lv.host_busy and lv.host_busy_pct]
    others = statistics.median(busy) if busy else None  # measured while others kept the host busy: one core per instance
    request = k8s.Resources(None, cpu_request_cores(Measured(None, cores, "", others)) or 1, ()).cpu_quantity
    assert c.resources.requests == {"cpu": request}  # the measured server CPU, rounded up to a tenth of a core
    assert not c.resources.limits  # KIND_CPU x1: no GPU
    # what was measured is what is deployed: the python model's threads on this host, written for onnxruntime
    threads = run.variant(VARIANT).threads_per_instance
    assert threads == os.cpu_count()  # one instance: every core of this host (the python model's rule)
    cfg = read_config(bundle / "model_repository" / VARIANT / "config.pbtxt")
    assert cfg.parameters["intra_op_thread_count"].string_value == str(threads)
    readme = " ".join((bundle / "README.md").read_text().split())
    assert (
        f"Measured with {threads} intra-op thread{'' if threads == 1 else 's'} per instance" in readme
        and "backend: measured python" in readme
    )
    assert [p.port for p in objs["Service"].spec.ports] == [8000, 8001, 8002]

    refused = _cli("export-deployment", str(run_dir), "--variant", "nope")
    assert refused.returncode == 2  # a name typed that the run does not hold: a usage error of --variant (T19-2)
    assert "Invalid value for --variant: variant 'nope' is not in run r" in refused.stderr
    assert f"valid variants of run r: {VARIANT}" in refused.stderr


def test_a_rebuild_after_a_real_sweep_is_refused_by_export_and_resume(tiny_repo: Path, tmp_path: Path):
    # issue 26: the sweep stamps each file it measured by content; after other weights are written
    # under the same variant name, neither a bundle nor a resumed run uses them
    repo = tmp_path / "repo"
    shutil.copytree(tiny_repo, repo)
    args = ["--runtime=bundled", f"--repository={repo}", f"--results-dir={tmp_path}", "--run-id=r", "--no-report"]
    sweep = _cli("sweep", *args, f"--variants={VARIANT}", "--concurrency=1", "--round-window=300", "--no-baseline")
    assert sweep.returncode == 0, sweep.stderr[-2000:]
    (stamp,) = [s for s in results.load(tmp_path / "r").variant(VARIANT).served if s.moment == "after load"]
    assert stamp.artifact is not None and {f.path for f in stamp.artifact.files} == {"1/model.onnx", "1/model.py"}
    model = repo / VARIANT / "1" / "model.onnx"
    measured = next(f for f in stamp.artifact.files if f.path == "1/model.onnx")
    assert measured.sha256 == hashlib.sha256(model.read_bytes()).hexdigest()
    data = bytearray(model.read_bytes())
    data[-20] ^= 0xFF  # other weights, same graph: what a rebuild after editing the model writes
    model.unlink()
    model.write_bytes(bytes(data))
    measured_run = (tmp_path / "r" / results.RESULTS_FILE).read_bytes()

    out = _cli("export-deployment", str(tmp_path / "r"))
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert f"are not the ones run r measured ({VARIANT}: 1/model.onnx: measured" in " ".join(out.stderr.split())
    assert not (tmp_path / "r" / f"deployment-{VARIANT}").exists()
    assert (tmp_path / "r" / results.RESULTS_FILE).read_bytes() == measured_run
    # a finished run serves nothing more: it says so, whatever the files (trial 7 F22); no server is started
    done = _cli("sweep", "--resume=r", f"--results-dir={tmp_path}", "--no-report")
    said = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 0 and "nothing more is measured into it" in said, said[-2000:]
    assert not (tmp_path / "r" / "server-2.log").exists()
    # a run stopped before its end would measure them further: refused, the run as it was
    run = results.load(tmp_path / "r")
    run.finished = None
    assert run.rounds is not None and len(run.rounds.measured()) > 1
    run.rounds.rounds = run.rounds.rounds[:1]  # its rounds not ended (one round, fewer than min_rounds): more are measured
    results.save(run, tmp_path / "r")
    before = (tmp_path / "r" / results.RESULTS_FILE).read_bytes()
    resumed = _cli("sweep", "--resume=r", f"--results-dir={tmp_path}", "--no-report")
    assert resumed.returncode == 1 and "a resumed measurement of them" in " ".join(resumed.stderr.split())
    assert (tmp_path / "r" / results.RESULTS_FILE).read_bytes() == before and not (tmp_path / "r" / "server-2.log").exists()
