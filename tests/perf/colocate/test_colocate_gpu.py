"""The GPU path of triton-perf colocate (perf.colocate.gpu): KIND_GPU variants of several models on
one server, each one's GPU memory and the GPUs' use in every visit. Unit tests fake the metrics
page (a local HTTP server answering as Triton's /metrics and statistics would) and perf_analyzer;
the test marked ``gpu`` runs the bundled server on a real GPU and skips here without one."""

from __future__ import annotations

import http.server
import json
import re
import shutil
import stat
import sys
import threading
import types
from collections.abc import Iterator
from pathlib import Path

import pytest
from factories import served_model

from clients.runtimes.served import Loaded
from core.errors import PerfError
from core.gpu import gpu_available
from perf.colocate import gpu as gpu_module
from perf.colocate.gpu import (
    FROM_METRICS,
    FROM_NVML,
    GpuProbe,
    check_devices,
    parse_gpu_gauges,
    reported_gpu_bytes,
    shared_devices,
)
from perf.colocate.groups import groups_of
from perf.colocate.options import ColocateOptions
from perf.records import colocation
from perf.report.colocation import report_lines

MIB = 2**20
#: What each variant takes on the device when loaded (the fake server adds it to GPU-0's memory).
ON_DEVICE = {"big_g1": 700 * MIB, "big_g2": 1400 * MIB, "small_g1": 300 * MIB, "small_g2": 600 * MIB}
BASE = 500 * MIB


def _page(memory: float, util: float, devices: int = 1) -> str:
    lines = ["# HELP nv_gpu_memory_used_bytes GPU used memory, in bytes", "# TYPE nv_gpu_memory_used_bytes gauge"]
    lines += [f'nv_gpu_memory_used_bytes{{gpu_uuid="GPU-{i}"}} {memory if i == 0 else BASE}' for i in range(devices)]
    lines += ["# HELP nv_gpu_utilization GPU utilization rate [0.0 - 1.0)", "# TYPE nv_gpu_utilization gauge"]
    lines += [f'nv_gpu_utilization{{gpu_uuid="GPU-{i}"}} {util if i == 0 else 0.0}' for i in range(devices)]
    lines += ["# TYPE nv_cpu_utilization gauge", "nv_cpu_utilization 0.5"]
    return "\n".join(lines) + "\n"


def test_triton_metrics_give_memory_and_utilisation_per_gpu_not_per_model() -> None:
    got = parse_gpu_gauges(_page(1500 * MIB, 0.42, devices=2))
    assert got == {"GPU-0": (1500 * MIB, 42.0), "GPU-1": (BASE, 0.0)}
    assert parse_gpu_gauges("# TYPE nv_cpu_utilization gauge\nnv_cpu_utilization 0.5\n") == {}  # a CPU server


def test_the_backends_own_report_is_read_when_it_reports_one() -> None:
    stats = {
        "model_stats": [
            {
                "name": "m",
                "memory_usage": [{"type": "GPU", "id": 0, "byte_size": 5 * MIB}, {"type": "CPU", "id": 0, "byte_size": 9}],
            }
        ]
    }
    assert reported_gpu_bytes(stats) == 5 * MIB
    assert reported_gpu_bytes({"model_stats": [{"name": "m"}]}) is None  # the python/onnxruntime backends report none
    assert reported_gpu_bytes({"model_stats": [{"name": "m", "memory_usage": []}]}) is None


def test_a_models_gpu_memory_is_the_device_memory_after_its_load_minus_before() -> None:
    pages = iter([{"GPU-0": (BASE, 0.0)}, {"GPU-0": (BASE + 700 * MIB, 3.0)}])
    waits: list[float] = []
    probe = GpuProbe(
        "m:8002/metrics", "m:8000", 0.2, local=True, scrape=lambda _u: next(pages), stats=lambda _v: {}, sleep=waits.append
    )
    loads: list[str] = []
    got = probe.model_memory("big", "big_g1", [0], ["small_g1"], lambda: loads.append("big_g1"))
    assert loads == ["big_g1"] and got.delta_bytes == 700 * MIB and got.reported_bytes is None
    assert got.before_bytes == {"GPU-0": BASE} and got.loaded_with == ["small_g1"] and got.source == FROM_METRICS
    assert len(waits) == 2 and all(w > 0.2 for w in waits)  # each reading waits for the gauges' refresh


