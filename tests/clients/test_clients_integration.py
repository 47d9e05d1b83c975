"""Clients against the real bundled tritonserver (session ``bundled_server`` fixture), both
protocols: inference, concurrency, shared memory, big responses, clear errors, the CLI."""

from __future__ import annotations

import contextlib
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from python_models import SITE_PACKAGES
from tables import column_text

from clients.cli.main import cli
from clients.infer import GRPC_MAX_MESSAGE_BYTES, infer, make_client, model_signature, run_requests
from clients.runtimes.host import HeldPorts
from core.errors import ClientError

pytestmark = pytest.mark.integration
PROTOCOLS = ("http", "grpc")

# A python-backend model sent with the load request (Triton's model-repository extension:
# config and files override), so the repository on disk stays untouched.
BIG_MODEL = "big_output"
BIG_CONFIG = {
    "name": BIG_MODEL,
    "backend": "python",
    "max_batch_size": 0,
    "input": [{"name": "N", "data_type": "TYPE_INT32", "dims": [1]}],
    "output": [{"name": "BIG", "data_type": "TYPE_FP32", "dims": [-1]}],
}
BIG_PY = (
    SITE_PACKAGES
    + """import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        out = []
        for r in requests:
            n = int(pb_utils.get_input_tensor_by_name(r, "N").as_numpy().reshape(-1)[0])
            out.append(pb_utils.InferenceResponse([pb_utils.Tensor("BIG", np.arange(n, dtype=np.float32))]))
        return out
"""
).encode()


@pytest.fixture(scope="module")
def variant(bundled_server, tiny_build):
    """One tiny variant (max_batch_size 8, INPUT__0 fp32 [16] -> OUTPUT__0 fp32 [8]), loaded."""
    name = tiny_build.manifest["variants"][0]
    bundled_server.load(name)
    yield name
    bundled_server.unload(name)


def urls(srv) -> dict[str, str]:
    return {"http": srv.http_url, "grpc": srv.grpc_url}


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_one_request_and_many_concurrent_with_shared_memory(bundled_server, variant, tiny_build_dir, protocol):
    from builders.verify.verification import load_reference

    url = urls(bundled_server)[protocol]
    inputs, expected = load_reference(tiny_build_dir)
    out = infer(url, protocol, variant, inputs)
    np.testing.assert_allclose(out["OUTPUT__0"], expected["OUTPUT__0"], rtol=1e-4, atol=1e-5)
    stats = run_requests(url, protocol, variant, inputs, requests=12, concurrency=4, shared_memory=True)
    assert (stats.requests, stats.concurrency, len(stats.latencies_ms), stats.failures) == (12, 4, 12, [])
    np.testing.assert_allclose(stats.outputs["OUTPUT__0"], expected["OUTPUT__0"], rtol=1e-4, atol=1e-5)
    assert stats.throughput_infer_per_s > 0
    # every region was unregistered
    with contextlib.closing(make_client(url, protocol)) as c:
        status = c.get_system_shared_memory_status(**({"as_json": True} if protocol == "grpc" else {}))
    assert not (status.get("regions") if isinstance(status, dict) else status), f"regions still registered: {status}"


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_bad_requests_get_one_clear_error(bundled_server, variant, tiny_build, protocol):
    url = urls(bundled_server)[protocol]
    good = np.zeros((2, 16), np.float32)
    with pytest.raises(ClientError, match=r"input 'INPUT__0' has shape \[2, 15\], expected \[batch, 16\]"):
        infer(url, protocol, variant, {"INPUT__0": np.zeros((2, 15), np.float32)})
    # float64 for an FP32 input: cast with a note by default, refused on request
    assert infer(url, protocol, variant, {"INPUT__0": good.astype(np.float64)})["OUTPUT__0"].shape == (2, 8)
    with pytest.raises(ClientError, match=r"input 'INPUT__0' is float64, the model takes float32 \(TYPE_FP32\)"):
        infer(url, protocol, variant, {"INPUT__0": good.astype(np.float64)}, cast=False)
    with pytest.raises(ClientError, match="model 'no_such_model' is unknown to the server"):
        infer(url, protocol, "no_such_model", {"INPUT__0": good})
    unloaded = tiny_build.manifest["variants"][-1]
    assert unloaded != variant
    with pytest.raises(ClientError, match=f"model '{unloaded}' is not ready on the server"):
        infer(url, protocol, unloaded, {"INPUT__0": good})
    held = HeldPorts([0])  # held, never listening: refused while the test runs (a port closed could be a server's)
    down = f"localhost:{held.ports[0]}"
    with pytest.raises(ClientError, match=f"no Triton server answers at {down} \\({protocol}\\)"):
        infer(down, protocol, variant, {"INPUT__0": good})


