"""``clients check`` on a running server loads a variant that is not ready by the one wait of every load (trial 30,
F21), on the real bundled tritonserver: a variant whose ``model.py`` is gone leaves Triton's load request unanswered;
over gRPC the check's request had no timeout at all, over HTTP its client's 120 s. Now the wait ends at
``--start-timeout``, which the check of a running server takes, with a row that says so."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from tables import column_text

from clients.cli.main import cli
from clients.server import ServerOptions, TritonServer

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("protocol", ["grpc", "http"])
def test_a_load_the_check_asks_for_that_never_ends_waits_its_start_timeout(
    tiny_repo, tiny_build, tmp_path: Path, protocol
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(tiny_repo, repo)
    stuck = tiny_build.manifest["variants"][0]
    (repo / stuck / "1" / "model.py").unlink()
    opts = ServerOptions(repo, runtime="bundled", exit_timeout_s=1, log_file=tmp_path / "server.log")
    with TritonServer(opts) as srv:
        url = srv.grpc_url if protocol == "grpc" else srv.http_url
        t0 = time.monotonic()
        args = ["check", "-r", str(repo), f"--{protocol}-url", url, "--protocol", protocol, "--variant", stuck]
        res = CliRunner().invoke(cli, [*args, "--start-timeout", "5"])
        took = time.monotonic() - t0
    assert res.exit_code == 1, res.output
    said = column_text(res.output, "result")  # the row's error, its wrapped lines joined
    assert "not ready and could not be loaded: its load request had no answer within 5 s" in said, res.output
    assert took < 60, took
