"""The defaults a ``builders``/``clients`` ``-h`` states in words, each checked by running what
the words promise without the flag (:mod:`test_help_defaults` finds them and fails on one
without a check here)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_defaults import (
    CHECKED_ELSEWHERE,
    DECLARED,
    _build_opts,
    _check_server,
    _infer_call,
    _serve_server,
    run_recorded,
    stated_defaults,
)
from click.testing import CliRunner

from builders.cli.main import cli as builders_cli
from builders.config.variants import Variant, VariantGrid
from builders.model.builtin import get_builtin
from builders.model.spec import ModelSpec
from builders.model.tensor import TensorSpec
from clients.cli.main import cli as clients_cli
from core.errors import GpuRequiredError


def name(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """[default: the built-in's name, the factory's function name, or the model file's stem]"""
    from builders.model.models import load_model

    assert _build_opts(monkeypatch).name is None  # the build names it from what it loads
    (tmp_path / "name_pkg.py").write_text("import torch\n\ndef make_net():\n    return torch.nn.Linear(4, 4)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = ModelSpec.from_flags(["x:float32:4"])
    assert load_model("tiny", None).name == "tiny" and load_model("name_pkg:make_net", spec).name == "make_net"


def rtol(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """[default: by precision: fp32 1e-4, fp16/bf16 1e-2]"""
    from builders.verify.verification import output_tolerances

    assert _build_opts(monkeypatch).rtol == {}
    spec = get_builtin("tiny").spec
    assert {p: set(output_tolerances(spec, p, {}).values()) for p in ("fp32", "fp16", "bf16")} == {
        "fp32": {1e-4},
        "fp16": {1e-2},
        "bf16": {1e-2},
    }


def _config(grid: VariantGrid) -> Any:
    from builders.config.pbtxt import make_config

    v = grid.plan("tiny", ("onnx",), ("fp32",)).variants[-1]
    return make_config(v, get_builtin("tiny").spec, "python")


def preferred(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """[default: none: the batcher's own choice]"""
    grid = _build_opts(monkeypatch).grid
    assert grid.preferred_batch_sizes == ()
    cfg = _config(VariantGrid(counts=(1,), queue_delays_us=(500,)))
    assert cfg.HasField("dynamic_batching") and list(cfg.dynamic_batching.preferred_batch_size) == []


def gpus(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """[default: all]: KIND_GPU instance groups name no gpus, which Triton reads as every GPU."""
    assert _build_opts(monkeypatch).grid.gpus == ()
    cfg = _config(VariantGrid(kinds=("gpu",), counts=(1,), queue_delays_us=(None,), server_gpu=True))
    assert cfg.instance_group[0].kind == cfg.instance_group[0].KIND_GPU and list(cfg.instance_group[0].gpus) == []


def server_gpu(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """[default: whether this host has one]"""
    import builders.config.variants as variants

    assert _build_opts(monkeypatch).grid.server_gpu is None
    grid = VariantGrid(kinds=("gpu",), counts=(1,), queue_delays_us=(None,))
    monkeypatch.setattr(variants, "gpu_available", lambda: True)
    assert grid.plan("tiny", ("onnx",), ("fp32",)).variants
    monkeypatch.setattr(variants, "gpu_available", lambda: False)
    with pytest.raises(GpuRequiredError, match="no GPU"):
        grid.plan("tiny", ("onnx",), ("fp32",))


def serving(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """[default: python]"""
    assert _build_opts(monkeypatch).serving == "python"
    res = CliRunner().invoke(builders_cli, ["variants", "--instance-counts", "1"])
    assert res.exit_code == 0 and "(python serving)" in res.output


def warmup_count(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """[default: 3, recorded as a default, not measured]"""
    from builders.config.warmup import warmup_count as count_of

    assert _build_opts(monkeypatch).warmup_count is None
    w = count_of(None, None)
    assert w.count == 3 and "default" in w.reason and "not measured" in w.reason


def timing_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """[default: BUILD_DIR/<model>/trt_timing.cache]"""
    from builders.export.tensorrt import TIMING_CACHE_FILE, trtexec_docker_command

    assert _build_opts(monkeypatch).timing_cache is None and TIMING_CACHE_FILE == "trt_timing.cache"
    line = trtexec_docker_command(tmp_path / "builds" / "tiny", "fp32", get_builtin("tiny").spec, 8, "24.10")
    assert f"-v {(tmp_path / 'builds' / 'tiny').resolve()}:/build" in line and "--timingCacheFile=/build/trt_timing.cache" in line


def plans(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """--plan [PRECISION=]PATH [default: the one --precision]"""
    from builders.cli.build import _plan_flags

    plan = tmp_path / "a.plan"  # a file that is there: a missing one is refused (a typed path, exit 2)
    plan.write_bytes(b"plan")
    assert _plan_flags((str(plan),), ("fp16",)) == {"fp16": plan}


def validate_server_gpu(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """(default: not checked): a KIND_GPU instance group is reported only with --no-server-gpu."""
    import builders.cli.validate

    seen = run_recorded(monkeypatch, builders.cli.validate, "validate_run", "builders", ["validate", str(tmp_path)])
    assert seen["kwargs"]["server_gpu"] is None
    v = Variant("m", "onnx", kind="gpu", count=1, max_batch_size=4)
    assert v.problems(server_gpu=None) == [] and v.problems(server_gpu=False)


def log_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """[default: ~/.cache/.../tritonserver-<time>.log; the newest 20 are kept; $TRITON_TOOLKIT_LOG_DIR moves the folder]"""
    from clients.runtimes.host import default_log_path, prune_server_logs
    from clients.runtimes.options import KEEP_SERVER_LOGS, SERVER_LOG_DIR_ENV

    assert _check_server(monkeypatch).log_file is None and _serve_server(monkeypatch).log_file is None
    monkeypatch.setenv(SERVER_LOG_DIR_ENV, str(tmp_path / "logs"))
    (tmp_path / "logs").mkdir()
    assert default_log_path().parent == tmp_path / "logs" and default_log_path().name.startswith("tritonserver-")
    for i in range(KEEP_SERVER_LOGS + 5):
        (tmp_path / "logs" / f"tritonserver-{i:04d}.log").write_text("")
    prune_server_logs(tmp_path / "logs")  # before a server starts: room for its own log
    assert KEEP_SERVER_LOGS == 20 and len(list((tmp_path / "logs").glob("tritonserver-*.log"))) == 20 - 1


def tag(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """--tag [default: (24.10)] and --image [default: (from --tag)]"""
    from clients.runtimes.options import ServerOptions

    opts = _check_server(monkeypatch)
    assert opts.tag is None and opts.image == "nvcr.io/nvidia/tritonserver:24.10-py3"
    assert ServerOptions(tag="24.05").image == "nvcr.io/nvidia/tritonserver:24.05-py3"


def shm_size(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """[default: computed from the repository's python-backend models (instances x tensor sizes), at least 1g]"""
    from clients.runtimes.shm import default_shm_size, parse_docker_size

    assert _check_server(monkeypatch).shm_size is None
    (tmp_path / "repo").mkdir()
    assert parse_docker_size(default_shm_size(tmp_path / "repo")) == 1 << 30


def binary(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """[default: $TRITONSERVER, else PATH]"""
    from clients.runtimes.local import local_binary

    assert _check_server(monkeypatch).binary is None
    (tmp_path / "bin").mkdir()
    for where in ("env", "bin"):
        (tmp_path / where / "tritonserver").parent.mkdir(exist_ok=True)
        (tmp_path / where / "tritonserver").write_text("#!/bin/sh\n")
        (tmp_path / where / "tritonserver").chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setenv("TRITONSERVER", str(tmp_path / "env" / "tritonserver"))
    assert local_binary() == str(tmp_path / "env" / "tritonserver")
    monkeypatch.delenv("TRITONSERVER")
    assert local_binary() == shutil.which("tritonserver") == str(tmp_path / "bin" / "tritonserver")


def metrics_urls(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """[default: the same host, HTTP port + 2]"""
    from clients.runtimes.remote import parse_endpoint

    assert _check_server(monkeypatch).metrics_urls == ()
    assert parse_endpoint("gpu-box:9000").metrics_url == "gpu-box:9002/metrics"


def max_upload(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """[default: Triton's limit: 64 MiB over HTTP (--http-max-input-size), 2 GiB over gRPC]"""
    from clients.runtimes.upload import upload_limit_bytes

    assert _check_server(monkeypatch).max_upload_bytes is None
    assert upload_limit_bytes("http") == 64 << 20 and abs(upload_limit_bytes("grpc") - (2 << 30)) <= 1  # gRPC: 2^31 - 1


def check_variants(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_build: Callable[..., Path]) -> None:
    """[default: all in index.json]"""
    import clients.check
    from builders.repository.view import Repository

    seen = run_recorded(monkeypatch, clients.check, "check_with_server", "clients", ["check"])
    assert seen["args"][2] == ()
    v = Variant("tiny", "onnx", max_batch_size=4)
    repo = fake_build(get_builtin("tiny").spec, v)
    assert [x.name for x in Repository(repo).variants(())] == [v.name]  # what check_with_server checks for ()


def infer_url(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """[default: localhost:8000 (http) / localhost:8001 (grpc)]"""
    import clients.infer

    seen = [
        run_recorded(monkeypatch, clients.infer, "model_signature", "clients", ["infer", "m", "--protocol", p])["args"][0]
        for p in ("http", "grpc")
    ]
    assert seen == ["localhost:8000", "localhost:8001"]


def infer_inputs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """--input-data [default: generated from the model's signature and the build's spec; the
    shapes and value ranges used are printed]"""
    call = _infer_call(monkeypatch)
    assert call["args"][3]["x"].shape == (1, 4)  # from the signature (no build for m here)


def infer_shapes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_build: Callable[..., Path]) -> None:
    """--shape [default: the build's opt size of the axis; required without a build]"""
    import clients.infer
    from clients.inputs import ModelSignature

    spec = ModelSpec(
        inputs=(TensorSpec("ids", "int64", ("seq",), (0, 9)),),
        outputs=(TensorSpec("y", "float32", (4,)),),
        dynamic_axes={"seq": (1, 24, 64)},
    )
    v = Variant("dyn", "onnx", max_batch_size=4)
    repo = fake_build(spec, v)
    config = {"name": v.name, "max_batch_size": 4, "input": [{"name": "ids", "data_type": "TYPE_INT64", "dims": [-1]}]}
    config["output"] = [{"name": "y", "data_type": "TYPE_FP32", "dims": [4]}]
    monkeypatch.setattr(clients.infer, "model_signature", lambda *a: ModelSignature.from_config(config))
    seen = run_recorded(monkeypatch, clients.infer, "run_requests", "clients", ["infer", v.name, "-r", str(repo)])
    assert seen["args"][3]["ids"].shape == (1, 24)  # the opt size
    res = CliRunner().invoke(clients_cli, ["infer", v.name, "-r", str(tmp_path / "none")])
    assert res.exit_code != 0 and "--shape" in str(res.exception) + res.output


def infer_outputs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """--output (repeatable; default all): no output named in the request, so the server returns each."""
    assert _infer_call(monkeypatch)["args"][6] is None


def infer_cast(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """--no-cast (default: cast float->float, int->int with a note)"""
    import numpy as np

    from clients.inputs import ModelSignature, validate_inputs

    assert _infer_call(monkeypatch)["args"][7] is True
    config = {"name": "m", "max_batch_size": 8, "input": [{"name": "x", "data_type": "TYPE_FP32", "dims": [4]}]}
    config["output"] = [{"name": "y", "data_type": "TYPE_FP32", "dims": [4]}]
    sig = ModelSignature.from_config(config)
    with pytest.MonkeyPatch.context():
        got = validate_inputs(sig, {"x": np.zeros((1, 4), np.float64)})
    assert got["x"].dtype == np.float32


#: ``(group, command, parameter) -> check`` of every default stated in words.
PROSE: dict[tuple[str, str, str], Callable[..., None]] = {
    **{("builders", c, "preferred_batch_sizes"): preferred for c in ("build", "variants")},
    **{("builders", c, "gpus"): gpus for c in ("build", "variants")},
    **{("builders", c, "server_gpu"): server_gpu for c in ("build", "variants")},
    **{("builders", c, "serving"): serving for c in ("build", "variants")},
    ("builders", "build", "name"): name,
    ("builders", "build", "rtol"): rtol,
    ("builders", "build", "warmup_count"): warmup_count,
    ("builders", "build", "timing_cache"): timing_cache,
    ("builders", "build", "plans"): plans,
    ("builders", "validate", "server_gpu"): validate_server_gpu,
    **{("clients", c, "log_file"): log_file for c in ("serve", "check")},
    **{("clients", c, "tag"): tag for c in ("serve", "check")},
    **{("clients", c, "image"): tag for c in ("serve", "check")},
    **{("clients", c, "shm_size"): shm_size for c in ("serve", "check")},
    **{("clients", c, "binary"): binary for c in ("serve", "check")},
    ("clients", "check", "metrics_urls"): metrics_urls,
    ("clients", "check", "max_upload_bytes"): max_upload,
    ("clients", "check", "variants"): check_variants,
    ("clients", "infer", "url"): infer_url,
    ("clients", "infer", "input_path"): infer_inputs,
    ("clients", "infer", "shapes"): infer_shapes,
    ("clients", "infer", "outputs"): infer_outputs,
    ("clients", "infer", "no_cast"): infer_cast,
}


def test_every_stated_default_has_a_check() -> None:
    stated = stated_defaults()
    assert len(stated) > 40, "the help texts were not read"
    unchecked = []
    for key, (text, declared) in stated.items():
        if text == declared:  # click's rendering of the declared value
            shared = (key[0], "serve", key[2])  # clients check and serve share the server flags
            if key not in DECLARED and key not in CHECKED_ELSEWHERE and shared not in DECLARED:
                unchecked.append(f"{' '.join(key)}: -h says [default: {text}]")
        elif key not in PROSE:
            unchecked.append(f"{' '.join(key)}: -h says the default is {text!r}, the flag's declared value is {declared!r}")
    assert not unchecked, "stated defaults nothing checks:\n" + "\n".join(unchecked)


@pytest.mark.parametrize("check", sorted(set(PROSE.values()), key=lambda f: f.__name__), ids=lambda f: f.__name__)
def test_a_default_stated_in_words_is_what_the_command_does(
    check: Callable[..., None], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    monkeypatch.chdir(tmp_path)
    extra = {"fake_build": request.getfixturevalue("fake_build")} if "fake_build" in check.__code__.co_varnames else {}
    check(monkeypatch, tmp_path, **extra)
