"""tritonserver's own flags passed through (``--server-arg``, the launcher's ``-- FLAGS``): the kind of
trial 16's T16-6 at the server. The pass-through came last on tritonserver's command, so
``--server-arg=--http-port=9000`` or ``--server-arg=--http-address=0.0.0.0`` silently won over the
ports the clients use and the 127.0.0.1 the toolkit listens on. A flag the toolkit sets itself, or one
that changes what it measures or says, is refused before anything starts, in every form tritonserver
reads, from one table (:data:`clients.runtimes.server_flags.SERVER_FLAGS`), naming the toolkit's flag
to use; by every command that takes ``--server-arg``. No server starts here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from clients.cli import launch
from clients.cli import main as clients_main
from clients.runtimes.bundled import BundledRuntime
from clients.runtimes.choose import RUNTIME_CLASSES
from clients.runtimes.local import LocalRuntime
from clients.runtimes.options import ServerOptions
from clients.runtimes.server_flags import PASS_FLAG, SERVER_FLAGS, server_arg_refusal
from clients.server import TritonServer
from core.errors import FlagError
from perf.cli import main as perf_main
from perf.measure import analyzer

#: Every option of the commands that take --server-arg (the advice must name one of them).
TOOLKIT_OPTIONS = {
    o
    for cmd in (launch.serve_command(), perf_main.sweep, clients_main.cli.commands["check"])
    for p in cmd.params
    for o in (*p.opts, *p.secondary_opts)
}
REFUSED = [f for f in SERVER_FLAGS if f.why is not None]


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    for name in ("v", "w"):
        (tmp_path / "repo" / name).mkdir(parents=True)
        (tmp_path / "repo" / name / "config.pbtxt").write_text(
            f'name: "{name}"\nbackend: "python"\nmax_batch_size: 8\n'
            'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
            'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        )
    (tmp_path / "repo" / "index.json").write_text('{"variants": []}')
    return tmp_path / "repo"


@pytest.fixture()
def nothing_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that would be checked or started fails the test: a refusal must come before."""

    def started(*_: Any, **__: Any) -> Any:
        raise AssertionError("went on to check or start a server")

    for cls in RUNTIME_CLASSES.values():
        monkeypatch.setattr(cls, "check", started)
    monkeypatch.setattr(TritonServer, "start", started)
    monkeypatch.setattr(analyzer, "find_perf_analyzer", lambda *_: "perf_analyzer")
    monkeypatch.setattr(analyzer, "perf_analyzer_version", lambda *_: "2.51.0")


@pytest.mark.parametrize(
    "args, named, use",
    [
        (["--http-port=9000"], "--http-port", "use the toolkit's own --http-port 9000 instead"),  # --flag=V
        (["--http-port", "9000"], "--http-port", "use the toolkit's own --http-port 9000 instead"),  # --flag V: two pass-throughs
        (["--http-port 9000"], "--http-port", "use the toolkit's own --http-port 9000 instead"),  # one argument with a space
        (["--http-p=9000"], "--http-port", "use the toolkit's own --http-port 9000 instead"),  # getopt_long's unambiguous prefix
        (["--http-address=0.0.0.0"], "--http-address", "use --address 0.0.0.0 instead of --http-address"),
        (["--grpc-address", "0.0.0.0"], "--grpc-address", "use --address 0.0.0.0 instead of --grpc-address"),
        (["--model-store=/elsewhere"], "--model-store", "use --repository /elsewhere instead of --model-store"),  # the alias
        (["--model-repository", "/x"], "--model-repository", "use --repository /x instead of --model-repository"),
        (["--model-control-mode=none"], "--model-control-mode", "use --model-control none instead of --model-control-mode"),
        (["--load-model=*"], "--load-model", "use the toolkit's own --load-model * instead"),
        (["--metrics-interval-ms=100"], "--metrics-interval-ms", "use the toolkit's own --metrics-interval-ms 100 instead"),
        (["--allow-http=false"], "--allow-http", "--allow-http cannot be given to the toolkit's tritonserver"),
        (["--log-file=/tmp/x.log"], "--log-file", "use the toolkit's own --log-file /tmp/x.log instead"),
        (["--log-info=false", "--allow-sagemaker", "true"], "--allow-sagemaker", "--allow-sagemaker cannot be given"),
    ],
)
def test_every_form_of_a_flag_the_toolkit_sets_is_refused(args: list[str], named: str, use: str) -> None:
    refusal = server_arg_refusal(args)
    assert refusal is not None and refusal.flag == PASS_FLAG
    given = " ".join(f"{PASS_FLAG}={a}" for a in args if a != "--log-info=false")
    assert refusal.message.startswith(f"{given} is refused: tritonserver's {named}")
    assert use in (refusal.hint or "")


