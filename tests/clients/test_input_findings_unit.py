"""The input findings of issue 26 ("Units and counts") and issue 23 (one ``--shape`` rule), each
through the commands' own entry points with the server faked: shapes are checked against the
build's verified ranges before any request is sent, inputs that share an axis share its size,
no dynamic dim is sized by a silent default, ``-b`` above 1 is refused for a model that does not
batch, and "infer/s" counts inferences (batch rows) as perf_analyzer does."""

from __future__ import annotations

import json
import os
import re
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from builders.config.variants import Variant
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from clients.cli.main import cli
from clients.inputs import ModelSignature
from core.errors import ClientError, PerfError
from perf.measure.inputs import input_args

#: An encoder's two token inputs share the axis seq, verified for 1..128 (the issue's example).
ENCODER = ModelSpec(
    inputs=(TensorSpec("input_ids", "int64", ("seq",), (0, 999)), TensorSpec("attention_mask", "int64", ("seq",), (0, 1))),
    outputs=(TensorSpec("pooled", "float32", (8,)),),
    dynamic_axes={"seq": (1, 64, 128)},
)
#: An image with two dynamic axes beside a static input: one model of this file's own.
IMAGE = ModelSpec(
    inputs=(TensorSpec("img", "float32", (3, "h", "w")), TensorSpec("scale", "float32", (4,))),
    outputs=(TensorSpec("y", "float32", (4,)),),
    dynamic_axes={"h": (32, 64, 128), "w": (32, 96, 256)},
)


def _config(spec: ModelSpec, name: str, mbs: int) -> dict[str, Any]:
    lead = [] if mbs > 0 else [-1]  # max_batch_size 0: the batch axis is in the dims
    tensors = lambda ts: [  # noqa: E731
        {"name": t.name, "data_type": t.triton_dtype, "dims": [*lead, *t.triton_dims()]} for t in ts
    ]
    return {"name": name, "max_batch_size": mbs, "input": tensors(spec.inputs), "output": tensors(spec.outputs)}