def test_grpc_response_above_4_mib(bundled_server):
    """8 MiB in one gRPC response, above gRPC's default 4 MiB receive limit: make_client's
    channel limit lets it through.

    (A client that really has a 4 MiB limit is not exercised here: Triton then keeps the
    refused response, and with it the python-backend model, alive until it shuts down.)
    """
    import tritonclient.http as th

    with contextlib.closing(th.InferenceServerClient(bundled_server.http_url)) as c:
        c.load_model(BIG_MODEL, config=json.dumps(BIG_CONFIG), files={"file:1/model.py": BIG_PY})
    try:
        n = 2 * 1024 * 1024  # fp32 -> 8 MiB
        out = infer(bundled_server.grpc_url, "grpc", BIG_MODEL, {"N": np.array([n], np.int32)})
        assert out["BIG"].shape == (n,) and out["BIG"][-1] == n - 1
        assert out["BIG"].nbytes > 4 * 1024 * 1024 < GRPC_MAX_MESSAGE_BYTES
    finally:
        bundled_server.unload(BIG_MODEL)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_cli_infer_generated_and_from_file(bundled_server, variant, tiny_repo, tmp_path, protocol):
    url = urls(bundled_server)[protocol]
    runner = CliRunner()
    res = runner.invoke(
        cli,
        [
            "infer",
            variant,
            "--url",
            url,
            "--protocol",
            protocol,
            "-b",
            "3",
            "-r",
            str(tiny_repo),
            "--requests",
            "6",
            "--concurrency",
            "2",
            "--save-outputs",
            str(tmp_path / "o.npz"),
        ],
    )
    assert res.exit_code == 0, res.output
    assert "OUTPUT__0" in res.output and "[3, 8]" in res.output and "float32" in res.output
    assert (
        "inputs: INPUT__0 [3, 16] (batch 3 × [16] per sample) float32" in res.output
        and "requests: 6 (concurrency 2), failed: 0" in res.output
    )
    said = re.search(r"throughput ([\d.,]+) infer/s \(([\d.,]+) requests/s of batch 3\)", res.output)  # 1,234.5 (T25-4)
    assert said and float(said[1].replace(",", "")) == pytest.approx(3 * float(said[2].replace(",", "")), rel=0.01)
    np.save(tmp_path / "x.npy", np.ones((2, 16), np.float32))
    res = runner.invoke(
        cli, ["infer", variant, "--url", url, "--protocol", protocol, "--input", str(tmp_path / "x.npy"), "--shared-memory"]
    )
    assert res.exit_code == 0, res.output
    assert "[2, 8]" in res.output
    assert model_signature(url, protocol, variant).max_batch_size == 8


def test_cli_check_against_a_running_server(bundled_server, variant, tiny_repo, tiny_build_dir, tmp_path):
    args = ["check", "-r", str(tiny_repo), "--http-url", bundled_server.http_url, "--grpc-url", bundled_server.grpc_url]
    # a variant that is not loaded is loaded for the check and unloaded afterwards
    other = [v for v in json.loads((tiny_repo / "index.json").read_text())["variants"] if v["name"] != variant][0]["name"]
    res = CliRunner().invoke(cli, [*args, "--variant", variant, "--variant", other])
    assert res.exit_code == 0, res.output
    assert len(
        re.findall(r"│ pass +│", res.output)
    ) == 4 and "4 of 4 rows passed (every output within tolerance); 2 of 2 variants passed over http and grpc" in _without_sizes(
        res.output
    )
    with contextlib.closing(make_client(bundled_server.http_url, "http")) as c:
        assert not c.is_model_ready(other)
    # a reference that disagrees with the served model fails, exit 1
    bad_build = tmp_path / "build"
    shutil.copytree(tiny_build_dir, bad_build)
    z = dict(np.load(bad_build / "reference.npz"))
    z["output:OUTPUT__0"] = z["output:OUTPUT__0"] + 1.0
    np.savez(bad_build / "reference.npz", **z)
    repo = _repository_over(tiny_repo, variant, bad_build, tmp_path / "repo")
    res = CliRunner().invoke(cli, ["check", "-r", str(repo), "--http-url", bundled_server.http_url, "--protocol", "http"])
    assert res.exit_code == 1, res.output
    assert (
        "FAIL" in res.output
        and "0 of 1 row passed: 1 output out of tolerance; 0 of 1 variant passed over http" in _without_sizes(res.output)
    )