@pytest.mark.parametrize(
    "args",
    [
        ["--log-info=false"],  # the help's own example
        ["--exit-timeout-secs", "1"],
        ["--disable-auto-complete-config"],  # the toolkit's advice when a served config differs
        ["--strict-readiness=true"],
        ["--exit-on-error=false", "--model-load-thread-count=4"],  # scripts/gpu_check.py
        ["--http-thread-count=8"],
        ["--id", "--http-port"],  # a value, not tritonserver's --http-port
        ["--http=9000"],  # ambiguous: tritonserver refuses it itself
        ["--", "--http-port=9000"],  # after --: not a flag (tritonserver: "Unexpected argument")
    ],
)
def test_flags_that_only_tune_the_server_go_through(args: list[str]) -> None:
    assert server_arg_refusal(args) is None


@pytest.mark.parametrize("flag", REFUSED, ids=lambda f: f.names[0])
def test_each_refused_flag_says_why_and_names_a_flag_the_toolkit_has(flag: Any) -> None:
    for name in flag.names:
        refusal = server_arg_refusal([f"{name}=1" if flag.value else name], runtime=flag.runtimes[0] if flag.runtimes else None)
        assert refusal is not None and f"tritonserver's {name}" in refusal.message and flag.why in refusal.message
        for use in flag.instead:
            assert use.split()[0] in TOOLKIT_OPTIONS and use in (refusal.hint or "")
        if not flag.instead:
            assert f"{name} cannot be given to the toolkit's tritonserver" in (refusal.hint or "")


def test_a_flag_one_runtime_sets_is_refused_there_only(repo: Path) -> None:
    args = ("--backend-directory=/opt/mine",)
    with pytest.raises(FlagError, match="which the bundled runtime sets"):
        BundledRuntime(ServerOptions(repo, runtime="bundled", extra_args=args))
    assert LocalRuntime(ServerOptions(repo, runtime="local", extra_args=args)).opts.extra_args == args
    assert server_arg_refusal(args, runtime="auto") is None  # checked again once auto is resolved


def test_a_server_the_toolkit_does_not_start_takes_no_flag() -> None:
    refusal = server_arg_refusal(["--log-info=false"], runtime="remote")
    assert refusal is not None and "would be ignored: with --runtime remote the toolkit starts no server" in refusal.message


def test_the_python_api_refuses_it_before_anything_starts(repo: Path, nothing_starts: None) -> None:
    with pytest.raises(FlagError) as e:
        TritonServer(ServerOptions(repo, runtime="bundled", extra_args=("--http-address", "0.0.0.0")))
    assert e.value.message.startswith(f"{PASS_FLAG}=--http-address {PASS_FLAG}=0.0.0.0 is refused")
    with pytest.raises(FlagError, match="would be ignored"):
        TritonServer(ServerOptions(repo, urls=("localhost:8000",), extra_args=("--log-info=false",)))


def test_a_stop_waits_for_the_exit_timeout_passed_through(repo: Path) -> None:
    """--exit-timeout-secs goes through: tritonserver takes the last one given, and so does the stop's wait."""
    default = BundledRuntime(ServerOptions(repo, runtime="bundled"))
    longer = BundledRuntime(ServerOptions(repo, runtime="bundled", extra_args=("--exit-timeout-secs", "60")))
    assert default.stop_wait_s() == default.opts.exit_timeout_s + 5 and longer.stop_wait_s() == 65


