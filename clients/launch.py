"""``python -m clients.launch`` (what ``scripts/launch_tritonserver.sh`` runs; also ``clients serve``).

Starts tritonserver, prints its endpoints, stays in the foreground until Ctrl-C or SIGTERM
(or until the server dies), then stops it cleanly. ``--print-cmd`` prints the exact command
line instead of running it.
"""

from __future__ import annotations

import signal
import sys
from typing import Any

import click

from core.cli import run_cli, verbosity_option
from core.errors import ServerError
from clients.cli_options import server_options
from clients.server import ServerOptions, TritonServer


class _Stop(Exception):
    """Raised in the main thread by the SIGTERM/SIGHUP handler."""


def serve(server_opts: ServerOptions, print_cmd: bool = False, extra: tuple[str, ...] = ()) -> None:
    """Run a server in the foreground (the body of the ``serve`` command).

    Raises:
        ServerError: it could not start, or it died while serving (with its log tail).
    """
    import dataclasses

    if extra:
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
        click.echo(f"tritonserver ready (pid {srv.pid})")
        click.echo(f"  http:    {srv.http_url}")
        click.echo(f"  grpc:    {srv.grpc_url}")
        click.echo(f"  metrics: http://{srv.metrics_url}")
        click.echo(f"  log:     {srv.log_path}")
        click.echo("Ctrl-C or SIGTERM stops it.", err=True)
        sys.stdout.flush()
        srv.wait()  # a SIGTERM/SIGHUP (_Stop) or Ctrl-C ends the wait
        raise ServerError(f"tritonserver exited on its own; last lines of its log:\n{srv.log_tail()}", log_path=str(srv.log_path))
    except (KeyboardInterrupt, _Stop) as e:
        click.echo(f"\nstopping tritonserver ({type(e).__name__ if isinstance(e, KeyboardInterrupt) else e})", err=True)
    finally:
        srv.stop()
        for s, h in old.items():
            signal.signal(s, h)
    click.echo("tritonserver stopped", err=True)


def serve_command(name: str = "serve") -> click.Command:
    """The ``serve`` click command (shared by ``clients serve`` and ``python -m clients.launch``)."""

    @click.command(name, context_settings={"help_option_names": ["-h", "--help"]})
    @server_options
    @click.option("--print-cmd", is_flag=True, help="Print the exact command line (environment included) and exit.")
    @click.argument("extra", nargs=-1, type=click.UNPROCESSED, metavar="[-- TRITONSERVER_FLAGS...]")
    @verbosity_option
    def cmd(server_opts: ServerOptions, print_cmd: bool, extra: tuple[str, ...]) -> None:
        """Start tritonserver on a model repository, print its endpoints, stay in the
        foreground until Ctrl-C/SIGTERM, then stop it cleanly.

        Flags after `--` go to tritonserver verbatim.
        """
        serve(server_opts, print_cmd, extra)

    return cmd


def main() -> None:
    """Entry point of ``python -m clients.launch``."""
    run_cli(serve_command("launch_tritonserver"))


if __name__ == "__main__":
    main()