class _Sent:
    """Stands in for the server: the model config it serves, and the inputs of each request."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, config: dict[str, Any]):
        import clients.infer

        self.inputs: list[dict[str, np.ndarray]] = []

        def signature(url: str, protocol: str, model: str) -> ModelSignature:
            return ModelSignature.from_config(config)

        def run_requests(url: str, protocol: str, model: str, inputs: dict[str, np.ndarray], *args: Any) -> Any:
            self.inputs.append(inputs)
            sent = {k: (list(v.shape), str(v.dtype)) for k, v in inputs.items()}
            return types.SimpleNamespace(outputs={}, failures=[], concurrency=1, sent=sent)

        monkeypatch.setattr(clients.infer, "model_signature", signature)
        monkeypatch.setattr(clients.infer, "run_requests", run_requests)

    def shapes(self) -> dict[str, tuple[int, ...]]:
        (sent,) = self.inputs
        return {k: v.shape for k, v in sent.items()}


def _infer(model: str, repo: Path | None, *args: str) -> Any:
    base = ["infer", model, "--url", "localhost:1"] + (["-r", str(repo)] if repo else ["-r", "/nonexistent"])
    return CliRunner().invoke(cli, [*base, *args])


def _message(res: Any) -> str:
    return " ".join((str(res.exception) + " " + res.output).split())


@pytest.fixture
def encoder(fake_build, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Path, _Sent]:
    v = Variant("enc", "onnx", max_batch_size=8)
    return v.name, fake_build(ENCODER, v), _Sent(monkeypatch, _config(ENCODER, v.name, 8))


def test_a_shape_beyond_the_verified_maximum_is_refused_before_any_request(encoder) -> None:
    name, repo, sent = encoder
    res = _infer(name, repo, "--shape", "input_ids:500")
    assert res.exit_code != 0 and sent.inputs == []  # nothing sent
    msg = _message(res)
    assert "sets axis seq to 500, outside the build's verified range 1..128" in msg
    assert "--dynamic-axis seq=1,64,500" in msg  # what to do to serve it
    assert _infer(name, repo, "--shape", "input_ids:128").exit_code == 0  # the verified maximum itself is fine


def test_a_shape_for_one_of_two_inputs_sizes_the_other_through_their_shared_axis(encoder) -> None:
    name, repo, sent = encoder
    res = _infer(name, repo, "--shape", "input_ids:100", "-b", "2")
    assert res.exit_code == 0, _message(res)
    assert sent.shapes() == {"input_ids": (2, 100), "attention_mask": (2, 100)}  # not mask at the opt size 64
    assert "attention_mask [2, 100] (batch 2 × [100] per sample) int64: integers uniform in [0, 1]" in _message(res)
    assert "seq=100 (as --shape input_ids:100 gives it)" in _message(res)
    res = _infer(name, repo, "--shape", "input_ids:100", "--shape", "attention_mask:90")
    assert res.exit_code != 0 and len(sent.inputs) == 1  # refused: nothing more sent
    assert "give axis seq two sizes (100 and 90)" in _message(res)


def test_a_non_batching_model_refuses_b_above_1_and_sends_one_sample(fake_build, monkeypatch) -> None:
    v = Variant("enc", "onnx", max_batch_size=0)
    repo, sent = fake_build(ENCODER, v), _Sent(monkeypatch, _config(ENCODER, v.name, 0))
    res = _infer(v.name, repo, "-b", "2")
    assert res.exit_code != 0 and sent.inputs == []
    assert f"{v.name} does not batch (max_batch_size 0): batch size 2 cannot be sent" in _message(res)
    res = _infer(v.name, repo)
    assert res.exit_code == 0, _message(res)
    assert sent.shapes() == {"input_ids": (1, 64), "attention_mask": (1, 64)}  # one sample at opt, not 16 x 16


def test_a_non_batching_model_refuses_a_shape_that_sends_more_than_one_sample(fake_build, monkeypatch, tmp_path) -> None:
    """Trial 28, T28-15: -b 2 was refused ("does not batch") but --shape input_ids:3,16 sent 3 rows of one input and 1
    of the other; refused before any request (clients infer), and by the sweep's and coldstart's check of each variant."""
    v = Variant("enc", "onnx", max_batch_size=0)
    repo, sent = fake_build(ENCODER, v), _Sent(monkeypatch, _config(ENCODER, v.name, 0))
    res = _infer(v.name, repo, "--shape", "input_ids:3,16")
    assert res.exit_code == 2 and sent.inputs == []  # a usage error of --shape, nothing sent
    assert "--shape input_ids:3,16 sets the leading batch dim to 3, but" in _message(res)
    assert "--shape input_ids:1,16 (one sample per request" in _message(res)
    res = _infer(v.name, repo, "--shape", "input_ids:1,16")
    assert res.exit_code == 0, _message(res)
    assert sent.shapes() == {"input_ids": (1, 16), "attention_mask": (1, 16)}
    from perf.measure.inputs import check_variant_shapes

    with pytest.raises(PerfError, match=r"^enc\S*: --shape attention_mask:2,16 sets the leading batch dim to 2"):
        check_variant_shapes(v.name, _config(ENCODER, v.name, 0), ENCODER, {"attention_mask": (2, 16)})


def test_without_a_build_a_dynamic_dim_is_an_error_naming_input_axis_and_flag(monkeypatch) -> None:
    sent = _Sent(monkeypatch, _config(ENCODER, "bare", 8))
    res = _infer("bare", None)
    assert res.exit_code != 0 and sent.inputs == []  # no silent size 16
    msg = _message(res)
    assert "input 'input_ids' dims[0] is dynamic" in msg and "--shape input_ids:N" in msg
    assert _infer("bare", None, "--shape", "input_ids:7", "--shape", "attention_mask:7").exit_code == 0
    assert sent.shapes() == {"input_ids": (1, 7), "attention_mask": (1, 7)}


def test_an_input_file_beyond_the_verified_range_is_refused_too(encoder, tmp_path: Path) -> None:
    name, repo, sent = encoder
    data = tmp_path / "long.json"
    data.write_text(json.dumps({"data": [{"input_ids": [1] * 200, "attention_mask": [1] * 200}]}))
    res = _infer(name, repo, "--input-data", str(data))
    assert res.exit_code != 0 and sent.inputs == []
    assert "sets axis seq to 200, outside the build's verified range 1..128" in _message(res)


def test_two_dynamic_axes_beside_a_static_input(fake_build, monkeypatch) -> None:
    v = Variant("img", "onnx", max_batch_size=4)
    repo, sent = fake_build(IMAGE, v), _Sent(monkeypatch, _config(IMAGE, v.name, 4))
    assert _infer(v.name, repo).exit_code == 0
    assert sent.shapes() == {"img": (1, 3, 64, 96), "scale": (1, 4)}
    res = _infer(v.name, repo, "--shape", "img:3,100,300")
    assert res.exit_code != 0 and "sets axis w to 300, outside the build's verified range 32..256" in _message(res)
    res = _infer(v.name, repo, "--shape", "img:4,100,200")
    assert res.exit_code != 0 and "does not fit its config dims [3, -1, -1]" in _message(res)


def test_perf_analyzer_flags_follow_the_same_rule(tmp_path: Path) -> None:
    cfg = _config(ENCODER, "enc", 8)
    with pytest.raises(PerfError, match=r"sets axis seq to 500, outside the build's verified range 1\.\.128"):
        input_args(cfg, ENCODER, tmp_path, shapes={"input_ids": (500,)})
    with pytest.raises(PerfError, match="outside the build's verified range"):  # a user's data file beside it
        input_args(cfg, ENCODER, tmp_path, user_data=tmp_path / "mine.json", shapes={"input_ids": (500,)})
    args = input_args(cfg, ENCODER, tmp_path, shapes={"input_ids": (100,)})
    assert "input_ids:100" in args and "attention_mask:100" in args  # one size for the shared axis
    step = json.loads(Path(args[args.index("--input-data") + 1]).read_text())["data"][0]
    assert step["input_ids"]["shape"] == step["attention_mask"]["shape"] == [100]
    img = input_args(_config(IMAGE, "img", 4), IMAGE, tmp_path, shapes={"img": (3, 100, 200)})
    assert "img:3,100,200" in img and not any(a.startswith("scale:") for a in img)  # the static input needs no flag
    with pytest.raises(PerfError, match="sets axis h to 20, outside the build's verified range 32..128"):
        input_args(_config(IMAGE, "img", 4), IMAGE, tmp_path, shapes={"img": (3, 20, 200)})


class _Worker:
    """A stand-in for one request thread of :func:`clients.infer.run_requests`: 2 ms a request."""

    def __init__(self, *args: Any) -> None:
        pass

    def __enter__(self) -> _Worker:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def infer(self) -> dict[str, np.ndarray]:
        import time

        time.sleep(0.002)
        return {"y": np.zeros((4, 2), np.float32)}


def _serve_fake(monkeypatch: pytest.MonkeyPatch, config: dict[str, Any]) -> None:
    """run_requests against no server: ``config`` as the served model's, :class:`_Worker` as its threads."""
    import clients.infer

    client = types.SimpleNamespace(close=lambda: None)
    monkeypatch.setattr(clients.infer, "make_client", lambda url, protocol: client)
    monkeypatch.setattr(clients.infer, "_connect", lambda *a: None)
    monkeypatch.setattr(clients.infer, "model_io", lambda *a: config)
    monkeypatch.setattr(clients.infer, "_Worker", _Worker)


