"""scripts/launch_tritonserver.sh for real: the bundled runtime stopped by SIGTERM, the local
runtime (the bundled binary behind a wrapper named by $TRITONSERVER) surviving no SIGKILL
of its launcher, start-up failures that carry the server's log, and a runtime that launches
nothing talking to a server started elsewhere."""

from __future__ import annotations

import contextlib
import os
import queue
import re
import shlex
import signal
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from clients.infer import infer
from clients.runtimes.base import Ports, Runtime
from clients.runtimes.bundled import write_local_wrapper
from clients.runtimes.host import HeldPorts
from clients.server import ServerOptions, TritonServer
from core.errors import ServerError

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[3]
LAUNCH = ROOT / "scripts" / "launch_tritonserver.sh"


def _launch(args: list[str], env: dict[str, str] | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        [str(LAUNCH), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
        cwd=ROOT,
    )


def _read_endpoints(proc: subprocess.Popen, timeout_s: float = 90) -> dict[str, str]:
    """Lines of stdout up to the ready-to-copy ``clients infer`` line, parsed into
    {"pid", "runtime", "http", "grpc", "metrics", "log", "models", "infer"}."""
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(ln) for ln in proc.stdout], daemon=True).start()
    found: dict[str, str] = {}
    deadline = time.monotonic() + timeout_s
    while "infer" not in found:
        if time.monotonic() > deadline or proc.poll() is not None:
            raise AssertionError(
                f"launcher printed no endpoints (rc {proc.poll()}): {found} {proc.stderr.read() if proc.poll() is not None else ''}"
            )
        try:
            line = lines.get(timeout=0.5)
        except queue.Empty:
            continue
        if m := re.match(r"tritonserver ready \(pid (\d+), runtime (\w+)\)", line):
            found["pid"], found["runtime"] = m.group(1), m.group(2)
        elif m := re.match(r"\s+(http|grpc|metrics|log|models):\s+(.+)$", line):
            found[m.group(1)] = m.group(2).strip()
        elif m := re.match(r"\s+(\S*clients infer .*)$", line):
            found["infer"] = m.group(1).strip()
    return found


def _children(pid: int) -> list[int]:
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                kids.append(int(stat.parent.name))
    return kids


def _gone(pid: int, timeout_s: float = 15) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state == "Z":  # exited, waiting for a reaper
            return True
        time.sleep(0.1)
    return False


def test_bundled_launch_prints_endpoints_and_stops_cleanly_on_sigterm(tiny_repo, tmp_path):
    log = tmp_path / "server.log"
    proc = _launch(["-r", str(tiny_repo), "--runtime", "bundled", "--log-file", str(log), "--log-verbose", "1"])
    try:
        ep = _read_endpoints(proc)
        pid = int(ep["pid"])
        assert re.fullmatch(r"localhost:\d+", ep["http"]) and re.fullmatch(r"localhost:\d+", ep["grpc"])
        assert ep["metrics"].endswith("/metrics") and ep["log"] == str(log)
        assert Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].endswith(b"tritonserver")
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        assert "runtime: bundled (asked for)" in err and "tritonserver stopped" in err
        assert _gone(pid)
        assert "Signal (2) received" in log.read_text()  # Triton's graceful shutdown, not a kill
    finally:
        if proc.poll() is None:
            proc.kill()


def test_local_runtime_does_not_outlive_a_killed_launcher(tiny_repo, tiny_build, tmp_path):
    wrapper = write_local_wrapper(tmp_path / "tritonserver")
    variant = tiny_build.manifest["variants"][0]
    proc = _launch(["-r", str(tiny_repo), "--runtime", "auto", "--load-model", variant], env={"TRITONSERVER": str(wrapper)})
    try:
        ep = _read_endpoints(proc)
        assert ep["runtime"] == "local" and ep["models"] == variant
        pid = int(ep["pid"])
        out = infer(ep["grpc"], "grpc", variant, {"INPUT__0": np.ones((2, 16), np.float32)})
        assert out["OUTPUT__0"].shape == (2, 8)
        stubs = _children(pid)  # the python-backend stub of the loaded model
        assert stubs, "expected a python backend stub process"
        proc.kill()  # SIGKILL: no clean-up code runs in the launcher
        proc.wait(10)
        err = proc.stderr.read()
        assert f"runtime: local (a tritonserver binary was found at {wrapper})" in err
        assert _gone(pid), f"tritonserver {pid} outlived its launcher"
        # the stubs go with the server's process group (its guardian), not by their own parent check,
        # which a stub can miss for good (test_a_stub_stuck_after_its_server_died_goes_with_the_killed_launcher)
        assert all(_gone(s, timeout_s=30) for s in stubs)
    finally:
        if proc.poll() is None:
            proc.kill()