def test_nvml_stands_in_for_a_server_here_without_gpu_gauges_and_nothing_elsewhere() -> None:
    nvml = iter([{"nvml:0": (BASE, 0.0)}, {"nvml:0": (BASE + 300 * MIB, 0.0)}])
    probe = GpuProbe(
        "m", "m", 0.5, local=True, scrape=lambda _u: {}, nvml=lambda: next(nvml), stats=lambda _v: {}, sleep=lambda _s: None
    )
    got = probe.model_memory("small", "small_g1", [], [], lambda: None)
    assert got.delta_bytes == 300 * MIB and got.source == FROM_NVML
    remote = GpuProbe(
        "m",
        "m",
        0.5,
        local=False,
        scrape=lambda _u: {},
        nvml=lambda: {"nvml:0": (1.0, 1.0)},
        stats=lambda _v: {},
        sleep=lambda _s: None,
    )
    assert remote.read() == {} and remote.model_memory("s", "s1", [], [], lambda: None).delta_bytes is None


def test_no_gpu_where_the_server_runs_is_refused_never_run_on_the_cpu() -> None:
    with pytest.raises(PerfError, match="this host has no NVIDIA GPU .*not measured on the CPU instead"):
        check_devices({"big_g1": (0,), "small_g1": ()}, local=True, visible=0)
    with pytest.raises(PerfError, match="the server's metrics report no GPU"):
        check_devices({"big_g1": (0,)}, local=False, visible=0, remote_devices=[])
    with pytest.raises(PerfError, match=r"big_g1 lists GPU 1, 3: the server sees 1 GPU \(ids 0-0\)"):
        check_devices({"big_g1": (1, 3), "small_g1": (0,)}, local=True, visible=1)
    check_devices({"big_g1": (0,), "small_g1": ()}, local=True, visible=1)
    check_devices({}, local=True, visible=0)  # no GPU variant: nothing to check


def test_which_devices_a_combination_shares() -> None:
    assert shared_devices({"a": (0,), "b": (0, 1)}) == "a on GPU 0, b on GPU 0, 1: sharing GPU 0"
    assert shared_devices({"a": (0,), "b": (1,)}) == "a on GPU 0, b on GPU 1: no device shared by all"
    assert "share them" in shared_devices({"a": (), "b": (0,)})
    assert shared_devices({"a": (0,), "b": None}) == "one model on the GPU"


def _repo(tmp_path: Path, kinds: dict[str, tuple[str, int, str]]) -> Path:
    """Variants name -> (kind, count, gpus list text)."""
    repo = tmp_path / "repo"
    for name, (kind, count, gpus) in kinds.items():
        (repo / name / "1").mkdir(parents=True)
        group = f"count: {count} kind: {kind}" + (f" gpus: [{gpus}]" if gpus else "")
        (repo / name / "config.pbtxt").write_text(
            f'name: "{name}"\nbackend: "python"\nmax_batch_size: 8\ninstance_group {{ {group} }}\n'
        )
    return repo


GPU_REPO = {
    "big_g1": ("KIND_GPU", 1, "0"),
    "big_g2": ("KIND_GPU", 2, "0"),
    "small_g1": ("KIND_GPU", 1, ""),
    "small_g2": ("KIND_GPU", 1, "0, 1"),
}


def test_instances_and_device_ids_of_kind_gpu_groups(tmp_path: Path) -> None:
    repo = _repo(tmp_path, GPU_REPO)
    assert groups_of(repo, "big_g2", 2).instances == 2 and groups_of(repo, "big_g2", 2).gpu_ids == (0,)
    assert groups_of(repo, "small_g1", 2).instances == 2 and groups_of(repo, "small_g1", 2).gpu_ids == ()  # every GPU
    assert groups_of(repo, "small_g2", 4).instances == 2 and groups_of(repo, "small_g2", 4).gpu_ids == (0, 1)


def _opts(repo: Path, tmp_path: Path, **kw: object) -> ColocateOptions:
    from clients.runtimes.options import ServerOptions

    return ColocateOptions(
        server=ServerOptions(repository=repo, metrics_interval_ms=20),
        models={"big": ("big_*",), "small": ("small_*",)},
        results_dir=tmp_path / "results",
        run_id="g",
        **kw,  # type: ignore[arg-type]
    )


