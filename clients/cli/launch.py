"""``python -m clients.cli.launch`` (``scripts/launch_tritonserver.sh`` runs its :func:`script`; also ``clients serve``).

Starts tritonserver, prints its endpoints, stays in the foreground until Ctrl-C or SIGTERM
(or until the server dies), then stops it cleanly. ``--print-cmd`` prints the exact command
line instead of running it.
"""

from __future__ import annotations

import contextlib
import shlex
import signal
import sys
from pathlib import Path
from typing import Any

import click

from builders.repository.view import DEFAULT_REPOSITORY
from clients.cli.options import NO_REMOTE, NO_REMOTE_HINT, REMOTE_KEYS, server_options
from clients.runtimes.choose import resolve_runtime
from clients.runtimes.remote import RemoteRuntime
from clients.runtimes.server_flags import refused_names, server_arg_refusal
from clients.server import ServerOptions, TritonServer
from core.cli import CONTEXT_SETTINGS, ToolkitCommand, run_cli, verbosity_option
from core.errors import FlagError, ServerError
from core.flag_refusals import Unread, refuse_unread
from core.options import given_fields
from core.processes import held_stops


class _Stop(Exception):
    """Raised in the main thread by the SIGTERM/SIGHUP handler."""


def serve(server_opts: ServerOptions, print_cmd: bool = False, extra: tuple[str, ...] = ()) -> None:
    """Run a server in the foreground (the body of the ``serve`` command).

    Raises:
        ServerError: it could not start, or it died while serving (with its log tail).
    """
    import dataclasses

    if server_opts.runtime == RemoteRuntime.name:  # it reaches a server at --url, which serve has not: it starts one
        raise FlagError(NO_REMOTE, flag="--runtime", hint=NO_REMOTE_HINT)
    if print_cmd and (ctx := click.get_current_context(silent=True)) is not None:  # what only a start reads (s19)
        why = "--print-cmd prints the command and starts nothing: nothing waits for it or writes its log (its output)"
        refuse_unread(
            given_fields(ServerOptions, ctx),
            [
                Unread(
                    "log_file",
                    "--log-file",
                    True,
                    why,
                    "drop --log-file and add `> FILE 2>&1` to the printed command, or drop --print-cmd to start it",
                ),
                Unread(
                    "start_timeout_s",
                    "--start-timeout",
                    True,
                    why,
                    "drop --start-timeout, or drop --print-cmd to start it and wait",
                ),
            ],
        )
    if extra:  # refused as typed, after `--` (trial 25, T25-13: named as a --server-arg the user never typed)
        runtime = server_opts.runtime if server_opts.runtime != "auto" else resolve_runtime(server_opts)[0].name
        if (refused := server_arg_refusal(extra, runtime, via="--")) is not None:
            raise refused
        server_opts = dataclasses.replace(server_opts, extra_args=(*server_opts.extra_args, *extra))
    srv = TritonServer(server_opts)
    if print_cmd:
        click.echo(srv.command_line)
        return
    click.echo(f"runtime: {srv.runtime} ({srv.runtime_reason})", err=True)
    click.echo(f"command: {srv.command_line}", err=True)

    def on_signal(signum: int, _frame: Any) -> None:
        raise _Stop(signal.Signals(signum).name)

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        srv.start()
        click.echo(ready_text(srv, ready_models(srv)))
        click.echo("Ctrl-C or SIGTERM stops it.", err=True)
        sys.stdout.flush()
        srv.wait()  # a SIGTERM/SIGHUP (_Stop) or Ctrl-C ends the wait
        raise ServerError(
            f"tritonserver exited on its own; last lines of its log:\n{srv.log_tail()}",
            hint="fix what the log's last lines name (a model that fails to load: `builders validate` the repository), "
            "then launch it again",
            log_path=str(srv.log_path),
        )
    except (KeyboardInterrupt, _Stop) as e:
        # "(Ctrl-C)" as every command names it (core.console.stop_name; trial 30, F16: "(KeyboardInterrupt)")
        click.echo(f"\nstopping tritonserver ({'Ctrl-C' if isinstance(e, KeyboardInterrupt) else e})", err=True)
    finally:
        with held_stops(ending=True):  # it is stopping already: a second stop kills it at once, said by the line above
            srv.stop()
        for s, h in old.items():
            signal.signal(s, h)
    click.echo("tritonserver stopped", err=True)


