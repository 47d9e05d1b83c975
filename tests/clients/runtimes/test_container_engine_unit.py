"""The container runtime with no Docker engine (issue 26; a fake ``docker`` on PATH, no Docker
here): with the daemon down, ``--runtime container`` said "tritonserver exited with code 125" and
blamed models, ports and libraries. The engine is checked before the start, and docker's own exit
codes are said to be docker's."""

from __future__ import annotations

from pathlib import Path

import pytest

from clients.runtimes.options import ServerOptions
from clients.server import TritonServer
from core.errors import ServerError

DAEMON_DOWN = "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?"


def _fake_docker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, info_rc: int, run_rc: int) -> None:
    """A ``docker`` whose ``info`` exits ``info_rc`` and whose ``run`` says the daemon is down and exits ``run_rc``."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "docker").write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = info ]; then echo "Client: Docker Engine"; [ {info_rc} = 0 ] || echo "ERROR: {DAEMON_DOWN}" >&2; '
        f"exit {info_rc}; fi\n"
        f'if [ "$1" = run ]; then echo "docker: {DAEMON_DOWN}" >&2; exit {run_rc}; fi\n'
        "exit 0\n"
    )
    (bindir / "docker").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    r.mkdir()
    return r


def _server(repo: Path, tmp_path: Path) -> TritonServer:
    return TritonServer(ServerOptions(repo, runtime="container", shm_size="1g", log_file=tmp_path / "server.log"))


def test_a_container_engine_that_does_not_answer_is_said_before_the_start(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_docker(tmp_path, monkeypatch, info_rc=1, run_rc=125)
    srv = _server(repo, tmp_path)  # --print-cmd needs no engine
    assert srv.command[:2] == ["docker", "run"]
    with pytest.raises(ServerError) as e:
        srv.start()
    text = str(e.value)
    assert e.value.message.startswith("the container engine is not running: `docker info` fails (exit 1: ERROR: Cannot")
    assert "--runtime bundled" in (e.value.hint or "") and "tritonserver exited" not in text
    assert "a model that fails to load" not in text and not (tmp_path / "server.log").exists()


def test_docker_runs_own_exit_code_is_docker_not_tritonserver(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_docker(tmp_path, monkeypatch, info_rc=0, run_rc=125)  # the engine answered, then docker run failed
    with pytest.raises(ServerError) as e:
        _server(repo, tmp_path).start()
    assert e.value.message.startswith(
        "docker run exited with code 125: docker could not start the container (tritonserver never ran) during start-up"
    )
    assert DAEMON_DOWN in e.value.message  # the log's tail: docker's own words
    assert "a model that fails to load" not in (e.value.hint or "") and "docker's message" in (e.value.hint or "")


def test_no_docker_on_path_is_said_as_that_not_as_an_engine_that_is_down(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A trial without Docker installed read "the container engine is not running" and started a
    daemon that was never there: no ``docker`` command is its own cause, with its own fix."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(ServerError) as e:
        _server(repo, tmp_path).start()
    assert e.value.message.startswith("no docker client on PATH: the container runtime runs `docker run`")
    assert "not running" not in e.value.message and "systemctl start docker" not in (e.value.hint or "")
    assert "install Docker" in (e.value.hint or "") and "--runtime bundled" in (e.value.hint or "")