#: A python-backend model whose execute() marks its start and end in files (env STUCK_MARK) and
#: sleeps between them (the toolkit's site-packages come in TRITON_TOOLKIT_SITE_PACKAGES).
_STUCK_MODEL = """
import os, sys, time
for p in os.environ.get("TRITON_TOOLKIT_SITE_PACKAGES", "").split(os.pathsep):
    if p and p not in sys.path:
        sys.path.append(p)
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        mark = os.environ["STUCK_MARK"]
        open(mark + ".started", "w").close()
        time.sleep(1.0)
        out = [pb_utils.InferenceResponse([pb_utils.Tensor("Y", pb_utils.get_input_tensor_by_name(r, "X").as_numpy())])
               for r in requests]
        open(mark + ".done", "w").close()
        return out
"""


def _wait_for(path: Path, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} not written within {timeout_s:g} s"
        time.sleep(0.05)


def test_a_stub_stuck_after_its_server_died_goes_with_the_killed_launcher(tmp_path):
    # A stub whose server dies while the stub waits for it (a response sent, not yet taken) detects
    # the death, logs "Non-graceful termination detected" and deadlocks in its own exit (Triton 2.51):
    # made certain here by stopping the server (SIGSTOP) during execute(), then killing the launcher.
    repo = tmp_path / "repo"
    (repo / "stuck" / "1").mkdir(parents=True)
    (repo / "stuck" / "config.pbtxt").write_text(
        'name: "stuck"\nbackend: "python"\nmax_batch_size: 0\n'
        'input [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]\n'
        'output [ { name: "Y" data_type: TYPE_FP32 dims: [ 1 ] } ]\n'
        "instance_group [ { kind: KIND_CPU count: 1 } ]\n"
    )
    (repo / "stuck" / "1" / "model.py").write_text(_STUCK_MODEL)
    mark = tmp_path / "execute"
    proc = _launch(["-r", str(repo), "--runtime", "bundled", "--load-model", "stuck"], env={"STUCK_MARK": str(mark)})
    stubs: list[int] = []
    try:
        ep = _read_endpoints(proc)
        pid = int(ep["pid"])
        stubs = _children(pid)
        assert stubs, "expected a python backend stub process"
        threading.Thread(target=_infer_quietly, args=(ep["http"],), daemon=True).start()
        _wait_for(mark.with_suffix(".started"))
        os.kill(pid, signal.SIGSTOP)  # the server takes no response from now on
        _wait_for(mark.with_suffix(".done"))
        time.sleep(1.0)  # the stub sends its response and waits for the server to take it
        proc.kill()  # SIGKILL: no clean-up code runs in the launcher; PDEATHSIG kills the stopped server
        proc.wait(10)
        assert _gone(pid), f"tritonserver {pid} outlived its launcher"
        assert all(_gone(s, timeout_s=30) for s in stubs), "a python-backend stub outlived its server and launcher"
    finally:
        if proc.poll() is None:
            proc.kill()
        for s in stubs:
            if not _gone(s, timeout_s=0):
                os.kill(s, signal.SIGKILL)


def _infer_quietly(http: str) -> None:
    import tritonclient.http as th

    with contextlib.suppress(Exception), contextlib.closing(th.InferenceServerClient(http, network_timeout=120)) as c:
        x = th.InferInput("X", [1], "FP32")
        x.set_data_from_numpy(np.ones(1, np.float32))
        c.infer("stuck", [x])


