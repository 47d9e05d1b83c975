"""The remote runtime and the sweep's servers without a server: ``--url`` parsing and Triton's
port layout, the runtime choice, what a load request carries and its size, the upload limits,
which servers share hardware, the parallel lanes, and the report's Servers section."""

from __future__ import annotations

import base64
import json
import threading
from pathlib import Path

import pytest
from factories import level_result
from fake_triton import FakeTriton
from google.protobuf import json_format

from builders.config.pbtxt import read_config
from clients.runtimes.choose import resolve_runtime
from clients.runtimes.options import ServerOptions
from clients.runtimes.remote import RemoteRuntime, host_key, parse_endpoint
from clients.runtimes.tenancy import Tenancy
from clients.runtimes.upload import (
    GRPC_UPLOAD_LIMIT_BYTES,
    HTTP_UPLOAD_LIMIT_BYTES,
    deploy_payload,
    request_bytes,
    upload_limit_bytes,
)
from core.errors import PerfError, ServerError
from perf.records.results import RunResult, VariantResult
from perf.records.servers import MeasuringServer
from perf.report.sections.servers import servers_section
from perf.sweep.servers import ServerPool, metrics_identity, shared_hardware

CONFIG = """name: "m"
max_batch_size: 8
input { name: "INPUT__0" data_type: TYPE_FP32 dims: 16 }
output { name: "OUTPUT__0" data_type: TYPE_FP32 dims: 8 }
instance_group { count: 2 kind: KIND_CPU }
dynamic_batching { max_queue_delay_microseconds: 500 }
backend: "python"
"""


@pytest.mark.parametrize(
    ("given", "http", "grpc", "metrics", "protocol"),
    [
        ("10.0.0.5:8000", "10.0.0.5:8000", "10.0.0.5:8001", "10.0.0.5:8002/metrics", "http"),
        ("http://host:9000", "host:9000", "host:9001", "host:9002/metrics", "http"),
        ("grpc://host:8001", "host:8000", "host:8001", "host:8002/metrics", "grpc"),
        (" [::1]:8000 ", "[::1]:8000", "[::1]:8001", "[::1]:8002/metrics", "http"),
    ],
)
def test_a_url_and_triton_port_layout(given: str, http: str, grpc: str, metrics: str, protocol: str) -> None:
    e = parse_endpoint(given)
    assert (e.http_url, e.grpc_url, e.metrics_url, e.protocol) == (http, grpc, metrics, protocol)
    assert e.ports.http + 1 == e.ports.grpc and e.ports.http + 2 == e.ports.metrics


def test_the_metrics_url_overrides_the_layout() -> None:
    assert parse_endpoint("h:8000", "h:9102").metrics_url == "h:9102/metrics"
    assert parse_endpoint("h:8000", "http://m:9102/prom").metrics_url == "m:9102/prom"


@pytest.mark.parametrize("bad", ["host", "ftp://host:80", "host:port", "host:8000/v2", ":8000"])
def test_a_bad_url_is_refused_with_the_form_expected(bad: str) -> None:
    with pytest.raises(ServerError, match=r"is not \[http://\|grpc://\]HOST:PORT"):
        parse_endpoint(bad)


def test_url_means_remote_and_other_runtimes_refuse_it(tmp_path: Path) -> None:
    runtime, why = resolve_runtime(ServerOptions(tmp_path, urls=("h:8000",)))
    assert isinstance(runtime, RemoteRuntime) and why == "--url given"
    assert runtime.launches is False and runtime.command(runtime.fixed_ports()) == []
    with pytest.raises(ServerError, match="--runtime bundled starts one"):
        resolve_runtime(ServerOptions(tmp_path, runtime="bundled", urls=("h:8000",)))
    with pytest.raises(ServerError, match="needs the server's address"):
        resolve_runtime(ServerOptions(tmp_path, runtime="remote"))
    with pytest.raises(ServerError, match="one server here, got 2"):
        RemoteRuntime(ServerOptions(tmp_path, runtime="remote", urls=("a:8000", "b:8000")))
    assert RemoteRuntime(ServerOptions(tmp_path, urls=("a:8000",), deploy=False)).unloads() is False
    assert RemoteRuntime(ServerOptions(tmp_path, urls=("a:8000",))).unloads() is True


