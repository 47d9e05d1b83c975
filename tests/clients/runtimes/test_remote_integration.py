"""Servers the toolkit did not start (``--runtime remote``), on loopback: bundled tritonservers
with an empty repository started through the toolkit's Python API, then swept and checked
through their URL only. Variants are deployed over the repository API, measured, unloaded;
two servers on this host measure in parallel only with --allow-shared-host; an unreachable
server, one not in explicit model-control mode and an upload above the limit are each one
clear message, with nothing measured."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from clients.check import check_with_server
from clients.runtimes.host import port_in_use
from clients.server import ServerOptions, TritonServer
from perf.records import results
from perf.report.sections.servers import servers_section

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[3]
SWEEP = ROOT / "perf" / "run_sweep.sh"
VARIANTS = "tiny_onnx_cpu1_nodb_mbs8,tiny_ts_cpu1_nodb_mbs8"
FAST = ["--concurrency", "1", "--no-baseline"]
#: Short windows, 3 of them, no retry: a level costs about a second (the sequential design's flags).
SEQUENTIAL = ["--design", "sequential", "--measurement-interval", "300", "--max-trials", "3", "--unstable-retries", "0"]


def triton_port_block() -> int:
    """An HTTP port P with P, P+1, P+2 free (Triton's layout, which ``--url`` follows)."""
    import random

    for _ in range(200):
        p = random.randint(20000, 60000)
        if not any(port_in_use(p + i) for i in range(3)):
            return p
    raise AssertionError("no three consecutive free ports")


@contextlib.contextmanager
def empty_server(tmp: Path, mode: str = "explicit") -> Iterator[TritonServer]:
    """A bundled tritonserver on an empty repository, ports in Triton's layout."""
    repo = tmp / f"empty-{mode}"
    repo.mkdir(parents=True, exist_ok=True)
    p = triton_port_block()
    opts = ServerOptions(repo, runtime="bundled", http_port=p, grpc_port=p + 1, metrics_port=p + 2, model_control=mode)
    with TritonServer(opts) as srv:
        yield srv


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TritonServer, TritonServer]]:
    tmp = tmp_path_factory.mktemp("remote")
    with empty_server(tmp / "a") as a, empty_server(tmp / "b") as b:
        yield a, b


def sweep(repo: Path, out: Path, run_id: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            str(SWEEP),
            "--repository",
            str(repo),
            "--variants",
            VARIANTS,
            "--results-dir",
            str(out),
            "--run-id",
            run_id,
            *FAST,
            *(() if "--design" in args else SEQUENTIAL),  # the tests of remote servers, one design
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=ROOT,
        env={**os.environ, "COLUMNS": "250"},
    )


def url(srv: TritonServer) -> str:
    """``srv``'s HTTP endpoint as the tests give it to --url (and the results name it)."""
    return f"127.0.0.1:{srv.http_port}"


def loaded(srv: TritonServer) -> list[str]:
    """The models ready on ``srv`` (uploaded models are not in its repository index)."""
    import tritonclient.http as th

    with contextlib.closing(th.InferenceServerClient(srv.http_url)) as c:
        return [m for m in VARIANTS.split(",") if c.is_model_ready(m)]


def test_a_sweep_deploys_measures_and_unloads_on_a_remote_server(servers, tiny_repo: Path, tmp_path: Path):
    srv = servers[0]
    done = sweep(tiny_repo, tmp_path, "one", "--runtime", "remote", "--url", url(srv))
    assert done.returncode == 0, done.stderr[-3000:]
    run = results.load(tmp_path / "one")
    for name in VARIANTS.split(","):
        v = run.variant(name)
        assert v.status == "ok" and v.levels[0].throughput_infer_per_s > 0
        assert v.server == url(srv)  # the results name the server that measured it
    [rec] = run.servers
    assert rec.url == url(srv) and rec.runtime == "remote" and rec.deploy == "uploaded"
    assert rec.version and rec.version == run.environment["server"]["version"]
    assert rec.host == "this host" and rec.cpu_memory_total_bytes and rec.cpu_memory_total_bytes > 0
    assert rec.gpu_uuids == []  # no GPU here: none reported, none invented
    assert run.server_starts == []  # nothing was started
    assert loaded(srv) == []  # every variant unloaded after its levels
    assert run.variant(VARIANTS.split(",")[0]).levels[0].nvml_gpu_utilization_pct is None
    report = (tmp_path / "one" / "report.md").read_text()
    assert url(srv) in report and "Servers" in report


