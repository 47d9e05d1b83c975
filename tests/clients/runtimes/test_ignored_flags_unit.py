"""A flag only one runtime reads is refused where another serves (trial 21: ``clients serve --tag 24.08``
and ``--tritonserver /missing`` started the bundled server without a word; ``--no-deploy`` without
``--url`` deployed): :func:`clients.runtimes.choose.ignored_flags`, through ``resolve_runtime``, the
commands (exit 2) and a sweep's preflight."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from clients.runtimes.choose import (
    LAUNCH_FIELDS,
    RUNTIME_FIELDS,
    given_server_fields,
    ignored_flags,
    refuse_unread_launch,
    resolve_runtime,
)
from clients.runtimes.options import ServerOptions
from core.errors import FlagError, ServerError
from core.flag_words import flag_name
from core.options import fields

#: One given value of each field only one runtime reads.
GIVEN = {
    "tag": "24.08",
    "image": "my/triton:1",
    "gpus": "device=1",
    "shm_size": "2g",
    "metrics_urls": ("localhost:9",),
    "remote_repository": "/models",
    "max_upload_bytes": 2**20,
    "deploy": False,
    "replace_models": True,
}


@pytest.fixture
def no_local(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No tritonserver, Docker or GPU on PATH: ``auto`` chooses the bundled server."""
    monkeypatch.delenv("TRITONSERVER", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    return tmp_path


def test_every_field_of_one_runtime_is_refused_where_another_serves(no_local: Path) -> None:
    assert set(GIVEN) | {"binary"} == set(RUNTIME_FIELDS), "a new runtime field: give it a value here"
    flags = {f.name: flag_name(ServerOptions, f.name) for f in fields(ServerOptions)}
    for name, value in GIVEN.items():
        reader = RUNTIME_FIELDS[name]
        for runtime in ("bundled", "local", "container", "remote"):
            opts = ServerOptions(no_local, **{name: value})
            refusal = ignored_flags(opts, runtime, "asked for")
            if runtime == reader:
                assert refusal is None, (name, runtime)
                continue
            assert refusal is not None and refusal.flag == flags[name], (name, runtime)
            assert f"{flags[name]} (read by the {reader} runtime) would be ignored" in str(refusal)
            assert f"the {runtime} runtime serves (--runtime {runtime} was asked for)" in str(refusal)
            assert f"drop {flags[name]}" in (refusal.hint or "")


def test_defaults_and_a_tag_alone_are_not_given(no_local: Path) -> None:
    assert ignored_flags(ServerOptions(no_local), "bundled", "asked for") is None
    # --tag sets the image: only --tag is named, the image it made is not a second flag
    refusal = ignored_flags(ServerOptions(no_local, tag="24.08"), "bundled", "asked for")
    assert refusal is not None and "--image" not in str(refusal) and refusal.flag == "--tag"
    assert ignored_flags(ServerOptions(no_local, tag="24.08"), "container", "asked for") is None


def test_auto_names_why_it_chose_and_every_unread_flag(no_local: Path) -> None:
    with pytest.raises(ServerError) as e:
        resolve_runtime(ServerOptions(no_local, tag="24.08", shm_size="4g", deploy=False))
    msg = str(e.value)
    assert "--tag (read by the container runtime), --shm-size (read by the container runtime), --no-deploy (read by" in msg
    assert "the bundled runtime serves (--runtime auto chose it: no local tritonserver" in msg
    assert e.value.hint == (  # no one runtime reads all three: one at a time (a hint's command is taken)
        "pass --runtime container with --tag and --shm-size alone; or pass --url HOST:PORT with --no-deploy alone; "
        "or drop --tag and --shm-size and --no-deploy"
    )


def test_a_named_binary_is_used_or_refused_never_passed_over(
    no_local: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for path, problem in (
        (tmp_path / "nope", "does not exist"),
        (tmp_path, "is a folder, not a file"),
        (Path(__file__), "is not executable"),
    ):
        with pytest.raises(ServerError, match=f"the tritonserver binary --tritonserver names: .* {problem}") as e:
            resolve_runtime(ServerOptions(no_local, binary=path))
        assert e.value.flag == "--tritonserver"
        monkeypatch.setenv("TRITONSERVER", str(path))
        with pytest.raises(ServerError, match=f"the tritonserver binary \\$TRITONSERVER names: .* {problem}") as e:
            resolve_runtime(ServerOptions(no_local))
        assert e.value.flag is None and "unset TRITONSERVER" in (e.value.hint or "")
        monkeypatch.delenv("TRITONSERVER")
    # a binary with the bundled runtime asked for: refused as unread
    fake = tmp_path / "tritonserver"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    with pytest.raises(ServerError, match=r"--tritonserver \(read by the local runtime\) would be ignored"):
        resolve_runtime(ServerOptions(no_local, runtime="bundled", binary=fake))
    runtime, why = resolve_runtime(ServerOptions(no_local, binary=fake))
    assert runtime.name == "local" and why == f"--tritonserver names {fake}"


@pytest.mark.parametrize(
    "args",
    [
        ["clients", "serve", "--tag", "24.08", "--print-cmd"],
        ["clients", "serve", "--tritonserver", "/nonexistent/tritonserver", "--print-cmd"],
        ["clients", "serve", "--runtime", "local", "--gpus", "0", "--print-cmd"],
    ],
)
def test_the_commands_refuse_them_as_usage_errors(args: list[str], no_local: Path) -> None:
    """Exit 2 (a mistake in what was typed, core.cli.EXIT_USAGE), nothing started."""
    (no_local / "model_repository").mkdir()
    module = {"clients": "clients.cli.main"}[args[0]]
    out = subprocess.run(
        [sys.executable, "-m", module, *args[1:]], cwd=no_local, capture_output=True, text=True, timeout=120, check=False
    )
    assert out.returncode == 2, out.stderr
    assert "tritonserver" not in out.stdout
    assert "would be ignored" in out.stderr or "does not exist" in out.stderr


def test_a_url_server_refuses_the_flags_of_a_runtime_that_starts_one(no_local: Path, tmp_path: Path) -> None:
    """--url with --runtime auto (the default) is the remote runtime: --tag, --tritonserver... would be ignored there
    too (the break-it try after trial 21: `clients check --url H --tag 24.08` checked the remote server without a word)."""
    fake = tmp_path / "tritonserver"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    for given, flag in (({"tag": "24.08"}, "--tag"), ({"shm_size": "2g"}, "--shm-size"), ({"binary": fake}, "--tritonserver")):
        with pytest.raises(
            ServerError, match=f"{flag} \\(read by the .* runtime\\) would be ignored: the remote runtime serves"
        ) as e:
            resolve_runtime(ServerOptions(no_local, urls=("localhost:1",), **given))
        assert e.value.flag == flag
    runtime, why = resolve_runtime(ServerOptions(no_local, urls=("localhost:1",), deploy=False))
    assert (runtime.name, why) == ("remote", "--url given")


def test_the_flags_of_a_server_to_start_are_refused_beside_url(tmp_path: Path) -> None:
    """s19: `clients check --url H --http-port 9000 --log-file x.log` (and a sweep's, colocate's, coldstart's) checked the
    running server and ignored the flags of a server the toolkit would start: each is refused, named, typed or not by
    click's parameter source (a sweep's own log in its run folder is no flag typed)."""

    def remote(*typed: str) -> ServerOptions:
        return ServerOptions(tmp_path, urls=("localhost:1",), given=frozenset(typed))

    for name in LAUNCH_FIELDS:
        flag = flag_name(ServerOptions, name)
        with pytest.raises(FlagError) as e:
            refuse_unread_launch(remote(name, "repository"))
        assert e.value.flag == flag and str(e.value).startswith(f"{flag} would be ignored: --url localhost:1 names a running")
        assert e.value.hint == f"drop {flag}, or drop --url to have the toolkit start a server with it"
        refuse_unread_launch(ServerOptions(tmp_path, given=frozenset({name})))  # a server it starts reads them all
    refuse_unread_launch(remote("metrics_interval_ms"), reads=("metrics_interval_ms",))  # a sweep scrapes at it
    refuse_unread_launch(remote("start_timeout_s", "urls", "metrics_urls"))  # read by the remote runtime too
    refuse_unread_launch(ServerOptions(tmp_path, urls=("localhost:1",), log_file=tmp_path / "x.log", given=frozenset()))


def test_a_flag_typed_at_its_default_value_is_given_by_one_rule(no_local: Path) -> None:
    """Break-it F1: `clients check --runtime bundled --gpus all` ran the bundled server without a word (a flag counted
    as given when its value was not its default) while `--url H --http-port 0` was refused (typed = given): one rule
    now, given_server_fields: typed, a default's value too; a Python caller's (no typed record): a value set."""
    typed = ServerOptions(no_local, runtime="bundled", given=frozenset({"gpus", "image"}))
    refusal = ignored_flags(typed, "bundled", "asked for")
    assert refusal is not None and refusal.flag == "--image"
    assert "--image (read by the container runtime), --gpus (read by the container runtime) would be ignored" in str(refusal)
    assert given_server_fields(typed) == {"gpus", "image"}
    assert given_server_fields(ServerOptions(no_local, gpus="all", tag="24.08")) == {"repository", "tag"}  # values set
    assert ignored_flags(ServerOptions(no_local, gpus="0", given=frozenset()), "bundled", "asked for") is None


def test_a_command_refuses_a_runtime_flag_typed_at_its_default(no_local: Path) -> None:
    """`clients serve/check`, `triton-perf coldstart` (their server_options) record the flags typed: exit 2."""
    from click.testing import CliRunner

    from clients.cli.main import cli

    args = ["serve", "--print-cmd", "-r", str(no_local), "--runtime", "bundled", "--gpus", "all"]
    res = CliRunner().invoke(cli, args, terminal_width=400)
    said = " ".join(res.output.split())
    assert res.exit_code == 2, said
    assert "--gpus (read by the container runtime) would be ignored: the bundled runtime serves" in said


@pytest.mark.parametrize(
    ("target", "args"),
    [
        ("perf.sweep.run:Sweep", ["sweep", "--perf-analyzer-arg=--verbose"]),  # measure's extra_args: not the server's
        ("perf.colocate.run:Colocate", ["colocate", "--model", "m=m_*", "--latency-budget-ms", "10"]),
    ],
)
def test_a_sweep_and_a_colocation_run_carry_the_server_flags_typed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str, args: list[str]
) -> None:
    """Their server options are nested (``server_`` parameters): the flags typed reach the runtime's refusal."""
    import importlib

    from click.testing import CliRunner

    from perf.cli.main import cli

    seen: dict[str, ServerOptions] = {}

    def run(opts: object, *rest: object, **kw: object) -> None:
        seen["server"] = opts.server  # type: ignore[attr-defined]
        raise SystemExit(0)

    module, name = target.split(":")
    monkeypatch.setattr(importlib.import_module(module), name, run)
    typed = ["-r", str(tmp_path), "--runtime", "bundled", "--gpus", "all"]
    CliRunner().invoke(cli, [*args, *typed], terminal_width=400)
    assert seen["server"].given == {"repository", "runtime", "gpus"}
    refusal = ignored_flags(seen["server"], "bundled", "asked for")
    assert refusal is not None and refusal.flag == "--gpus"


@pytest.mark.parametrize(
    ("module", "args"),
    [
        ("clients", ["check"]),
        ("perf", ["sweep"]),
        ("perf", ["colocate", "--model", "m=m_*", "--latency-budget-ms", "10"]),
        ("perf", ["coldstart"]),
    ],
)
def test_every_command_with_url_refuses_them(tmp_path: Path, module: str, args: list[str]) -> None:
    from click.testing import CliRunner

    from clients.cli.main import cli as clients_cli
    from perf.cli.main import cli as perf_cli

    cli = clients_cli if module == "clients" else perf_cli
    typed = ["-r", str(tmp_path), "--url", "127.0.0.1:9", "--http-port", "9000", "--log-verbose", "1"]
    res = CliRunner().invoke(cli, [*args, *typed], terminal_width=400)
    said = " ".join(res.output.split())
    assert res.exit_code == 2, said
    assert "--http-port and --log-verbose would be ignored: --url 127.0.0.1:9 names a running server" in said
    assert "drop --http-port and --log-verbose, or drop --url" in said


def test_a_resumed_sweeps_server_is_its_saved_one_not_the_flags_typed(no_local: Path) -> None:
    """A resume keeps its saved server and says a flag given again is ignored (perf.sweep.resuming._warn_server): the
    flags typed are no longer its own, so the saved set-up is judged by its values, never refused for them."""
    from perf.sweep.options import SweepOptions
    from perf.sweep.resuming import resumed_options

    typed = ServerOptions(no_local, gpus="0", given=frozenset({"gpus"}))
    saved = {"repository": str(no_local), "server": {"runtime": "bundled", "gpus": "all"}}
    got = resumed_options(SweepOptions(typed, resume=True, run_id="r1"), saved)
    assert got.server.given is None and got.server.gpus == "all"
    assert ignored_flags(got.server, "bundled", "asked for") is None


def test_the_url_refusals_hint_leads_to_options_that_are_taken(no_local: Path) -> None:
    """Break-it F16's kind: a hint's command must be taken. `--url H --metrics-url M --http-port 9000`: "drop --url"
    alone left --metrics-url, which a started server does not read (refused next); the hint drops both."""
    typed = frozenset({"urls", "metrics_urls", "http_port"})
    with pytest.raises(FlagError) as e:
        refuse_unread_launch(ServerOptions(no_local, urls=("h:1",), metrics_urls=("h:3",), http_port=9000, given=typed))
    assert e.value.hint == "drop --http-port, or drop --url and --metrics-url to have the toolkit start a server with it"
    followed = ServerOptions(no_local, http_port=9000, given=frozenset({"http_port"}))  # the second way, as said
    refuse_unread_launch(followed)
    assert resolve_runtime(followed)[0].name == "bundled"


@pytest.mark.parametrize(
    ("typed", "hint", "followed"),
    [
        (
            {"urls": ("h:1",), "metrics_urls": ("h:3",), "tag": "24.08"},
            "drop --url and --metrics-url and pass --runtime container to use it, or drop --tag",
            {"runtime": "container", "tag": "24.08"},
        ),
        (
            {"runtime": "bundled", "metrics_urls": ("h:3",)},
            "drop --runtime bundled and pass --url HOST:PORT to use it, or drop --metrics-url",
            {"urls": ("h:1",), "metrics_urls": ("h:3",)},
        ),
        ({"gpus": "0"}, "pass --runtime container to use it, or drop --gpus", {"runtime": "container", "gpus": "0"}),
    ],
)
def test_a_runtime_refusals_hint_leads_to_options_that_are_taken(
    no_local: Path, typed: dict[str, object], hint: str, followed: dict[str, object]
) -> None:
    """Break-it F16's kind: `--url H --tag 24.08` was told "pass --runtime container", which --url refuses beside it;
    `--runtime bundled --metrics-url M` "pass --url HOST:PORT", which --runtime bundled refuses."""
    with pytest.raises(ServerError) as e:
        resolve_runtime(ServerOptions(no_local, **typed, given=frozenset(typed)))  # type: ignore[arg-type]
    assert e.value.hint == hint
    opts = ServerOptions(no_local, **followed, given=frozenset(followed))  # type: ignore[arg-type]
    refuse_unread_launch(opts)
    assert ignored_flags(opts, "remote" if opts.urls else opts.runtime, "asked for") is None


def test_url_beside_a_started_runtime_hints_dropping_the_url_servers_flags_too(no_local: Path) -> None:
    """`--url H --metrics-url M --runtime bundled`: "drop --url" left --metrics-url, refused next by the bundled server."""
    typed = {"urls": ("h:1",), "metrics_urls": ("h:3",), "runtime": "bundled"}
    with pytest.raises(ServerError) as e:
        resolve_runtime(ServerOptions(no_local, **typed, given=frozenset(typed)))  # type: ignore[arg-type]
    assert e.value.hint == "pass --runtime remote (or leave --runtime out) with --url, or drop --url and --metrics-url"
    followed = ServerOptions(no_local, runtime="bundled", given=frozenset({"runtime"}))
    assert resolve_runtime(followed)[0].name == "bundled"