def test_the_load_request_carries_the_config_as_json_and_the_version_files(tmp_path: Path) -> None:
    folder = tmp_path / "m"
    (folder / "1" / "sub").mkdir(parents=True)
    (folder / "1" / "__pycache__").mkdir()
    (folder / "config.pbtxt").write_text(CONFIG)
    (folder / "1" / "model.py").write_text("print(1)\n")
    (folder / "1" / "sub" / "w.bin").write_bytes(b"\x00\x01")
    (folder / "1" / "__pycache__" / "model.cpython-311.pyc").write_bytes(b"x")
    (folder / "notes.txt").write_text("not in a version folder")
    config, files = deploy_payload(folder)
    assert sorted(files) == ["file:1/model.py", "file:1/sub/w.bin"]
    assert files["file:1/sub/w.bin"] == b"\x00\x01"
    parsed = json.loads(config)
    assert parsed["max_batch_size"] == 8 and parsed["dynamic_batching"]["max_queue_delay_microseconds"] == "500"
    # the same ModelConfig back from the JSON Triton is sent
    assert json_format.Parse(config, type(read_config(folder / "config.pbtxt"))()) == read_config(folder / "config.pbtxt")


def test_a_model_without_version_files_is_refused(tmp_path: Path) -> None:
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.pbtxt").write_text(CONFIG)
    with pytest.raises(ServerError, match="no files in a version folder"):
        deploy_payload(tmp_path / "m")


def test_request_sizes_and_limits_per_protocol() -> None:
    import tritonclient.grpc as tg

    config, files = '{"name": "m"}', {"file:1/model.onnx": b"x" * 3000}
    raw, http = request_bytes(config, files, "grpc"), request_bytes(config, files, "http")
    assert raw >= 3000 and http >= len(base64.b64encode(files["file:1/model.onnx"])) > raw  # base64 in JSON: 4/3
    http_body = json.dumps({"parameters": {"config": config, **{k: base64.b64encode(v).decode() for k, v in files.items()}}})
    assert abs(http - len(http_body)) < 64
    assert GRPC_UPLOAD_LIMIT_BYTES == tg.MAX_GRPC_MESSAGE_SIZE  # one number with tritonclient's
    assert upload_limit_bytes("http") == HTTP_UPLOAD_LIMIT_BYTES == 64 * 2**20
    assert upload_limit_bytes("grpc") == GRPC_UPLOAD_LIMIT_BYTES


def test_loopback_names_are_this_host() -> None:
    for h in ("localhost", "127.0.0.1", "127.0.1.1", "::1"):
        assert host_key(h) == "this host"
    assert host_key("192.0.2.10") == "192.0.2.10"  # TEST-NET: not this machine


def _server(url: str, host: str | None, gpus: list[str] | None = None) -> MeasuringServer:
    return MeasuringServer(url, url, url + "/metrics", "remote", "2.51.0", host, gpus or [])


def test_servers_sharing_a_host_or_a_gpu_are_found() -> None:
    a, b = _server("a:8000", "this host"), _server("b:8000", "this host")
    c, d = _server("c:8000", "10.0.0.3", ["GPU-1"]), _server("d:8000", "10.0.0.4", ["GPU-1", "GPU-2"])
    e = _server("e:8000", "10.0.0.5", ["GPU-3"])
    found = {(x.url, y.url): why for x, y, why in shared_hardware([a, b, c, d, e])}
    assert found == {("a:8000", "b:8000"): "the same host (this host)", ("c:8000", "d:8000"): "GPU GPU-1"}