def test_remote_check_of_a_model_loaded_before_it_checks_it_where_it_is(bundled_server, variant, tiny_repo):
    """``clients check --runtime remote --url`` of a variant the server already serves (a
    launcher's ``--load-model``) checks it as served, never reloads or unloads it, and counts the
    rows shown (new-user trial: "loaded by someone else ... nothing was measured", "4 checks"
    over 2 rows)."""
    args = ["check", "-r", str(tiny_repo), "--runtime", "remote", "--url", bundled_server.http_url, "--variant", variant]
    res = CliRunner().invoke(cli, [*args, "--protocol", "http"])  # the session server's gRPC port is not HTTP + 1
    text = " ".join(res.output.split())
    assert res.exit_code == 0, res.output
    assert f"{variant}: already loaded on the server at {bundled_server.http_url} before this check" in text
    assert "nothing was measured" not in text and len(re.findall(r"│ pass +│", res.output)) == 1
    assert "1 of 1 row passed (every output within tolerance); 1 of 1 variant passed over http" in _without_sizes(text)
    with contextlib.closing(make_client(bundled_server.http_url, "http")) as c:
        assert c.is_model_ready(variant)  # left as it was found


def test_check_on_a_running_server_refuses_a_served_config_other_than_the_variants(bundled_server, tiny_repo, tmp_path):
    """The server's own copy (``tiny_repo``: 500 µs queue delay) loaded by name, the local variant's
    config.pbtxt says 100 µs: the check fails naming the field, sends nothing to compare, and
    leaves the model as it found it (issue 25, left over)."""
    from builders.config.pbtxt import read_config, write_config
    from clients.check import check_running

    index = json.loads((tiny_repo / "index.json").read_text())
    name = next(e["name"] for e in index["variants"] if "_db500_" in e["name"])
    local = tmp_path / "local"
    shutil.copytree(tiny_repo / name, local / name)
    (local / "index.json").write_text(json.dumps({**index, "variants": [e for e in index["variants"] if e["name"] == name]}))
    cfg = read_config(local / name / "config.pbtxt")
    cfg.dynamic_batching.max_queue_delay_microseconds = 100
    write_config(cfg, local / name / "config.pbtxt")
    with contextlib.closing(make_client(bundled_server.http_url, "http")) as c:
        before = c.is_model_ready(name)
    results = check_running(local, urls(bundled_server))
    assert [r.protocol for r in results] == ["http", "grpc"] and not any(r.passed or r.outputs for r in results)
    said = results[0].error or ""
    assert said.startswith(f"failed: the server runs another config than {name}'s config.pbtxt"), said
    assert "dynamic_batching: variant max_queue_delay 100 µs, served max_queue_delay 500 µs" in said
    with contextlib.closing(make_client(bundled_server.http_url, "http")) as c:
        assert c.is_model_ready(name) == before
    assert check_running(tiny_repo, urls(bundled_server), [name])[0].passed  # the server's own copy is that variant


def _repository_over(repo: Path, variant: str, build_dir: Path, dest: Path) -> Path:
    """A repository folder whose index lists ``variant`` of ``repo`` with its build in
    ``build_dir``, and that variant's folder (the server keeps serving ``repo``; clients check reads this index and
    checks only the variants whose folder is there: builders.repository.view.served_entries)."""
    index = json.loads((repo / "index.json").read_text())
    entry = next(e for e in index["variants"] if e["name"] == variant)
    dest.mkdir()
    shutil.copytree(repo / variant, dest / variant)
    (dest / "index.json").write_text(json.dumps({**index, "variants": [{**entry, "build": str(build_dir)}]}))
    return dest


