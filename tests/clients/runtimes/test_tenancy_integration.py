"""Someone else's server (issue 25 items 1-2), with two real bundled tritonservers on loopback.

"theirs" stands in for a server the toolkit did not start: Triton's stock strict readiness, its
own repository, two models of its owner loaded (one has the name of a local variant), a copy of
another variant with other settings (``count: 2``, no dynamic batching) waiting to be loaded by
name, and a model that failed to load, so that the server answers *live 200 / ready 400*. The
toolkit must leave every model of theirs as it was, refuse the name collision, refuse the
mismatched copy by field, never measure a failed upload, and not wait for server readiness.
"ours" is a second, empty server the toolkit measures on, beside theirs.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import tritonclient.http as th

from builders.config.pbtxt import read_config, write_config
from clients.check import check_with_server
from clients.runtimes.host import port_in_use
from clients.server import ServerOptions, TritonServer
from perf.records import results

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[3]
SWEEP = ROOT / "perf" / "run_sweep.sh"
COLLIDES = "tiny_onnx_cpu1_nodb_mbs8"  # a local variant's name, loaded on theirs by its owner
COPY = "tiny_onnx_cpu1_db500_mbs8"  # theirs holds a copy with count 2 and no dynamic batching
FREE = "tiny_ts_cpu1_nodb_mbs8"  # not on theirs: the toolkit may upload it
FAST = ["--concurrency", "1", "--no-baseline"]  # the rounds design: --measurement-interval and --max-trials are refused
#: --start-timeout of the sweeps here (s): far above what a sweep of theirs takes on a busy host (63 s at a load
#: average of 9 on 2 cores), so a sweep that waited for their server's readiness (never: one of their models failed)
#: is told apart by its time on any host.
START_TIMEOUT_S = 180


def port_block() -> int:
    """An HTTP port P with P, P+1, P+2 free (Triton's layout)."""
    import random

    for _ in range(200):
        p = random.randint(20000, 60000)
        if not any(port_in_use(p + i) for i in range(3)):
            return p
    raise AssertionError("no three consecutive free ports")


def _variant_copy(src: Path, dest: Path, name: str, count: int | None = None, batching: bool = True) -> None:
    shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    cfg = read_config(dest / name / "config.pbtxt")
    cfg.name = name
    if count is not None:
        cfg.instance_group[0].count = count
    if not batching:
        cfg.ClearField("dynamic_batching")
    write_config(cfg, dest / name / "config.pbtxt")


def their_repository(tiny_repo: Path, where: Path) -> Path:
    """The owner's repository: a copy of COLLIDES, their_model, a COPY with other settings, and a broken model."""
    repo = where / "their-repo"
    repo.mkdir()
    _variant_copy(tiny_repo / COLLIDES, repo, COLLIDES)
    _variant_copy(tiny_repo / "tiny_onnx_cpu2_nodb_mbs8", repo, "their_model")
    _variant_copy(tiny_repo / COPY, repo, COPY, count=2, batching=False)
    _variant_copy(tiny_repo / COLLIDES, repo, "their_broken")
    (repo / "their_broken" / "1" / "model.onnx").write_bytes(b"not an onnx file")
    return repo


def config_of(url: str, model: str) -> dict:
    with contextlib.closing(th.InferenceServerClient(url)) as c:
        return c.get_model_config(model)


def loaded(url: str) -> dict[str, int]:
    """Models loaded on the server at ``url`` -> their instance count."""
    with contextlib.closing(th.InferenceServerClient(url)) as c:
        names = [s["name"] for s in c.get_inference_statistics()["model_stats"]]
        return {n: sum(int(g.get("count", 1)) for g in c.get_model_config(n).get("instance_group", [])) for n in names}


@pytest.fixture(scope="module")
def theirs(tiny_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TritonServer, Path]]:
    """Someone else's server (module docstring), started through the toolkit's API only to set it up."""
    repo = their_repository(tiny_repo, tmp_path_factory.mktemp("theirs"))
    p = port_block()
    opts = ServerOptions(
        repo,
        runtime="bundled",
        http_port=p,
        load_models=(COLLIDES, "their_model"),
        extra_args=("--strict-readiness=true",),  # Triton's default, as a stock server runs
    )
    with TritonServer(opts) as srv:
        with contextlib.closing(th.InferenceServerClient(srv.http_url)) as c:
            with contextlib.suppress(Exception):
                c.load_model("their_broken")
            assert c.is_server_live() and not c.is_server_ready()  # live 200, ready 400: strict readiness
        yield srv, repo


@pytest.fixture(scope="module")
def ours(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TritonServer]:
    """A second server, empty: the toolkit's to load on."""
    empty = tmp_path_factory.mktemp("ours")
    with TritonServer(ServerOptions(empty, runtime="bundled", http_port=port_block())) as srv:
        yield srv


def sweep(repo: Path, out: Path, run_id: str, url: str, variants: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(SWEEP), "--repository", str(repo), "--variants", variants, "--results-dir", str(out), "--run-id", run_id]
        + ["--url", url, "--start-timeout", str(START_TIMEOUT_S), *FAST, *args],
        capture_output=True,
        text=True,
        timeout=240,  # within the integration tests' 300 s
        cwd=ROOT,
        env={**os.environ, "COLUMNS": "250"},
    )