def test_metrics_identity_reads_gpu_uuids_and_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import urllib.request

    text = (
        'nv_gpu_utilization{gpu_uuid="GPU-aaa"} 0.5\n'
        'nv_gpu_memory_total_bytes{gpu_uuid="GPU-bbb"} 1e9\n'
        "nv_cpu_memory_total_bytes 2.5e10\n"
        'nv_inference_count{model="m",version="1"} 3\n'
    )
    monkeypatch.setattr(urllib.request, "urlopen", lambda url, timeout: io.BytesIO(text.encode()))
    assert metrics_identity("h:8002/metrics") == (["GPU-aaa", "GPU-bbb"], 2.5e10)

    def refuse(url: str, timeout: float) -> None:
        raise OSError("refused")

    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    assert metrics_identity("h:8002/metrics") == ([], None)  # not recorded, never invented


def test_the_pool_gives_each_server_its_own_thread_and_one_variant_at_a_time(tmp_path: Path) -> None:
    run = RunResult("r", "now")
    pool = ServerPool(ServerOptions(tmp_path, urls=("a:8000", "b:8000")), run, tmp_path, "sweep started", lambda: None)
    assert [lane.opts.urls for lane in pool.lanes] == [("a:8000",), ("b:8000",)]
    busy: dict[str, int] = {}
    seen: dict[str, str] = {}
    lock = threading.Lock()
    both_busy = threading.Barrier(2, timeout=5)

    def measure(i: int, name: str) -> None:
        url = pool._lane().opts.urls[0]
        with lock:
            busy[url] = busy.get(url, 0) + 1
            assert busy[url] == 1  # one variant per server at a time
            seen[name] = url
        if i < 2:
            both_busy.wait()  # the first two run at the same time, one on each server
        with lock:
            busy[url] -= 1

    pool.each([f"v{i}" for i in range(5)], measure)
    assert sorted(seen) == [f"v{i}" for i in range(5)] and set(seen.values()) == {"a:8000", "b:8000"}

    def fail(i: int, name: str) -> None:
        raise ServerError(f"{name} broke")

    with pytest.raises(ServerError, match="broke"):
        pool.each(["x", "y"], fail)


def test_the_pool_needs_one_metrics_url_per_server(tmp_path: Path) -> None:
    opts = ServerOptions(tmp_path, urls=("a:8000", "b:8000"), metrics_urls=("a:9000",))
    with pytest.raises(PerfError, match="1 endpoint"):
        ServerPool(opts, RunResult("r", "now"), tmp_path, "sweep started", lambda: None)


def test_the_servers_section_names_who_measured_what_and_warns() -> None:
    run = RunResult("r", "now")
    a, b = _server("a:8000", "this host"), _server("b:8000", "this host", ["GPU-1"])
    a.shares_with, b.shares_with = ["b:8000"], ["a:8000"]
    run.servers = [a, b]
    run.variants = [
        VariantResult("v1", server="a:8000", levels=[level_result(1, 100.0, 2.0)]),
        VariantResult("v2", server="b:8000", levels=[level_result(1, 90.0, 2.0)]),
    ]
    text = " ".join("\n".join(servers_section(run)).split())
    assert "## Servers" in text and "`v1`" in text and "`v2`" in text and "GPU-1" in text
    assert "hardware differences" in text and "Measured in parallel on shared hardware" in text
    # trial 6: a variant the server's tenant refused reached it but was not measured there
    run.variants.append(VariantResult("v3", status="failed", error="already READY on the server", server="a:8000"))
    rows = [line for line in servers_section(run) if line.startswith("| `a:8000`")]
    assert rows and rows[0].split("|")[-3].strip() == "`v1`" and rows[0].split("|")[-2].strip() == "`v3`"
    run.variants[1] = VariantResult("v2", status="failed", error="refused", server="b:8000")
    assert "hardware differences" not in " ".join(servers_section(run))  # measured on one server only
    # one server the toolkit started: nothing to add
    run.servers = [MeasuringServer("h:1", "h:2", "h:3/metrics", "bundled")]
    assert servers_section(run) == []


