"""Where the log of a server is, said where a message knows the server by its address only (issue 26, K1; s16's
left open): `clients infer --url`'s "check its log" / "check the server log" / "the server log has the rest", the
tenancy's "the server's log says why the load failed", and a --url server's failed load, which named a log file of
this host that no server had written ("(log: ~/.cache/.../tritonserver-<time>.log)"). A server this process started
is named by its log file (clients.runtimes.host.log_where); any other by the one sentence for a server this command
did not start (not_ours), which also says where the toolkit's own launcher keeps the logs it writes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fake_triton import FakeTriton

import clients.infer
from clients.runtimes.host import log_where, not_ours, started_here
from clients.runtimes.options import ServerOptions, server_log_dir
from clients.runtimes.remote import RemoteRuntime
from clients.runtimes.tenancy import Tenancy
from core.errors import ClientError, ServerError

CONFIG = """name: "m"
max_batch_size: 8
input { name: "INPUT__0" data_type: TYPE_FP32 dims: 16 }
output { name: "OUTPUT__0" data_type: TYPE_FP32 dims: 8 }
backend: "python"
"""
VAGUE = ("check its log", "check the server log", "read the server log", "the server log has the rest", "server's log says")


def _vague(text: str) -> list[str]:
    return [v for v in VAGUE if v in text]


class _NotReady:
    """A server that answers but has model ``m`` unavailable (its index says why)."""

    def is_server_live(self) -> bool:
        return True

    def is_model_ready(self, model: str) -> bool:
        return False

    def get_model_repository_index(self) -> list[dict[str, str]]:
        return [{"name": "m", "state": "UNAVAILABLE", "reason": "load failed"}]


def test_a_server_given_by_address_is_said_not_ours_with_where_the_launcher_keeps_logs() -> None:
    said = not_ours("h:8000")
    assert "the server at http://h:8000 was not started by this command, so no log of it is kept here" in said
    assert str(server_log_dir()) in said and "`docker logs CONTAINER`" in said
    assert log_where("h:8001", "grpc") == not_ours("h:8001", scheme="grpc") and "grpc://h:8001" in log_where("h:8001", "grpc")


def test_clients_infer_says_where_the_log_of_its_server_is() -> None:
    with pytest.raises(ClientError) as e:
        clients.infer.model_io(_NotReady(), "m", "http", "h:8000")
    assert not_ours("h:8000") in (e.value.hint or "") and not _vague(str(e.value)), str(e.value)

    class NotLive:
        def is_server_live(self) -> bool:
            return False

    with pytest.raises(ClientError) as e:
        clients.infer._connect(NotLive(), "h:8001", "grpc")
    assert e.value.hint == not_ours("h:8001", scheme="grpc")
    refused = clients.infer._refusal("m", "inference request refused: bad input", {"x": np.zeros(2)}, log_where("h:8000"))
    assert not_ours("h:8000") in (refused.hint or "") and not _vague(str(refused)), str(refused)


def test_a_server_this_process_started_is_named_by_its_log_file() -> None:
    log = Path("/somewhere/tritonserver.log")
    started_here(("127.0.0.1:18000", "127.0.0.1:18001"), log)
    try:
        with pytest.raises(ClientError) as e:
            clients.infer.model_io(_NotReady(), "m", "http", "127.0.0.1:18000")
        assert f"its log, {log}, says why" in (e.value.hint or "") and "not started by this command" not in str(e.value)
        assert log_where("127.0.0.1:18001", "grpc") == f"its log, {log}, says why"
    finally:
        started_here(("127.0.0.1:18000", "127.0.0.1:18001"), None)
    assert log_where("127.0.0.1:18000") == not_ours("127.0.0.1:18000")  # stopped: no longer this process's


def test_the_tenancys_failed_load_says_where_the_log_is(tmp_path: Path) -> None:
    server = FakeTriton()
    tenancy = Tenancy.snapshot(server, url="h:8000", repository=tmp_path)
    with pytest.raises(ServerError) as e:
        tenancy.load(server, "m", lambda: None, lambda m: True, "")
    assert "is not ready on the server at h:8000" in e.value.message
    assert not_ours("h:8000") in (e.value.hint or "") and not _vague(str(e.value)), str(e.value)


def test_a_url_servers_failed_load_names_no_log_file_of_this_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tritonclient.http as th
    from tritonclient.utils import InferenceServerException

    from clients.server import TritonServer

    (tmp_path / "repo" / "m" / "1").mkdir(parents=True)
    (tmp_path / "repo" / "m" / "config.pbtxt").write_text(CONFIG)
    (tmp_path / "repo" / "m" / "1" / "model.py").write_text("x")
    monkeypatch.setattr(RemoteRuntime, "check", lambda self: None)  # no server at h:8000 to ask
    srv = TritonServer(ServerOptions(tmp_path / "repo", urls=("h:8000",)))
    srv.tenancy = Tenancy({}, url=srv.http_url, repository=tmp_path / "repo")

    class Client:
        def __init__(self, *a: Any, **kw: Any) -> None:
            pass

        def close(self) -> None:
            pass

        def is_model_ready(self, model: str) -> bool:
            return False

        def get_model_repository_index(self) -> list[dict]:
            return []

        def get_inference_statistics(self, *a: Any, **kw: Any) -> dict:
            return {"model_stats": []}

    def refused(client: Any, model: str) -> None:
        raise InferenceServerException("load failed for model 'm': version 1 is at UNAVAILABLE state: boom")

    monkeypatch.setattr(th, "InferenceServerClient", Client)
    monkeypatch.setattr(srv.runtime_impl, "load_model", refused)
    with pytest.raises(ServerError) as e:
        srv.load("m")
    assert e.value.log_path is None and "tritonserver-" not in str(e.value), str(e.value)  # no file of this host
    assert e.value.message == "the server at http://h:8000 could not load model 'm': load failed for model 'm': " + (
        "version 1 is at UNAVAILABLE state: boom"
    )
    assert e.value.hint == not_ours("h:8000")


@pytest.mark.integration
def test_a_server_the_toolkit_starts_is_named_by_its_log_while_it_runs(tiny_repo: Path, tmp_path: Path) -> None:
    from clients.server import TritonServer

    log = tmp_path / "tritonserver.log"
    with TritonServer(ServerOptions(tiny_repo, runtime="bundled", log_file=log, start_timeout_s=120)) as srv:
        assert log_where(srv.http_url) == f"its log, {log}, says why" == log_where(srv.grpc_url, "grpc")
        urls = srv.http_url, srv.grpc_url
    assert log_where(urls[0]) == not_ours(urls[0])  # stopped