def test_infer_per_s_counts_batch_rows_as_perf_analyzer_does(monkeypatch: pytest.MonkeyPatch) -> None:
    import clients.infer

    config = {
        "name": "m",
        "max_batch_size": 8,
        "input": [{"name": "x", "data_type": "TYPE_FP32", "dims": [16]}],
        "output": [{"name": "y", "data_type": "TYPE_FP32", "dims": [2]}],
    }
    _serve_fake(monkeypatch, config)
    stats = clients.infer.run_requests("h:1", "http", "m", {"x": np.zeros((4, 16), np.float32)}, requests=10)
    per_request = len(stats.latencies_ms) / stats.wall_s
    assert stats.throughput_infer_per_s == pytest.approx(4 * per_request)  # 4 rows per request: 4 inferences
    monkeypatch.setattr(clients.infer, "model_signature", lambda *a: ModelSignature.from_config(config))
    res = CliRunner().invoke(cli, ["infer", "m", "--url", "h:1", "-r", "/nonexistent", "-b", "4", "--requests", "10"])
    assert res.exit_code == 0, res.output
    line = re.search(r"throughput ([\d.,]+) infer/s \(([\d.,]+) requests/s of batch 4\)", res.output)
    assert line and float(line[1].replace(",", "")) == pytest.approx(4 * float(line[2].replace(",", "")), rel=0.01)


