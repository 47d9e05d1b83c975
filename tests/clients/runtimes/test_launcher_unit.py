"""The launcher's printout, ``--load-model`` patterns, runtimes that lack a model's backend,
and where server logs go (issue 19, items 1, 7 and 10); no server is started."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

from clients.cli.launch import ready_text
from clients.runtimes.host import HeldPorts, default_log_path, prune_server_logs
from clients.runtimes.models import expand_model_patterns
from clients.server import ServerOptions, TritonServer
from core.errors import ServerError


def _model(repo: Path, name: str, backend_line: str = 'backend: "python"') -> None:
    (repo / name / "1").mkdir(parents=True)
    (repo / name / "config.pbtxt").write_text(f'name: "{name}"\n{backend_line}\nmax_batch_size: 8\n')


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    for name in ("mlp_onnx_cpu1_nodb_mbs64", "mlp_onnx_cpu2_db500_mbs64", "mlp_ts_cpu1_nodb_mbs64", "enc_onnx_cpu1_nodb_mbs64"):
        _model(r, name)
    return r


def test_load_model_takes_the_patterns_variants_takes(repo: Path) -> None:
    assert expand_model_patterns(repo, ["mlp_onnx_*"]) == ("mlp_onnx_cpu1_nodb_mbs64", "mlp_onnx_cpu2_db500_mbs64")
    assert expand_model_patterns(repo, ["enc_*", "mlp_ts_cpu1_nodb_mbs64", "enc_onnx_cpu1_nodb_mbs64"]) == (
        "enc_onnx_cpu1_nodb_mbs64",
        "mlp_ts_cpu1_nodb_mbs64",
    )
    assert len(expand_model_patterns(repo, ["*"])) == 4
    with pytest.raises(ServerError, match=r"--load-model cnn_\*: no variant in .* matches") as e:
        expand_model_patterns(repo, ["cnn_*"])
    assert "mlp_ts_cpu1_nodb_mbs64" in (e.value.hint or "")


def test_the_server_command_loads_what_the_pattern_matched(repo: Path) -> None:
    srv = TritonServer(ServerOptions(repo, runtime="bundled", load_models=("mlp_*_nodb_*",)))
    assert srv.opts.load_models == ("mlp_onnx_cpu1_nodb_mbs64", "mlp_ts_cpu1_nodb_mbs64")
    assert "--load-model=mlp_onnx_cpu1_nodb_mbs64" in srv.command and "--load-model=mlp_ts_cpu1_nodb_mbs64" in srv.command
    assert not any(a == "--load-model=mlp_*_nodb_*" for a in srv.command)


def _fake_ready(srv: TritonServer) -> TritonServer:
    srv._proc = type("P", (), {"pid": 4242})()  # type: ignore[assignment]
    return srv


def test_ready_text_prints_endpoints_and_a_clients_infer_line(repo: Path) -> None:
    held = HeldPorts([0, 0, 0])  # 8000 (and Triton's layout, 8001 and 8002) may be another server's on this host
    http, grpc, metrics = held.ports
    srv = _fake_ready(TritonServer(ServerOptions(repo, runtime="bundled", http_port=http, grpc_port=grpc, metrics_port=metrics)))
    text = ready_text(srv, ["mlp_onnx_cpu1_nodb_mbs64"])
    assert "tritonserver ready (pid 4242, runtime bundled)" in text and f"  http:    localhost:{http}" in text
    assert f"  log:     {srv.log_path}" in text and "  models:  mlp_onnx_cpu1_nodb_mbs64" in text
    line = text.splitlines()[-1].strip()
    argv = shlex.split(line)
    assert argv[1:] == ["infer", "mlp_onnx_cpu1_nodb_mbs64", "--url", f"localhost:{http}", "-r", str(repo)]
    assert argv[0].endswith("clients")


def test_ready_text_without_models_says_how_to_load_one(repo: Path) -> None:
    held = HeldPorts([0])  # a gRPC port given alone (9001 may be another server's on this host)
    srv = _fake_ready(TritonServer(ServerOptions(repo, runtime="bundled", grpc_port=held.ports[0])))
    text = ready_text(srv, [])
    assert "models:  none loaded" in text and "--load-model 'mlp_*'" in text
    assert f"curl -X POST http://{srv.http_url}/v2/repository/models/MODEL/load" in text
    assert shlex.split(text.splitlines()[-1])[1:3] == ["infer", "MODEL"]


@pytest.mark.parametrize(
    "backend_line,backend",
    [
        ('platform: "pytorch_libtorch"', "pytorch"),
        ('platform: "onnxruntime_onnx"', "onnxruntime"),
        ('backend: "tensorrt"', "tensorrt"),
    ],
)
def test_a_native_model_on_the_bundled_runtime_names_the_runtimes_that_serve_it(
    tmp_path: Path, backend_line: str, backend: str
) -> None:
    repo = tmp_path / "repo"
    _model(repo, "m_native", backend_line)
    _model(repo, "m_python")
    srv = TritonServer(ServerOptions(repo, runtime="bundled"))
    srv.check_servable("m_python")  # the python backend is there
    with pytest.raises(
        ServerError, match=f"needs Triton's '{backend}' backend .* the bundled runtime has only the python backend"
    ) as e:
        srv.check_servable("m_native")
    assert "--runtime local" in e.value.hint and "--runtime container" in e.value.hint and "--serving python" in e.value.hint
    # at start too, before any process runs
    with pytest.raises(ServerError, match="the bundled runtime has only the python backend"):
        TritonServer(ServerOptions(repo, runtime="bundled", load_models=("m_*",)))


def test_auto_says_why_it_chose_a_runtime_that_cannot_serve(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from clients.runtimes.container import ContainerRuntime
    from clients.runtimes.local import LocalRuntime

    monkeypatch.setattr(LocalRuntime, "detect", classmethod(lambda cls, o: None))
    monkeypatch.setattr(ContainerRuntime, "detect", classmethod(lambda cls, o: None))
    repo = tmp_path / "repo"
    _model(repo, "m", 'platform: "onnxruntime_onnx"')
    srv = TritonServer(ServerOptions(repo, runtime="auto"))
    with pytest.raises(ServerError, match=r"bundled runtime \(chosen by --runtime auto: no local tritonserver"):
        srv.check_servable("m")


def test_runtimes_with_native_backends_are_not_refused(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    _model(repo, "m", 'platform: "pytorch_libtorch"')
    srv = TritonServer(ServerOptions(repo, runtime="container"))
    srv.check_servable("m")  # no error: the container has every native backend


def test_server_logs_go_to_one_folder_and_old_ones_are_pruned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repo: Path
) -> None:
    folder = tmp_path / "logs"
    monkeypatch.setenv("TRITON_TOOLKIT_LOG_DIR", str(folder))
    a, b = default_log_path(), default_log_path()
    assert a.parent == b.parent == folder and a != b and a.name.startswith("tritonserver-")
    srv = TritonServer(ServerOptions(repo, runtime="bundled"))
    assert srv.log_path.parent == folder and not folder.exists()  # nothing written before start (--print-cmd)
    folder.mkdir()
    for i in range(25):
        p = folder / f"tritonserver-old-{i:02d}.log"
        p.write_text("x")
        os.utime(p, (1000 + i, 1000 + i))
    (folder / "notes.txt").write_text("kept")
    prune_server_logs(folder, keep=20)
    left = sorted(p.name for p in folder.glob("tritonserver-*.log"))
    assert len(left) == 19 and left[0] == "tritonserver-old-06.log"  # the new one makes 20
    assert (folder / "notes.txt").is_file()


def test_the_log_folder_defaults_to_the_user_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from clients.runtimes.options import server_log_dir

    monkeypatch.delenv("TRITON_TOOLKIT_LOG_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert server_log_dir() == tmp_path / "triton-model-toolkit" / "server-logs"


@pytest.mark.parametrize("more", [[], ["--print-cmd"]])
def test_serve_neither_offers_nor_takes_the_remote_runtime(tmp_path: Path, more: list[str]) -> None:
    """s19: `clients serve --runtime remote` said "--runtime remote needs the server's address: pass --url HOST:PORT",
    a flag serve does not have; trial 25, T25-13: the launcher's -h then offered `remote (a running server at --url)`
    as a choice and refused it when chosen. It starts a server: -h offers no remote, and typing it is a usage error
    saying why and what to do (as serve() called directly says)."""
    from click.testing import CliRunner

    from clients.cli.launch import serve, serve_command
    from clients.cli.main import cli
    from core.errors import FlagError

    for command, head in ((cli, ["serve"]), (serve_command("launch_tritonserver"), [])):
        helped = CliRunner().invoke(command, [*head, "-h"])
        assert helped.exit_code == 0 and "remote" not in helped.output and "--url" not in helped.output, helped.output
        assert "[auto|bundled|local|container]" in helped.output
        (tmp_path / "model_repository").mkdir(exist_ok=True)
        res = CliRunner().invoke(command, [*head, "-r", str(tmp_path / "model_repository"), "--runtime", "remote", *more])
        said = " ".join(res.output.split())
        assert res.exit_code == 2, said
        assert "--runtime remote is a running server the toolkit reaches at --url; serve starts a server" in said
        assert "pass --url" not in said and "clients check --url HOST:PORT" in said and "--runtime auto, bundled" in said
    with pytest.raises(FlagError) as e:
        serve(ServerOptions(repository=tmp_path / "model_repository", runtime="remote"))
    assert "serve starts a server" in e.value.message and "clients check --url HOST:PORT" in (e.value.hint or "")


def test_print_cmd_refuses_what_only_a_start_reads(tmp_path: Path) -> None:
    """s19: `clients serve --print-cmd --log-file x.log --start-timeout 3` printed a command that writes no log (the
    launcher's redirect is not in it) and waits for nothing, both flags ignored: refused, each with what to do."""
    from click.testing import CliRunner

    from clients.cli.main import cli

    (tmp_path / "model_repository").mkdir()
    base = ["serve", "-r", str(tmp_path / "model_repository"), "--runtime", "bundled", "--print-cmd"]
    res = CliRunner().invoke(cli, [*base, "--log-file", str(tmp_path / "x.log"), "--start-timeout", "3"])
    said = " ".join(res.output.split())
    assert res.exit_code == 2, said
    assert "--log-file and --start-timeout would be ignored: --print-cmd prints the command and starts nothing" in said
    assert "add `> FILE 2>&1` to the printed command" in said and "drop --print-cmd to start it and wait" in said
    assert "tritonserver" not in res.output
    plain = CliRunner().invoke(cli, base)  # nothing typed that only a start reads: the command
    assert plain.exit_code == 0 and "--model-repository=" in plain.output


@pytest.mark.parametrize(("stop", "said"), [(KeyboardInterrupt, "Ctrl-C"), ("SIGTERM", "SIGTERM")])
def test_the_launchers_stop_line_names_a_ctrl_c_as_every_command_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], stop: object, said: str
) -> None:
    """Trial 30, F16: a Ctrl-C of the launcher said "stopping tritonserver (KeyboardInterrupt)"; builds, sweeps and
    every other command say "(Ctrl-C)"; a SIGTERM "(SIGTERM)"."""
    from clients.cli import launch

    stopped: list[bool] = []

    class Fake:
        command_line, runtime, runtime_reason = "tritonserver", "bundled", "test"

        def __init__(self, _opts: object) -> None:
            pass

        def start(self) -> None:
            raise KeyboardInterrupt if stop is KeyboardInterrupt else launch._Stop(stop)

        def stop(self) -> None:
            stopped.append(True)

    monkeypatch.setattr(launch, "TritonServer", Fake)
    launch.serve(ServerOptions(repository=tmp_path, runtime="bundled"))
    err = capsys.readouterr().err
    assert f"stopping tritonserver ({said})" in err and "KeyboardInterrupt" not in err and stopped