def test_nothing_of_theirs_is_unloaded_or_replaced_and_a_collision_is_refused(theirs, tiny_repo: Path, tmp_path: Path):
    srv, _ = theirs
    before = loaded(srv.http_url)
    assert set(before) == {COLLIDES, "their_model"}
    started = time.monotonic()
    done = sweep(tiny_repo, tmp_path, "theirs", srv.http_url, f"{COLLIDES},{FREE}")
    took = time.monotonic() - started
    assert done.returncode == 3, done.stderr[-3000:]  # one variant measured, one refused
    assert "--replace-models allows it" in " ".join(done.stderr.split())
    # not ready (400) is no reason to wait: live, and each model's readiness, are waited on (not the start timeout)
    assert took < START_TIMEOUT_S, took
    run = results.load(tmp_path / "theirs")
    refused = run.variant(COLLIDES)
    assert refused.status == "failed" and not refused.levels
    assert f"a model named {COLLIDES} is already READY on the server at {srv.http_url}, loaded by someone else" in refused.error
    measured = run.variant(FREE)
    assert measured.status == "ok" and measured.levels[0].throughput_infer_per_s > 0
    first, last = measured.served
    assert (first.moment, last.moment) == ("after load", "after the last level")
    assert first.settings.instance_groups == ["KIND_CPU x1"] and first.settings.dynamic_batching is None
    assert first.upload_token and first.upload_token == last.upload_token
    assert first.artifact is not None and first.artifact.source == "uploaded"
    assert sorted(first.others_loaded) == sorted([COLLIDES, "their_model"])  # measured beside their models, and says so
    assert first.threads_per_instance == os.cpu_count()  # one instance: the host's cores (the python model's rule)
    [server] = run.servers
    assert sorted(server.models_found) == sorted([COLLIDES, "their_model"]) and server.left_differently == []
    assert loaded(srv.http_url) == before  # left as found: theirs still there, with their own config, ours gone
    assert config_of(srv.http_url, COLLIDES).get("parameters", {}).get("triton_toolkit_upload") is None  # never replaced
    report = " ".join((tmp_path / "theirs" / "report.md").read_text().split())
    assert "already had 2 models loaded (" in report and "loaded alone" not in report


def test_a_server_copy_with_other_settings_is_refused_by_field(theirs, tiny_repo: Path, tmp_path: Path):
    srv, their_repo = theirs
    done = sweep(tiny_repo, tmp_path, "copy", srv.http_url, COPY, "--remote-repository", str(their_repo))
    assert done.returncode == 1  # nothing measured
    v = results.load(tmp_path / "copy").variant(COPY)
    assert v.status == "failed" and not v.levels
    assert "instance_group: variant ['KIND_CPU x1'], served ['KIND_CPU x2']" in v.error
    assert "dynamic_batching: variant max_queue_delay 500 µs, served off" in v.error
    assert COPY not in loaded(srv.http_url)  # the toolkit loaded it, so it unloaded it again


def test_a_failed_upload_over_a_loaded_name_is_never_measured(theirs, tiny_repo: Path, tmp_path: Path):
    srv, _ = theirs
    local = tmp_path / "repo"
    shutil.copytree(tiny_repo, local)
    (local / COLLIDES / "1" / "model.onnx").write_bytes(b"corrupt")  # the case: a corrupt model.onnx
    done = sweep(local, tmp_path, "corrupt", srv.http_url, COLLIDES, "--replace-models")
    assert done.returncode == 1
    run = results.load(tmp_path / "corrupt")
    v = run.variant(COLLIDES)
    assert v.status == "failed" and not v.levels and v.served == []
    assert "Protobuf parsing failed" in v.error  # the upload was really loaded (and failed), not answered by the old copy
    assert loaded(srv.http_url)[COLLIDES] == 1  # their copy still serves
    assert config_of(srv.http_url, COLLIDES).get("parameters", {}).get("triton_toolkit_upload") is None
    assert run.servers[0].left_differently == []


def test_clients_check_neither_uploads_over_nor_unloads_their_models(theirs, ours, tiny_repo: Path):
    srv, _ = theirs
    before = loaded(srv.http_url)
    checked = check_with_server(ServerOptions(tiny_repo, urls=(srv.http_url,)), ("http",), [COLLIDES, FREE])
    by = {r.variant: r for r in checked}
    # theirs serves a copy of the same variant (its served config compared first): checked where it is,
    # never uploaded over, reloaded or unloaded (clients.check since e4519eb; it was refused before)
    assert by[COLLIDES].passed and by[COLLIDES].error is None
    assert by[FREE].passed
    assert loaded(srv.http_url) == before
    # --no-deploy checks the served model as it is, and leaves it loaded
    served = check_with_server(ServerOptions(tiny_repo, urls=(srv.http_url,), deploy=False), ("http",), [COLLIDES])
    assert [r.passed for r in served] == [True] and loaded(srv.http_url) == before
    # on the other server, nothing of theirs: the same check loads, checks and unloads
    mine = check_with_server(ServerOptions(tiny_repo, urls=(ours.http_url,)), ("http",), [COLLIDES])
    assert [r.passed for r in mine] == [True] and loaded(ours.http_url) == {}


def test_the_results_stamp_what_ran_on_the_second_server(ours, tiny_repo: Path, tmp_path: Path):
    name = "tiny_onnx_cpu2_db500_mbs8"
    done = sweep(tiny_repo, tmp_path, "ours", ours.http_url, name)
    assert done.returncode == 0, done.stderr[-3000:]
    saved = json.loads((tmp_path / "ours" / results.RESULTS_FILE).read_text())
    assert saved["schema"] == 3
    [first, last] = saved["variants"][0]["served"]
    assert first["settings"]["instance_groups"] == ["KIND_CPU x2"]
    assert first["settings"]["dynamic_batching"] == "max_queue_delay 500 µs"
    assert first["threads_per_instance"] == max(1, (os.cpu_count() or 1) // 2)
    assert first["others_loaded"] == [] and last["upload_token"] == first["upload_token"]
    assert loaded(ours.http_url) == {}