def test_kind_gpu_variants_on_a_host_without_a_gpu_are_refused_before_the_server_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import perf.colocate.run as run_module

    repo = _repo(tmp_path, GPU_REPO)
    monkeypatch.setattr(run_module, "local_gpus", lambda: 0)
    with pytest.raises(
        PerfError, match="big_g1, big_g2, small_g1, small_g2: KIND_GPU instance groups, but this host has no NVIDIA GPU"
    ):
        run_module.Colocate(_opts(repo, tmp_path))
    assert not (tmp_path / "results" / "g").exists()
    monkeypatch.setattr(run_module, "local_gpus", lambda: 1)
    with pytest.raises(PerfError, match=r"small_g2 lists GPU 1: the server sees 1 GPU \(ids"):
        run_module.Colocate(_opts(repo, tmp_path))


class _Metrics(http.server.BaseHTTPRequestHandler):
    """Triton's /metrics (GPU-0 memory: the base plus every loaded variant's) and statistics."""

    server_state: dict[str, object] = {}

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        state = self.server_state
        loaded = state["loaded"]
        assert isinstance(loaded, list)
        if self.path.startswith("/metrics"):
            memory = BASE + sum(ON_DEVICE[v] for v in loaded)
            body = _page(memory, 0.6 if state.get("busy") else 0.05).encode()
        else:  # /v2/models/<name>/stats: the backend reports memory for big_g2 only
            name = self.path.split("/")[3]
            usage = [{"type": "GPU", "id": 0, "byte_size": 1000 * MIB}] if name == "big_g2" else []
            body = json.dumps({"model_stats": [{"name": name, "version": "1", "memory_usage": usage}]}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def metrics_server() -> Iterator[tuple[str, dict[str, object]]]:
    state: dict[str, object] = {"loaded": []}
    handler = type("Handler", (_Metrics,), {"server_state": state})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"127.0.0.1:{httpd.server_address[1]}", state
    httpd.shutdown()


class _GpuServer:
    """What ServerSource uses of a TritonServer, its metrics and statistics on a local fake."""

    def __init__(self, url: str, state: dict[str, object]) -> None:
        self.grpc_url, self.http_url, self.metrics_url = "203.0.113.9:8001", url, f"{url}/metrics"
        self.container_name, self.pid, self.state = None, None, state
        self.runtime_impl = types.SimpleNamespace(host=lambda: "203.0.113.9", launches=True, wait_policy=lambda: "PASSIVE")
        self.runtime, self.runtime_reason, self.command_line = "fake", "a test's fake", "tritonserver --fake"
        self.opts = types.SimpleNamespace(metrics_interval_ms=20)

    def start(self) -> _GpuServer:
        return self

    def stop(self) -> None:
        pass

    def load(self, name: str) -> Loaded:
        self.state["loaded"].append(name)  # type: ignore[union-attr]
        return Loaded(served_model(name), 0.01)

    def unload(self, name: str) -> bool:
        self.state["loaded"].remove(name)  # type: ignore[union-attr]
        return True


_FAKE_PA = """#!{python}
import sys, time
args = sys.argv[1:]
csv = args[args.index("-f") + 1]
time.sleep(0.05)
with open(csv, "w") as f:
    f.write("Concurrency,Inferences/Second,Client Send,Network+Server Send/Recv,Server Queue,Server Compute Input,"
            "Server Compute Infer,Server Compute Output,Client Recv,p50 latency,p90 latency,p95 latency,p99 latency,"
            "Avg latency\\n")
    f.write("1,1000,2,700,120,10,300,50,1,1000,2000,3000,4000,1500\\n")
print("Request concurrency: 1")
"""


def test_a_gpu_run_records_each_models_gpu_memory_and_the_gpus_use_every_round(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, metrics_server: tuple[str, dict[str, object]]
) -> None:
    import perf.colocate.run as run_module
    from perf.colocate.run import Colocate, ServerSource

    url, state = metrics_server
    repo = _repo(tmp_path, {k: v for k, v in GPU_REPO.items() if k != "small_g2"} | {"small_g2": ("KIND_GPU", 2, "0")})
    pa = tmp_path / "perf_analyzer"
    pa.write_text(_FAKE_PA.format(python=sys.executable))
    pa.chmod(pa.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setattr(run_module, "local_gpus", lambda: 1)
    monkeypatch.setattr(ServerSource, "_inputs", lambda self, v: [])
    monkeypatch.setattr(gpu_module, "nvml_reading", lambda: {})
    import perf.colocate.source as source_module  # ServerSource.visit measures there

    original = source_module.measure_together

    def busy_while_measured(*args: object, **kw: object) -> object:
        state["busy"] = True
        try:
            return original(*args, **kw)  # type: ignore[arg-type]
        finally:
            state["busy"] = False

    monkeypatch.setattr(source_module, "measure_together", busy_while_measured)
    opts = _opts(
        repo,
        tmp_path,
        window_ms=50,
        warmup_requests=0,
        perf_analyzer=pa,
        time_budget_s=None,
        latency_budget_ms=100,
        starts={"big": "big_g1", "small": "small_g1"},  # no alone step: a short test
    )
    srv = _GpuServer(url, state)
    rec = Colocate(opts).run(start_server=lambda o, d: srv)  # type: ignore[arg-type,return-value]
    assert rec.kind == "KIND_GPU" and rec.gpu_devices == ["GPU-0"]
    assert rec.model("big").gpus == {"big_g1": [0], "big_g2": [0]} and rec.model("small").instances == {
        "small_g1": 1,
        "small_g2": 2,
    }
    # each GPU variant's memory once, at its first load: the device's rise over it
    memory = {g.variant: g for g in rec.gpu_memory}
    assert set(memory) == set(ON_DEVICE)
    for v, g in memory.items():
        assert g.delta_bytes == ON_DEVICE[v] and g.source == FROM_METRICS
    assert memory["big_g2"].reported_bytes == 1000 * MIB and memory["big_g1"].reported_bytes is None
    assert memory["big_g1"].loaded_with == [] and memory["small_g1"].loaded_with == ["big_g1", "big_g2"]
    # every visit: the GPUs' utilisation over its windows and their peak memory
    assert rec.visits and all(v.gpu_utilization_pct == pytest.approx(60.0) for v in rec.visits)
    assert all(v.gpu_memory_used_bytes and v.gpu_memory_used_bytes >= BASE for v in rec.visits)
    assert colocation.load(tmp_path / "results" / "g").gpu_memory == rec.gpu_memory
    text = "\n".join(report_lines(rec))
    assert "## GPU" in text and "GPUs of the server: GPU-0." in text
    assert re.search(r"\| big +\| big_g2 +\| 0 +\| +1,400 \| +1,000 \| big_g1 +\|", text)
    assert re.search(r"\| small +\| small_g1 +\| every GPU +\| +300 \| +not reported \| big_g1, big_g2 +\|", text)
    assert "The pick on the GPU: " in text and "60 % together" in text
    assert re.search(r"\| combination +\|.*\| +GPU % \| targets +\|", text)


@pytest.mark.gpu
@pytest.mark.integration
@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.skipif(
    not gpu_available(), reason="needs an NVIDIA GPU (NVML finds none here); scripts/gpu_check.sh runs it on a GPU host"
)
def test_two_models_share_one_gpu_on_the_bundled_server(tiny_repo: Path, tmp_path: Path) -> None:
    """mlp and tiny, TorchScript KIND_GPU x1 and x2 on GPU 0, served by the bundled server's python
    backend on CUDA: co-located, each one's GPU memory measured, the GPU's use in every visit."""
    from click.testing import CliRunner

    from builders.build import BuildOptions, build
    from builders.config.variants import VariantGrid
    from perf.cli.main import cli

    repo = tmp_path / "model_repository"
    grid = VariantGrid(kinds=("gpu",), counts=(1, 2), queue_delays_us=(None,), max_batch_sizes=(8,), gpus=(0,), server_gpu=True)
    for model in ("mlp", "tiny"):
        build(BuildOptions(model, formats=("torchscript",), grid=grid, repository=repo, build_dir=tmp_path / "builds"))
    shutil.rmtree(tmp_path / "builds", ignore_errors=True)
    args = ["colocate", "-r", str(repo), "--runtime", "bundled", "--model", "mlp=mlp_ts_gpu*", "--model", "tiny=tiny_ts_gpu*"]
    args += ["--mix", "mlp=2", "--mix", "tiny=2", "--latency-budget-ms", "200", "--round-window", "200", "--max-rounds", "6"]
    args += ["--results-dir", str(tmp_path), "--run-id", "gpu", "--time-budget", "8m"]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0, res.output
    rec = colocation.load(tmp_path / "gpu")
    assert rec.kind == "KIND_GPU" and rec.gpu_devices and rec.pick is not None
    assert {g.variant for g in rec.gpu_memory} == {v for m in rec.models for v in m.variants}
    assert all(g.delta_bytes is not None and g.delta_bytes > 0 for g in rec.gpu_memory), rec.gpu_memory
    assert any(v.gpu_utilization_pct is not None for v in rec.visits)
    assert "## GPU" in (tmp_path / "gpu" / "report.md").read_text()
