"""``clients check`` on a running server loads a variant that is not ready by the one wait of every load (trial 30,
F21), on the real bundled tritonserver: a variant whose ``model.py`` is gone leaves Triton's load request unanswered;
over gRPC the check's request had no timeout at all, over HTTP its client's 120 s. Then the wait ended at
``--start-timeout`` with "no answer" and no reason (trial 31, F13: Triton keeps the model LOADING and says why only in
its own log). Now the check sees the missing ``model.py`` in the folder before asking the server, and says so at once."""

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
def test_a_folder_that_cannot_load_is_refused_before_the_server_is_asked(tiny_repo, tiny_build, tmp_path: Path, protocol) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(tiny_repo, repo)
    stuck = tiny_build.manifest["variants"][0]
    (repo / stuck / "1" / "model.py").unlink()
    opts = ServerOptions(repo, runtime="bundled", exit_timeout_s=1, log_file=tmp_path / "server.log")
    with TritonServer(opts) as srv:
        url = srv.grpc_url if protocol == "grpc" else srv.http_url
        t0 = time.monotonic()
        args = ["check", "-r", str(repo), f"--{protocol}-url", url, "--protocol", protocol, "--variant", stuck]
        res = CliRunner().invoke(cli, [*args, "--start-timeout", "60"])
        took = time.monotonic() - t0
    assert res.exit_code == 1, res.output
    said = column_text(res.output, "result")  # the row's error, its wrapped lines joined
    assert "its folder cannot load" in said and f"{stuck}/1: model.py is missing" in said, res.output
    assert f"builders validate {repo}" in said, res.output
    assert took < 30, took  # not the 60 s --start-timeout: the old code waited it all and said only "no answer"
