"""The README's remote section works as written: its ``<!-- remote example -->`` block is run
by bash from the repository root, start to end — the launcher started with ``--http-port``
alone (gRPC and metrics at HTTP+1/+2, which ``--url`` assumes), a remote sweep through that
URL (perf_analyzer over gRPC), ``clients check`` — with only the tests' tiny model in place of
``mlp``, free ports, and temporary folders substituted."""

from __future__ import annotations

import os
import re
import signal
import subprocess
from pathlib import Path

import pytest

from clients.runtimes.host import port_in_use
from perf.records import results

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[3]
MARK = "<!-- remote example -->"


def readme_block() -> str:
    """The bash block right after :data:`MARK` in README.md."""
    text = (ROOT / "README.md").read_text()
    m = re.search(re.escape(MARK) + r"\s*```bash\n(.*?)```", text, re.S)
    assert m, f"README.md has no ```bash block after {MARK}"
    return m.group(1)


def free_block() -> int:
    import random

    for _ in range(200):
        p = random.randint(20000, 60000)
        if not any(port_in_use(p + i) for i in range(3)):
            return p
    raise AssertionError("no three consecutive free ports")


@pytest.mark.timeout(420)
def test_the_readme_remote_block_runs_as_written(tiny_repo: Path, tmp_path: Path):
    block = readme_block()
    assert "--http-port 18000 &" in block and "--grpc-port" not in block  # only the HTTP port is given
    p = free_block()
    script = (
        block.replace("18000", str(p))
        .replace("18001", str(p + 1))
        .replace("18002", str(p + 2))
        .replace("/tmp/triton-remote", str(tmp_path / "server-repo"))
        .replace("--results-dir results", f"--results-dir {tmp_path / 'results'}")
        .replace("model_repository", str(tiny_repo))
        .replace("mlp_", "tiny_")
    )
    proc = subprocess.Popen(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        env={**os.environ, "COLUMNS": "250"},
    )
    try:
        out, _ = proc.communicate(timeout=400)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 0, out[-4000:]
    run = results.load(tmp_path / "results" / "remote-demo")
    measured = {v.name: v for v in run.variants}
    assert set(measured) == {"tiny_onnx_cpu1_nodb_mbs8", "tiny_onnx_cpu1_db500_mbs8"}
    for v in measured.values():
        assert v.status == "ok" and {lv.concurrency for lv in v.levels} == {1, 2}
        assert all(lv.throughput_infer_per_s for lv in v.levels)  # perf_analyzer reached gRPC at HTTP+1
        assert v.served and v.served[0].settings.instance_groups == ["KIND_CPU x1"]
    [server] = run.servers
    assert server.url == f"localhost:{p}" and server.grpc_url == f"localhost:{p + 1}"
    assert server.models_found == [] and server.left_differently == []
    assert re.search(r"\b4 of 4 rows passed[^\n]*2 of 2 variants passed over http and grpc", out), out[-2000:]
    assert not port_in_use(p)  # `kill $server` stopped the launcher and its server