def test_infer_numbers_carry_the_host_load_they_were_taken_under(monkeypatch: pytest.MonkeyPatch) -> None:
    """Trial 7: `clients infer --requests` printed p99 and infer/s taken while other processes used
    the CPU with no flag, where every sweep number of the same minutes was marked host busy."""
    import clients.infer
    from core.host_load import HostLoad, HostSampler

    config = {
        "name": "m",
        "max_batch_size": 8,
        "input": [{"name": "x", "data_type": "TYPE_FP32", "dims": [16]}],
        "output": [{"name": "y", "data_type": "TYPE_FP32", "dims": [2]}],
    }
    _serve_fake(monkeypatch, config)
    monkeypatch.setattr(clients.infer, "model_signature", lambda *a: ModelSignature.from_config(config))
    args = ["infer", "m", "--url", "localhost:1", "-r", "/nonexistent", "-b", "4", "--requests", "10"]
    monkeypatch.setattr(clients.infer, "_own_processes", lambda url: ([os.getpid()], None))
    monkeypatch.setattr(HostSampler, "load", lambda self, *a, **k: HostLoad.of(143.0))
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0, res.output
    assert (
        "requests/s of batch 4) [host busy: other processes used 143 % of one core; not a measurement to compare]" in res.output
    )
    monkeypatch.setattr(HostSampler, "load", lambda self, *a, **k: HostLoad.of(2.0))
    assert "[host" not in CliRunner().invoke(cli, args).output  # a quiet host: the numbers as they are
    monkeypatch.setattr(clients.infer, "_own_processes", lambda url: (None, "not sampled (server on another host)"))
    assert "requests/s of batch 4) [host load not sampled (server on another host)]" in CliRunner().invoke(cli, args).output


def test_the_server_of_a_local_url_is_found_by_its_port() -> None:
    import socket

    import clients.infer

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert clients.infer._own_processes(f"127.0.0.1:{port}") == ([os.getpid(), os.getpid()], None)
    roots, why = clients.infer._own_processes("192.0.2.1:8000")  # TEST-NET-1: never this host
    assert roots is None and why == "not sampled (server on another host)"


