"""A real bundled tritonserver asked to load a python-served variant whose model.py is missing
(issue 26): the not-ready message names the missing file from the server's own log and does
not suggest raising --start-timeout."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from clients.server import ServerOptions, TritonServer
from core.errors import ServerError

pytestmark = pytest.mark.integration


def test_a_missing_model_py_is_named_not_a_longer_wait(tiny_repo: Path, tiny_build, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(tiny_repo, repo)
    name = tiny_build.manifest["variants"][0]
    (repo / name / "1" / "model.py").unlink()
    opts = ServerOptions(repo, runtime="bundled", load_models=(name,), start_timeout_s=8, log_file=tmp_path / "s.log")
    with pytest.raises(ServerError) as e:
        TritonServer(opts).start()
    hint = e.value.hint or ""
    assert f"{repo / name / '1' / 'model.py'} is missing" in hint, str(e.value) + "\n-> " + hint
    assert "--start-timeout" not in hint