def _said(output: str) -> str:
    return " ".join(output.split())


@pytest.mark.parametrize(
    "command",
    [
        ["serve", "--print-cmd"],
        ["launcher", "--print-cmd"],
        ["check"],
        ["coldstart"],
        ["sweep"],
        ["colocate", "--model", "a=v", "--model", "b=w"],
    ],
)
def test_every_command_that_takes_it_refuses_it_before_anything_starts(
    command: list[str], repo: Path, tmp_path: Path, nothing_starts: None
) -> None:
    name, *rest = command
    cli, head = {
        "serve": (clients_main.cli, ["serve"]),
        "launcher": (launch.serve_command("launch_tritonserver"), []),
        "check": (clients_main.cli, ["check"]),
        "coldstart": (perf_main.cli, ["coldstart"]),
        "sweep": (perf_main.cli, ["sweep", "--results-dir", str(tmp_path / "results")]),
        "colocate": (perf_main.cli, ["colocate", "--results-dir", str(tmp_path / "results")]),
    }[name]
    common = ["-r", str(repo), "--runtime", "bundled"]
    for passed, named in (
        (["--server-arg=--grpc-port=9001"], f"{PASS_FLAG}=--grpc-port=9001 is refused: tritonserver's --grpc-port"),
        (["--server-arg", "--model-control-mode=poll"], "tritonserver's --model-control-mode is the model control"),
    ):
        res = CliRunner().invoke(cli, [*head, *common, *rest, *passed])
        assert res.exit_code == 2, res.output
        assert named in _said(res.output) and "Traceback" not in res.output
    assert not (tmp_path / "results").exists()
    if name == "launcher":  # its flags after --, named as typed (trial 25, T25-13: as a --server-arg never typed)
        for runtime in ("bundled", "auto"):
            common[-1] = runtime
            res = CliRunner().invoke(cli, [*common, "--print-cmd", "--", "--http-address", "0.0.0.0"])
            assert res.exit_code == 2 and "use --address 0.0.0.0 instead of --http-address" in _said(res.output)
            assert "Error: -- --http-address 0.0.0.0 is refused" in _said(res.output), res.output
            assert PASS_FLAG not in res.output and "(flags after -- are for flags that only tune" in _said(res.output)
        helped = "".join(CliRunner().invoke(cli, ["-h"]).output.split())  # says which are refused, not "verbatim"
        assert "verbatim" not in helped and "refusednamingthelauncher'sflagtouse:--model-repository," in helped
        assert "--backend-directory(bundled)" in helped and "--log-file" in helped


def test_a_sweep_names_the_repository_flag_when_r_was_perf_analyzers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``perf/run_sweep.sh -r 5`` (perf_analyzer's max trials) read as a repository named "5": one line says so."""
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(perf_main.cli, ["sweep", "-r", "5", "--results-dir", str(tmp_path / "results")])
    assert res.exit_code == 2, res.output  # a folder named that is not there: a usage error (T17-15)
    assert (
        "model repository 5 does not exist: the sweep's -r is --repository, not perf_analyzer's -r (--max-trials)\n"
        "  -> use --max-trials (--design sequential) instead of -r"
    ) in res.output
    res = CliRunner().invoke(perf_main.cli, ["sweep", "-r", "repo5", "--results-dir", str(tmp_path / "results")])
    assert res.exit_code == 2 and "does not exist" in res.output and "perf_analyzer" not in res.output  # a folder's name


@pytest.mark.parametrize("args", [["--model-control-mode=none"], ["--load-model=*"], ["--log-file=/tmp/x.log"]])
def test_a_flag_only_the_launcher_has_is_said_as_the_launchers_with_drop_it_elsewhere(args: list[str]) -> None:
    """Recheck of trial 16, R16-8: the sweep was told "use --model-control none instead", a flag it does not have."""
    refusal = server_arg_refusal(args)
    assert refusal is not None and "(the launcher's flag (scripts/launch_tritonserver.sh, clients serve); a sweep" in (
        refusal.hint or ""
    )
    assert "coldstart: drop it)" in (refusal.hint or "")