def test_start_failures_carry_the_log_and_leave_nothing_running(tmp_path):
    empty = tmp_path / "repo"
    (empty / "broken").mkdir(parents=True)  # a model folder without a version folder: Triton cannot load it
    (empty / "broken" / "config.pbtxt").write_text('name: "broken"\nbackend: "python"\nmax_batch_size: 0\n')
    res = subprocess.run(
        [str(LAUNCH), "-r", str(empty), "--runtime", "bundled", "--load-model", "broken"],
        capture_output=True,
        text=True,
        timeout=90,
        cwd=ROOT,
    )
    assert res.returncode == 1
    assert "error (server): tritonserver exited with code 1 during start-up" in res.stderr
    assert "broken" in res.stderr and "Traceback" not in res.stderr
    # a --load-model pattern that matches nothing is refused before any server starts, naming the models there
    res = subprocess.run(
        [str(LAUNCH), "-r", str(empty), "--runtime", "bundled", "--load-model", "mlp_*"],
        capture_output=True,
        text=True,
        timeout=90,
        cwd=ROOT,
    )
    # a --load-model pattern matching nothing is a typed mistake: exit 2 (the one rule of 3aa151c)
    assert res.returncode == 2 and "--load-model mlp_*: no variant in" in res.stderr and "known: broken" in res.stderr
    assert "tritonserver ready" not in res.stdout
    # a "server" that never answers: the readiness timeout stops it and quotes its log
    hung = tmp_path / "hung-tritonserver"
    hung.write_text("#!/bin/sh\necho 'pretending to start'\nexec sleep 60\n")
    hung.chmod(0o755)
    srv = TritonServer(ServerOptions(empty, runtime="local", binary=hung, start_timeout_s=1, log_file=tmp_path / "slow.log"))
    with pytest.raises(ServerError, match=r"not ready within 1 s; last lines of its log:\npretending to start") as e:
        srv.start()
    assert e.value.log_path == str(tmp_path / "slow.log")
    assert not srv.is_alive() and _gone(srv.pid)


def test_launcher_loads_a_pattern_and_prints_a_clients_infer_line_that_works_as_printed(tiny_repo):
    # the README's two rows: start a server with --http-port and --load-model PATTERN, then copy the printed line
    held = HeldPorts([0, 0, 0])  # held until the server binds them: Triton's layout (+1, +2) could be another's port
    port, grpc, metrics = held.ports
    ports = ["--http-port", str(port), "--grpc-port", str(grpc), "--metrics-port", str(metrics)]
    proc = _launch(["-r", str(tiny_repo), "--runtime", "bundled", *ports, "--load-model", "tiny_onnx_*"])
    try:
        ep = _read_endpoints(proc)
        assert ep["http"] == f"localhost:{port}"
        onnx = sorted(p.name for p in tiny_repo.iterdir() if p.name.startswith("tiny_onnx_"))
        assert len(onnx) == 4 and ep["models"] == ", ".join(onnx)  # the pattern loaded exactly the ONNX variants
        assert ep["infer"].startswith(".venv/bin/clients infer tiny_onnx_") and f"--url localhost:{port}" in ep["infer"]
        res = subprocess.run(shlex.split(ep["infer"]), capture_output=True, text=True, timeout=120, cwd=ROOT)
        assert res.returncode == 0, res.stderr
        assert "OUTPUT__0" in res.stdout and "inputs: INPUT__0 [1, 16] (batch 1 × [16] per sample) float32" in res.stdout
    finally:
        proc.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.communicate(timeout=60)
        if proc.poll() is None:
            proc.kill()


def test_launcher_without_models_says_how_to_load_one(tiny_repo):
    proc = _launch(["-r", str(tiny_repo), "--runtime", "bundled"])
    try:
        ep = _read_endpoints(proc)
        assert ep["models"] == "none loaded"
        assert ep["infer"].startswith(".venv/bin/clients infer MODEL --url localhost:")
    finally:
        proc.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.communicate(timeout=60)
        if proc.poll() is None:
            proc.kill()


class _Attached(Runtime):
    """A runtime that launches nothing (the shape of the planned remote runtime)."""

    name = "attached"
    launches = False

    def command(self, ports: Ports) -> list[str]:
        raise AssertionError("never asked")