def test_check_uses_the_tolerance_recorded_at_build_time(bundled_server, variant, tiny_repo, tiny_build_dir, tmp_path):
    """A served error between fp32's default tolerance (1e-4) and the build's ``--rtol
    OUTPUT__0=1e-3`` fails without that rtol and passes with it: the check reads the build's."""
    from clients.check import check_running

    build_dir = tmp_path / "build"
    shutil.copytree(tiny_build_dir, build_dir)
    z = dict(np.load(build_dir / "reference.npz"))
    ref = z["output:OUTPUT__0"]
    z["output:OUTPUT__0"] = ref + np.where(np.arange(ref.size).reshape(ref.shape) == 0, 5e-4 * np.abs(ref).max(), 0).astype(
        ref.dtype
    )
    np.savez(build_dir / "reference.npz", **z)
    repo = _repository_over(tiny_repo, variant, build_dir, tmp_path / "repo")
    manifest = json.loads((build_dir / "manifest.json").read_text())
    for rtol, passed in (({}, False), ({"OUTPUT__0": 1e-3}, True)):
        (build_dir / "manifest.json").write_text(json.dumps({**manifest, "rtol": rtol}))
        [r] = check_running(repo, {"http": bundled_server.http_url})
        assert r.passed is passed, r
        assert r.outputs[0]["rtol"] == rtol.get("OUTPUT__0", 1e-4)
        assert 1e-4 < r.outputs[0]["max_rel_err"] < 1e-3


def test_cli_check_starts_its_own_server(tiny_repo, tiny_build, tmp_path):
    names = tiny_build.manifest["variants"]
    res = CliRunner().invoke(
        cli,
        [
            "check",
            "-r",
            str(tiny_repo),
            "--runtime",
            "bundled",
            "--log-file",
            str(tmp_path / "s.log"),
            "--variant",
            names[0],
            "--variant",
            names[-1],
        ],
    )
    assert res.exit_code == 0, res.output
    assert len(
        re.findall(r"│ pass +│", res.output)
    ) == 4 and "4 of 4 rows passed (every output within tolerance); 2 of 2 variants passed over http and grpc" in _without_sizes(
        res.output
    )
    log = (tmp_path / "s.log").read_text()
    assert "MODE_EXPLICIT" in log and f"successfully unloaded '{names[0]}'" in log  # loaded and unloaded in turn
    res = CliRunner().invoke(cli, ["check", "-r", str(tiny_repo), "--runtime", "bundled", "--variant", "nope"])
    said = " ".join(res.output.split())  # a --variant naming nothing: a usage error (exit 2, the one rule of 3aa151c)
    assert res.exit_code == 2 and "no variant in" in said and "matches 'nope'" in said, res.output


NEVER_READY_PY = (
    SITE_PACKAGES
    + """import time


class TritonPythonModel:
    def initialize(self, args):
        print("never_ready: fetching weights from s3://bucket/never-there ...", flush=True)
        time.sleep(3600)

    def execute(self, requests):
        return []
"""
)


def test_cli_check_on_a_model_that_never_becomes_ready_stops_at_the_start_timeout_and_shows_why(tiny_repo, tiny_build, tmp_path):
    # it used to wait a fixed 300 s and print nothing about the cause
    import time

    repo = tmp_path / "repo"
    shutil.copytree(tiny_repo, repo)
    stuck = tiny_build.manifest["variants"][0]
    (repo / stuck / "1" / "model.py").write_text(NEVER_READY_PY)
    t0 = time.monotonic()
    res = CliRunner().invoke(
        cli,
        [
            "check",
            "-r",
            str(repo),
            "--runtime",
            "bundled",
            "--start-timeout",
            "8",
            "--variant",
            stuck,
            "--protocol",
            "http",
            "--server-arg=--exit-timeout-secs=1",
        ],
    )
    took = time.monotonic() - t0
    assert res.exit_code == 1, res.output
    result = column_text(res.output, "result")  # the error's cell, its wrapped lines joined
    assert f"model '{stuck}' was not ready within 8 s (--start-timeout)" in result
    assert "never_ready: fetching weights from s3://bucket/never-there" in result  # the log line that explains it
    assert took < 90, took


def _without_sizes(text: str) -> str:
    """The check's summary with its whitespace joined and the checked-sizes clause (clients.check) taken out."""
    joined = " ".join(text.split())
    assert "only (the build's one saved reference batch; other sizes not checked here)" in joined, joined
    return re.sub(
        r", at batch [^;()│┃└┘━─]*? only \(the build's one saved reference batch; other sizes not checked here\)", "", joined
    )