def test_a_newcomers_client_mistakes_get_the_way_out(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """Trial 7: a forgotten -r, a typo in the variant's name, and the gRPC port given for HTTP."""
    import clients.infer

    seq = {
        "name": "m",
        "max_batch_size": 4,
        "input": [{"name": "ids", "data_type": "TYPE_INT64", "dims": [-1]}],
        "output": [{"name": "y", "data_type": "TYPE_FP32", "dims": [2]}],
    }
    monkeypatch.setattr(clients.infer, "model_signature", lambda *a: ModelSignature.from_config(seq))
    res = CliRunner().invoke(cli, ["infer", "m", "--url", "localhost:1", "-r", str(tmp_path)])
    said = str(res.exception)  # the console entry point prints a ToolkitError as this text, no traceback
    assert f"the repository {tmp_path} has no toolkit build manifest" in said
    assert "pass -r with the repository builders build wrote for m" in said

    class Client:
        def is_model_ready(self, model: str) -> bool:
            return False

        def get_model_repository_index(self, **kw: object) -> list[dict[str, str]]:
            return [{"name": "tabular_onnx_cpu1_db500_mbs64"}, {"name": "tabular_ts_cpu1_db500_mbs64"}]

    with pytest.raises(ClientError, match=r"unknown to the server \(did you mean 'tabular_onnx_cpu1_db500_mbs64'\?\)"):
        clients.infer.model_io(Client(), "tabular_onx_cpu1_db500_mbs64", "http", "h:1")

    class Dead:
        def is_server_live(self) -> bool:
            raise ConnectionError("refused")

    monkeypatch.setattr(clients.infer, "_answers", lambda url, protocol: protocol == "grpc")
    with pytest.raises(ClientError, match="speaks grpc, not http") as e:
        clients.infer._connect(Dead(), "localhost:8001", "http")
    assert "--protocol grpc" in (e.value.hint or "")
    monkeypatch.setattr(clients.infer, "_answers", lambda url, protocol: False)
    with pytest.raises(ClientError, match="no Triton server answers at localhost:8001"):
        clients.infer._connect(Dead(), "localhost:8001", "http")


def test_an_input_file_is_sent_as_it_says_or_refused_with_the_reason(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """Trial 7: `--input-data` with `-b 4` silently sent the file's 2 rows; float64/int32 arrays
    were cast (a warning said so) but the summary said they were sent as float64/int32; ids past
    the build's value_range came back as an ONNX Runtime dump with no advice."""
    import clients.infer
    from builders.model.spec import ModelSpec
    from clients.input_files import load_input_file

    config = {
        "name": "m",
        "max_batch_size": 8,
        "input": [
            {"name": "x", "data_type": "TYPE_FP32", "dims": [16]},
            {"name": "ids", "data_type": "TYPE_INT64", "dims": [-1]},
        ],
        "output": [{"name": "y", "data_type": "TYPE_FP32", "dims": [2]}],
    }
    sig = ModelSignature.from_config(config)
    spec = ModelSpec.from_flags(["x:float32:16", "ids:int64:n:0..4999"], ["y"], ["n=1,8,32"])
    ok = tmp_path / "ok.npz"
    np.savez(ok, x=np.zeros((2, 16), np.float64), ids=np.arange(16, dtype=np.int32).reshape(2, 8))
    with pytest.raises(ClientError, match=r"-b 4 asks for 4 rows per request, but .*ok.npz holds 2") as e:
        load_input_file(ok, sig, 4, spec, batch_given=True)
    assert e.value.hint == "drop -b to send the file's rows, or save 4 rows per input"
    assert load_input_file(ok, sig, 1, spec)["x"].shape == (2, 16)  # -b not given: the file's rows are the batch
    far = tmp_path / "far.npz"
    np.savez(far, x=np.zeros((2, 16), np.float32), ids=np.full((2, 8), 7250, np.int64))
    sent = load_input_file(far, sig, 1, spec)  # value_range is what generated inputs draw from: not a refusal
    ort = (
        "[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Non-zero status code returned while running Gather node. "
        "Name:'/inner/emb/Gather' Status Message: indices element out of data bounds, idx=7250 must be within the "
        "inclusive range [-5000,4999]"
    )
    said = clients.infer._refusal(
        "m", ort, sent, "its log says why"
    )  # what the server's answer becomes: the values sent, what to send
    assert "an integer input holds an index past a table the model indexes" in said.message
    assert "'ids' 7250..7250" in said.message and "send values the model accepts" in (said.hint or "")

    _serve_fake(monkeypatch, config)
    monkeypatch.setattr(clients.infer, "model_signature", lambda *a: sig)
    res = CliRunner().invoke(cli, ["infer", "m", "--url", "h:1", "-r", str(tmp_path), "--input-data", str(ok)])
    assert res.exit_code == 0, res.output
    assert (
        "inputs: x [2, 16] (batch 2 × [16] per sample) float32, ids [2, 8] (batch 2 × [8] per sample) int64" in res.output
    )  # as sent, after the cast


def test_an_input_files_cast_is_said_on_its_inputs_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path, caplog: pytest.LogCaptureFixture
) -> None:
    """Trial 15, T15-6: a float64 .npy for a float32 input printed `input history [2, 32, 4] float32: from
    f64.npy` and was cast with no word on that line; the line names the file's dtype and the cast, once."""
    import clients.infer

    config = {
        "name": "m",
        "max_batch_size": 8,
        "input": [
            {"name": "x", "data_type": "TYPE_FP32", "dims": [16]},
            {"name": "ids", "data_type": "TYPE_INT64", "dims": [4]},
        ],
        "output": [{"name": "y", "data_type": "TYPE_FP32", "dims": [2]}],
    }
    _serve_fake(monkeypatch, config)
    monkeypatch.setattr(clients.infer, "model_signature", lambda *a: ModelSignature.from_config(config))
    rounded = "float64, cast to the served float32 (TYPE_FP32) with each value rounded to float32's precision"
    with caplog.at_level("WARNING", logger="clients.infer"):  # arrays passed in Python: logged
        clients.infer.run_requests("h:1", "http", "m", {"x": np.zeros((2, 16)), "ids": np.ones((2, 4), np.int64)})
    assert [r.getMessage() for r in caplog.records] == [f"input 'x' is {rounded}"]
    src = tmp_path / "in.npz"
    np.savez(src, x=np.random.default_rng(0).random((2, 16)), ids=np.ones((2, 4), np.int32))  # float64, int32
    res = CliRunner().invoke(cli, ["infer", "m", "--url", "h:1", "-r", str(tmp_path), "--input-data", str(src)])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert f"input x [2, 16] (batch 2 × [16] per sample) float32: from {src}, which holds {rounded}" in lines
    assert (
        f"input ids [2, 4] (batch 2 × [4] per sample) int64: from {src}, which holds int32, cast to the served int64 (TYPE_INT64) with every value kept"
        in lines
    )
    assert sum("float64" in line for line in lines) == 1  # on its line, not again as a log line above it
    same = tmp_path / "same.npz"
    np.savez(same, x=np.zeros((2, 16), np.float32), ids=np.ones((2, 4), np.int64))
    res = CliRunner().invoke(cli, ["infer", "m", "--url", "h:1", "-r", str(tmp_path), "--input-data", str(same)])
    assert (
        f"input x [2, 16] (batch 2 × [16] per sample) float32: from {same}" in res.output.splitlines()
        and "which holds" not in res.output
    )


@pytest.mark.parametrize("protocol", ["grpc", "http"])
def test_the_other_protocol_probe_calls_tritonclient_as_its_signature_allows(
    monkeypatch: pytest.MonkeyPatch, protocol: str
) -> None:
    """Reviewer: the gRPC probe passed client_timeout to the constructor (a per-call argument), so it
    raised TypeError, was swallowed, and 'speaks grpc, not http' could never be said."""
    import inspect

    import clients.infer

    real = clients.infer._module(protocol).InferenceServerClient

    class Probe:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            inspect.signature(real).bind(*args, **kwargs)  # a TypeError where the real client would raise one

        def is_server_live(self, *args: Any, **kwargs: Any) -> bool:
            inspect.signature(real.is_server_live).bind(self, *args, **kwargs)
            return True

        def close(self) -> None:
            pass

    monkeypatch.setattr(clients.infer, "_module", lambda p: types.SimpleNamespace(InferenceServerClient=Probe))
    assert clients.infer._answers("localhost:8001", protocol) is True


def test_a_server_behind_a_container_proxy_is_not_sampled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reviewer: the port of a container's server is held by docker-proxy, whose children are not the
    server's processes: its CPU would count as other work (own_roots refuses that case; so does this)."""
    import clients.request_stats as rs

    monkeypatch.setattr(rs, "listening_pid", lambda port: 4242)
    monkeypatch.setattr(rs, "_forwarder", lambda pid: pid == 4242)
    assert rs.own_processes("localhost:8000") == (
        None,
        "not sampled (server in a container: its processes are not told from other work)",
    )
    assert rs._forwarder(os.getpid()) is False  # this Python is no forwarder


def test_one_request_starts_no_sampler(monkeypatch: pytest.MonkeyPatch) -> None:
    """Review: every single request (each row of `clients check`) started a sampling thread and
    scanned the host's sockets for a load nobody reads: one request is a check, not a measurement."""
    import clients.infer

    config = {
        "name": "m",
        "max_batch_size": 8,
        "input": [{"name": "x", "data_type": "TYPE_FP32", "dims": [16]}],
        "output": [{"name": "y", "data_type": "TYPE_FP32", "dims": [2]}],
    }
    _serve_fake(monkeypatch, config)
    scans: list[str] = []
    monkeypatch.setattr(clients.infer, "_own_processes", lambda url: scans.append(url) or ([os.getpid()], None))
    one = clients.infer.run_requests("localhost:1", "http", "m", {"x": np.zeros((1, 16), np.float32)})
    assert scans == [] and one.host_load.host_not_sampled == "not sampled (one request: not a measurement)"
    clients.infer.run_requests("localhost:1", "http", "m", {"x": np.zeros((1, 16), np.float32)}, requests=3)
    assert scans == ["localhost:1"]


#: The same encoder with its mask declared (`"domain": "mask"`), as trial 10's own text classifier had it.
MASKED = ModelSpec(
    inputs=(
        TensorSpec("input_ids", "int64", ("seq",), (0, 999)),
        TensorSpec("attention_mask", "int64", ("seq",), (0, 1), domain="mask"),
        TensorSpec("features", "float32", (6,)),
    ),
    outputs=(TensorSpec("logits", "float32", (5,)),),
    dynamic_axes={"seq": (8, 32, 256)},
)


@pytest.mark.parametrize(
    ("mask", "said"),
    [
        (np.zeros((2, 32), np.int64), "has 2 of its 2 rows with no 1 (row 0, 1)"),
        (np.r_[np.ones((1, 32)), np.zeros((1, 32))].astype(np.int64), "has 1 of its 2 rows with no 1 (row 1)"),
        (np.full((2, 32), 2, np.int64), "holds 64 values other than 0 and 1 (e.g. 2)"),
    ],
)
def test_an_input_file_whose_mask_breaks_its_domain_is_refused_before_any_request(
    fake_build, monkeypatch, tmp_path: Path, mask: np.ndarray, said: str
) -> None:
    """Trial 10: an all-zero attention_mask from a file was sent, the logits printed as NaN, exit 0."""
    v = Variant("txt", "onnx", max_batch_size=8)
    repo, sent = fake_build(MASKED, v), _Sent(monkeypatch, _config(MASKED, v.name, 8))
    data = tmp_path / "mask.npz"
    ids, features = np.ones((2, 32), np.int64), np.zeros((2, 6), np.float32)
    np.savez(data, input_ids=ids, attention_mask=mask, features=features)
    res = _infer(v.name, repo, "--input-data", str(data))
    assert res.exit_code != 0 and sent.inputs == [], _message(res)
    msg = _message(res)
    assert f"input 'attention_mask' {said}" in msg and "domain 'mask'" in msg and "at least one 1" in msg
    np.savez(data, input_ids=ids, attention_mask=np.tril(np.ones((2, 32), np.int64))[:, ::-1], features=features)
    assert _infer(v.name, repo, "--input-data", str(data)).exit_code == 0  # every row attends to a token: sent


def test_outputs_that_are_not_numbers_are_said_beside_the_table(fake_build, monkeypatch) -> None:
    """Trial 10: `clients infer` printed `nan` in the min/max/mean columns and nothing else."""
    import clients.infer
    from clients.request_stats import not_finite_lines

    v = Variant("txt", "onnx", max_batch_size=8)
    repo, _ = fake_build(MASKED, v), _Sent(monkeypatch, _config(MASKED, v.name, 8))
    logits = np.full((1, 5), np.nan, np.float32)
    monkeypatch.setattr(
        clients.infer,
        "run_requests",
        lambda *a, **k: types.SimpleNamespace(outputs={"logits": logits}, failures=[], concurrency=1, sent={}),
    )
    res = _infer(v.name, repo)
    assert "warning: output 'logits' holds 5 NaN of its 5 values" in _message(res)
    assert not_finite_lines({"x": np.array([1.0, np.inf, np.nan]), "ids": np.array([1, 2])}) == [
        "warning: output 'x' holds 1 NaN and 1 infinite of its 3 values: the model returned values that are not numbers "
        "for these inputs (an attention mask row with no 1, an input outside what the model was trained on, or an "
        "overflow at a lower precision)"
    ]
    assert not_finite_lines({"x": np.array([1.0, 2.0])}) == []