class FakeClient:
    """What RemoteRuntime.load_model asks of a tritonclient HTTP client, recorded."""

    def __init__(self, ready: bool = False, index: tuple[str, ...] = (), served: dict | None = None):
        self.ready, self.index, self.served, self.loads = ready, index, served or {}, []

    def is_model_ready(self, model: str) -> bool:
        return self.ready

    def get_model_repository_index(self) -> list[dict]:
        return [{"name": n} for n in self.index]

    def get_model_config(self, model: str) -> dict:
        return self.served

    def load_model(self, model: str, config: str | None = None, files: dict | None = None) -> None:
        self.loads.append((model, config, files))


@pytest.fixture
def variant_repo(tmp_path: Path) -> Path:
    folder = tmp_path / "repo" / "m"
    (folder / "1").mkdir(parents=True)
    (folder / "config.pbtxt").write_text(CONFIG)
    (folder / "1" / "model.py").write_bytes(b"x" * 4000)
    return tmp_path / "repo"


#: What Triton serves at /v2/models/m/config for CONFIG (its fields, as the bundled 2.51 answers).
SERVED = {
    "name": "m",
    "backend": "python",
    "max_batch_size": 8,
    "instance_group": [{"name": "m_0", "kind": "KIND_CPU", "count": 2, "gpus": []}],
    "dynamic_batching": {"preferred_batch_size": [], "max_queue_delay_microseconds": 500},
    "optimization": {"priority": "PRIORITY_DEFAULT"},
}