def test_a_runtime_that_launches_nothing_uses_a_running_server_and_leaves_it_running(bundled_server, tiny_build):
    http = bundled_server.http_url.split(":")[1]
    grpc = bundled_server.grpc_url.split(":")[1]
    metrics = bundled_server.metrics_url.split(":")[1].split("/")[0]
    opts = ServerOptions(Path("unused"), http_port=int(http), grpc_port=int(grpc), metrics_port=int(metrics), start_timeout_s=30)
    variant = tiny_build.manifest["variants"][0]
    with TritonServer(opts, runtime=_Attached(opts)) as srv:
        assert srv.pid is None and srv.command == [] and srv.is_alive()
        srv.load(variant)
        out = infer(srv.grpc_url, "grpc", variant, {"INPUT__0": np.ones((2, 16), np.float32)})
        assert out["OUTPUT__0"].shape == (2, 8)
        srv.unload(variant)
        assert variant not in _ready_models(srv.http_url)  # unload waited until it was gone
    assert bundled_server.is_alive() and bundled_server.is_ready()  # stop() left it running


def _ready_models(url: str) -> set[str]:
    import tritonclient.http as th

    with contextlib.closing(th.InferenceServerClient(url)) as c:
        return {m["name"] for m in c.get_model_repository_index() if m.get("state") == "READY"}


def _broken_beside(tiny_repo: Path, tmp_path: Path) -> tuple[Path, str]:
    """A repository of a tiny ONNX variant and ``broken``, its copy with model.onnx truncated (as trial 25's)."""
    import shutil

    good = next(p.name for p in sorted(tiny_repo.iterdir()) if p.name.startswith("tiny_onnx_"))
    repo = tmp_path / "repo"
    repo.mkdir()
    for name in (good, "broken"):
        shutil.copytree(tiny_repo / good, repo / name)
    cfg = repo / "broken" / "config.pbtxt"
    cfg.write_text(cfg.read_text().replace(f'name: "{good}"', 'name: "broken"'))
    onnx = repo / "broken" / "1" / "model.onnx"
    onnx.write_bytes(onnx.read_bytes()[:200])
    return repo, good


def test_a_model_that_fails_a_load_request_is_its_error_s_first_line(tiny_repo, tmp_path):
    """The kind of T25-21 in a load request (clients check, a sweep): Triton's error carries the python stub's frames
    (``At:`` and a line per frame); the error says its first line, the log keeps the rest."""
    repo, good = _broken_beside(tiny_repo, tmp_path)
    with TritonServer(ServerOptions(repo, runtime="bundled", log_file=tmp_path / "s.log", start_timeout_s=120)) as srv:
        with pytest.raises(ServerError) as e:
            srv.load("broken")
        srv.load(good)
    assert e.value.message.startswith("tritonserver could not load model 'broken': "), e.value.message
    assert "Protobuf parsing failed" in e.value.message and "\n" not in e.value.message and "At:" not in e.value.message
    assert len(e.value.message.splitlines()) == 1, e.value.message


def test_a_model_that_fails_to_load_at_start_is_one_line_and_what_to_do(tiny_repo, tmp_path):
    """Trial 25, T25-21: --load-model broken,good with broken's model.onnx truncated: 38 lines of raw log (the option
    table, the python stub's frames), then the advice twice with literal \\n escapes, and nothing to do. Now one line
    per failing model (its error's first line), `builders validate`, or leave it out of --load-model."""
    repo, good = _broken_beside(tiny_repo, tmp_path)
    res = subprocess.run(
        [str(LAUNCH), "-r", str(repo), "--runtime", "bundled", "--load-model", f"broken,{good}"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert res.returncode == 1, res.stderr
    error = res.stderr[res.stderr.index("error (server):") :]
    assert error.splitlines()[0] == (
        "error (server): tritonserver exited with code 1 during start-up: 1 of the 2 models it was to load failed:"
    ), error
    assert re.match(r"  broken: .*INVALID_PROTOBUF.*Protobuf parsing failed\.$", error.splitlines()[1]), error
    assert error.splitlines()[2] == (
        f"  -> `builders validate {repo}` names what is wrong; or leave broken out of --load-model to start the rest ({good})"
    ), error
    assert len(error.splitlines()) == 4 and error.splitlines()[3].startswith("  (log: "), error
    assert "\\n" not in res.stderr and "At:" not in res.stderr and "initialize" not in res.stderr