def ready_models(srv: TritonServer) -> list[str]:
    """Names of the models the server reports READY (its repository index), sorted."""
    import contextlib

    import tritonclient.http as th

    with contextlib.suppress(Exception), contextlib.closing(th.InferenceServerClient(srv.http_url)) as c:
        return sorted(m["name"] for m in c.get_model_repository_index() if m.get("state") == "READY")
    return []


def clients_command() -> str:
    """How to run the ``clients`` command from here: this environment's script (relative to
    the current directory when below it), else ``clients`` on PATH."""
    script = Path(sys.executable).parent / "clients"
    if not script.is_file():
        return "clients"
    with contextlib.suppress(ValueError):
        return str(script.relative_to(Path.cwd()))
    return str(script)


def ready_text(srv: TritonServer, models: list[str]) -> str:
    """What the launcher prints once the server is ready: its endpoints, the models loaded, and
    a ``clients infer`` line that works as printed (or how to load a model first)."""
    repo = Path(srv.opts.repository)
    lines = [
        f"tritonserver ready (pid {srv.pid}, runtime {srv.runtime})",
        f"  http:    {srv.http_url}",
        f"  grpc:    {srv.grpc_url}",
        f"  metrics: http://{srv.metrics_url}",
        f"  log:     {srv.log_path}",
        f"  models:  {', '.join(models) if models else 'none loaded'}",
    ]
    infer = [clients_command(), "infer", models[0] if models else "MODEL", "--url", srv.http_url]
    if repo != DEFAULT_REPOSITORY:
        infer += ["-r", str(repo)]
    if models:
        lines += ["send a request:", "  " + shlex.join(infer)]
    else:
        lines += [
            f"no model is loaded ({srv.opts.model_control} model control): start with --load-model NAME or a pattern "
            "such as --load-model 'mlp_*', or load one now with",
            f"  curl -X POST http://{srv.http_url}/v2/repository/models/MODEL/load",
            "then send a request:",
            "  " + shlex.join(infer),
        ]
    return "\n".join(lines)


#: The launcher's help: what it does, and which tritonserver flags after `--` are refused (trial 25, T25-13: it said
#: they went to tritonserver verbatim, then refused one).
SERVE_HELP = (
    "Start tritonserver on a model repository, print its endpoints, the models loaded and a ready-to-copy `clients "
    "infer` line, stay in the foreground until Ctrl-C/SIGTERM, then stop it cleanly.\n\n"
    "With the default explicit model control nothing is loaded unless --load-model names it (a name or a pattern such "
    "as 'mlp_*'). Flags after `--` go to tritonserver as given (as --server-arg's do), except those the toolkit sets "
    "itself or that change what it serves, measures or says, which are refused naming the launcher's flag to use: "
    f"{refused_names()}."
)


def serve_command(name: str = "serve") -> click.Command:
    """The ``serve`` click command (shared by ``clients serve`` and ``python -m clients.cli.launch``)."""

    @click.command(name, cls=ToolkitCommand, context_settings=CONTEXT_SETTINGS, help=SERVE_HELP)
    @server_options(omit=REMOTE_KEYS)
    @click.option("--print-cmd", is_flag=True, help="Print the exact command line (environment included) and exit.")
    @click.argument("extra", nargs=-1, type=click.UNPROCESSED, metavar="[-- TRITONSERVER_FLAGS...]")
    @verbosity_option
    def cmd(server_opts: ServerOptions, print_cmd: bool, extra: tuple[str, ...]) -> None:
        serve(server_opts, print_cmd, extra)

    return cmd


#: The wrapper script users type; its usage lines and errors name it (as ``perf/run_sweep.sh`` names itself).
SCRIPT = "scripts/launch_tritonserver.sh"


def main() -> None:
    """Entry point of ``python -m clients.cli.launch``: usage lines name the script users type (:data:`SCRIPT`)."""
    run_cli(serve_command("launch_tritonserver"), prog_name=SCRIPT)


def script() -> None:
    """Entry point of ``scripts/launch_tritonserver.sh``: usage lines and errors name the script, not this module."""
    run_cli(serve_command("launch_tritonserver"), prog_name=SCRIPT)


if __name__ == "__main__":
    main()