def test_upload_sends_the_config_and_files_under_the_limit_and_nothing_above(
    variant_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rt = RemoteRuntime(ServerOptions(variant_repo, urls=("h:8000",)))
    monkeypatch.setattr(rt, "grpc_answers", lambda: False)  # HTTP upload through the given client
    c = FakeClient()
    rt.load_model(c, "m")
    [(name, config, files)] = c.loads
    assert name == "m" and json.loads(config)["name"] == "m" and files == {"file:1/model.py": b"x" * 4000}
    small = RemoteRuntime(ServerOptions(variant_repo, urls=("h:8000",), max_upload_bytes=4000))
    monkeypatch.setattr(small, "grpc_answers", lambda: False)
    c = FakeClient()
    with pytest.raises(ServerError, match=r"above the .* limit \(--max-upload-mb\); nothing was sent.*--remote-repository"):
        small.load_model(c, "m")
    assert c.loads == []


def test_remote_repository_loads_by_name_what_the_server_lists(variant_repo: Path) -> None:
    rt = RemoteRuntime(ServerOptions(variant_repo, urls=("h:8000",), remote_repository="/models"))
    c = FakeClient(index=("m",))
    rt.load_model(c, "m")
    assert c.loads == [("m", None, None)]  # by name: nothing uploaded
    with pytest.raises(ServerError, match=r"not in the repository of the server .*--remote-repository /models"):
        rt.load_model(FakeClient(index=("other",)), "m")


def test_no_deploy_measures_only_a_loaded_model_with_the_local_settings(variant_repo: Path) -> None:
    rt = RemoteRuntime(ServerOptions(variant_repo, urls=("h:8000",), deploy=False))
    with pytest.raises(ServerError, match="is not loaded on the server"):
        rt.load_model(FakeClient(ready=False), "m")
    c = FakeClient(ready=True, served=SERVED)
    assert rt.load_model(c, "m") is None  # nothing loaded, nothing known of its files
    assert c.loads == []  # nothing sent
    other = {**SERVED, "instance_group": [{"kind": "KIND_CPU", "count": 4}]}
    other.pop("dynamic_batching")
    server = FakeTriton(loaded={"m": other})
    tenancy = Tenancy.snapshot(server, url="h:8000", repository=variant_repo, loads=rt.unloads())
    with pytest.raises(ServerError, match=r"instance_group: variant \['KIND_CPU x2'\], served \['KIND_CPU x4'\]") as e:
        tenancy.load(server, "m", lambda: rt.load_model(server, "m"), lambda m: not server.unload_model(m), rt.mismatch_hint())
    assert "dynamic_batching: variant max_queue_delay 500 µs, served off" in e.value.message
    assert "drop --no-deploy" in (e.value.hint or "")
    assert server.calls == [] and "m" in server.loaded  # theirs: neither claimed nor unloaded


def test_no_deploy_is_refused_on_several_servers(tmp_path: Path) -> None:
    opts = ServerOptions(tmp_path, urls=("a:8000", "b:8000"), deploy=False)
    with pytest.raises(PerfError, match="--no-deploy with 2 servers"):
        ServerPool(opts, RunResult("r", "now"), tmp_path, "sweep started", lambda: None)


def test_clients_infer_takes_the_protocol_from_a_scheme(monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    import clients.infer
    from clients.cli.main import cli

    asked = []

    def signature(url: str, protocol: str, model: str) -> None:
        asked.append((url, protocol))
        raise ServerError("stop here")

    monkeypatch.setattr(clients.infer, "model_signature", signature)
    CliRunner().invoke(cli, ["infer", "m", "--url", "grpc://h:9001"])
    assert asked == [("h:9001", "grpc")]
    bad = CliRunner().invoke(cli, ["infer", "m", "--url", "ftp://h:1"])
    assert bad.exit_code == 2 and "http:// or grpc://" in bad.output


def test_conclusions_name_the_servers_when_they_ran_elsewhere() -> None:
    from perf.report.sections.servers import measured_elsewhere

    run = RunResult("r", "now")
    run.servers = [_server("a:8000", "this host")]
    assert measured_elsewhere(run) is None  # loopback: this host's description holds
    run.servers = [_server("10.0.0.5:8000", "10.0.0.5", ["GPU-1"])]
    assert measured_elsewhere(run) == "the server at `10.0.0.5:8000` (host 10.0.0.5, Triton 2.51.0, 1 GPU reported)"


def test_a_memory_gauge_read_before_tritons_first_poll_is_read_again_never_recorded_as_0(monkeypatch: pytest.MonkeyPatch) -> None:
    # trial 7 F12: a resumed session's server, scraped right after it was ready, read
    # nv_cpu_memory_total_bytes 0 (Triton's gauges before its first poll): "CPU memory 0.0 GiB"
    import io
    import urllib.request

    import perf.sweep.servers as servers

    answers = ["nv_cpu_memory_total_bytes 0\n", "nv_cpu_memory_total_bytes 0\n", "nv_cpu_memory_total_bytes 2.5e10\n"]
    monkeypatch.setattr(servers, "FIRST_POLL_STEP_S", 0.0)
    monkeypatch.setattr(urllib.request, "urlopen", lambda url, timeout: io.BytesIO(answers.pop(0).encode()))
    assert metrics_identity("h:8002/metrics") == ([], 2.5e10) and not answers
    monkeypatch.setattr(urllib.request, "urlopen", lambda url, timeout: io.BytesIO(b"nv_cpu_memory_total_bytes 0\n"))
    assert metrics_identity("h:8002/metrics", first_poll_wait_s=0.0) == ([], None)  # never polled: not recorded
    # a run saved with the 0 reads as not recorded: the report's Servers table says "-", not "0.0 GiB"
    assert _server("a:8000", "this host").cpu_memory_total_bytes is None
    zero = MeasuringServer("a:8000", "a:8001", "a:8002/metrics", "bundled", cpu_memory_total_bytes=0.0)
    assert zero.cpu_memory_total_bytes is None
