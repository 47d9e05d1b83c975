"""What perf_analyzer does with a ``--shape`` beside ``--input-data`` entries that carry their shape: the
fact the sweep's refusal (perf.sweep.preflight.check_mixed, R2) rests on, pinned on the real binary and
the bundled server, so a perf_analyzer that behaves otherwise is seen here."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from clients.runtimes.bundled import SITE_ENV
from clients.server import ServerOptions, TritonServer
from perf.measure.analyzer import find_perf_analyzer, perf_analyzer_env

#: A python-backend model that writes the shape of each request's input to SEEN (its folder's seen.txt).
MODEL_PY = """
import os, sys
sys.path.insert(0, os.environ[{site!r}])
import triton_python_backend_utils as pb_utils

SEEN = {seen!r}

class TritonPythonModel:
    def execute(self, requests):
        out = []
        for r in requests:
            x = pb_utils.get_input_tensor_by_name(r, "x").as_numpy()
            with open(SEEN, "a") as f:
                f.write(str(list(x.shape[1:])) + "\\n")
            out.append(pb_utils.InferenceResponse([pb_utils.Tensor("y", x)]))
        return out
"""


@pytest.mark.integration
def test_perf_analyzer_fails_on_a_shape_that_differs_from_the_files_and_sends_the_files(tmp_path: Path) -> None:
    repo, seen = tmp_path / "repo", tmp_path / "seen.txt"
    (repo / "echo" / "1").mkdir(parents=True)
    (repo / "echo" / "config.pbtxt").write_text(
        'name: "echo"\nbackend: "python"\nmax_batch_size: 8\ninput [{ name: "x" data_type: TYPE_FP32 dims: [-1] }]\n'
        'output [{ name: "y" data_type: TYPE_FP32 dims: [-1] }]\ninstance_group [{ kind: KIND_CPU count: 1 }]\n'
    )
    (repo / "echo" / "1" / "model.py").write_text(MODEL_PY.format(site=SITE_ENV, seen=str(seen)))
    data = tmp_path / "data.json"
    data.write_text(json.dumps({"data": [{"x": {"content": [0.5] * 120, "shape": [120]}}]}))
    binary = str(find_perf_analyzer())

    def perf_analyzer(url: str, *extra: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
        seen.unlink(missing_ok=True)
        cmd = [binary, "-m", "echo", "-i", "grpc", "-u", url, "-b", "1", "--concurrency-range", "1"]
        cmd += ["--measurement-interval", "300", "--max-trials", "3", "--input-data", str(data), *extra]
        done = subprocess.run(cmd, env=perf_analyzer_env(), capture_output=True, text=True, timeout=120)
        return done, set(seen.read_text().split()) if seen.exists() else set()

    with TritonServer(ServerOptions(repo, runtime="bundled", log_file=tmp_path / "server.log", start_timeout_s=120)) as srv:
        srv.load("echo")
        differs, sent = perf_analyzer(srv.grpc_url, "--shape", "x:400")
        assert differs.returncode != 0 and not sent
        assert 'The supplied shape of [120] for input "x" is incompatible' in differs.stdout + differs.stderr
        _, sent = perf_analyzer(srv.grpc_url, "--shape", "x:120")  # one that agrees changes nothing
        assert sent == {"[120]"}
        _, sent = perf_analyzer(srv.grpc_url)
        assert sent == {"[120]"}  # the file's shape is what is sent