def test_two_servers_on_one_host_run_in_parallel_only_when_allowed(servers, tiny_repo: Path, tmp_path: Path):
    a, b = servers
    urls = f"{url(a)},{url(b)}"
    refused = sweep(tiny_repo, tmp_path, "refused", "--url", urls)
    assert refused.returncode == 1
    said = " ".join(refused.stderr.split())
    assert "share the same host (this host)" in said and "--allow-shared-host" in said
    run = results.load(tmp_path / "refused")
    assert not any(v.levels for v in run.variants)  # nothing measured

    done = sweep(tiny_repo, tmp_path, "both", "--url", urls, "--allow-shared-host", "--no-report")
    assert done.returncode == 0, done.stderr[-3000:]
    run = results.load(tmp_path / "both")
    assert all(v.status == "ok" for v in run.variants)
    assert {v.server for v in run.variants} == {url(a), url(b)}  # one variant on each, in parallel
    assert sorted(s.url for s in run.servers) == sorted([url(a), url(b)])
    assert all(s.shares_with for s in run.servers)
    assert loaded(a) == [] and loaded(b) == []
    report = " ".join("\n".join(servers_section(run)).split())
    assert "share" in report and "hardware differences" in report


def test_unreachable_server_is_one_clear_error(tiny_repo: Path, tmp_path: Path):
    p = triton_port_block()
    done = sweep(tiny_repo, tmp_path, "gone", "--url", f"127.0.0.1:{p}")
    assert done.returncode == 1
    assert f"no Triton server answers at http://127.0.0.1:{p}" in " ".join(done.stderr.split())
    run = results.load(tmp_path / "gone")  # the run folder says why it holds nothing
    assert run.variants and not any(v.levels for v in run.variants)
    assert all(
        v.status == "skipped" and "the server did not start (no Triton server answers" in (v.error or "") for v in run.variants
    )


def test_a_server_not_in_explicit_mode_is_refused_for_deploying(tiny_repo: Path, tmp_path: Path):
    with empty_server(tmp_path, mode="none") as srv:
        done = sweep(tiny_repo, tmp_path, "none", "--url", url(srv))
    said = " ".join(done.stderr.split())
    assert done.returncode == 1
    assert "is not in explicit model-control mode" in said and "--model-control-mode=explicit" in said
    assert "--no-deploy" in said


def test_an_upload_above_the_limit_fails_the_variant_and_sends_nothing(servers, tiny_repo: Path, tmp_path: Path):
    srv = servers[0]
    done = sweep(tiny_repo, tmp_path, "big", "--url", url(srv), "--max-upload-mb", "0.001")
    assert done.returncode == 1  # no variant measured
    data = json.loads((tmp_path / "big" / results.RESULTS_FILE).read_text())
    for v in data["variants"]:
        assert v["status"] == "failed" and not v["levels"]
        assert "above the" in v["error"] and "--max-upload-mb" in v["error"] and "nothing was sent" in v["error"]
    assert "--remote-repository" in " ".join(done.stderr.split()) or "--remote-repository" in data["variants"][0]["error"]
    assert loaded(srv) == []


def test_clients_check_on_a_remote_server(servers, tiny_repo: Path):
    srv = servers[1]
    opts = ServerOptions(tiny_repo, runtime="remote", urls=(url(srv),))
    checked = check_with_server(opts, ("http", "grpc"), ["tiny_onnx_cpu1_nodb_mbs8"])
    assert [r.passed for r in checked] == [True, True]
    assert loaded(srv) == []


def test_rounds_on_two_servers_run_per_server_then_a_final_of_their_tie_sets(servers, tiny_repo: Path, tmp_path: Path):
    a, b = servers
    urls = f"{url(a)},{url(b)}"
    rounds = ["--design", "rounds", "--round-window", "150", "--time-budget", "none", "--no-report"]
    done = sweep(tiny_repo, tmp_path, "lanes", "--url", urls, "--allow-shared-host", *rounds)
    assert done.returncode == 0, done.stderr[-3000:]
    run = results.load(tmp_path / "lanes")
    assert run.rounds is not None and all(v.status == "ok" for v in run.variants)
    groups = run.rounds.groups
    lanes = [g for g in groups if g.reason.startswith("server ")]
    assert sorted(g.server for g in lanes) == sorted([url(a), url(b)])  # one variant dealt to each server
    assert sorted(n for g in lanes for n in g.variants) == sorted(VARIANTS.split(","))
    final = [g for g in groups if g.reason.startswith("the final")]
    assert final and sorted(final[0].variants) == sorted(VARIANTS.split(",")) and final[0].server == url(a)
    assert {r.group for r in run.rounds.rounds} == {g.index for g in groups}
    assert loaded(a) == [] and loaded(b) == []
