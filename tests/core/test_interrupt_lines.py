"""A Ctrl-C while tritonclient.http waits for a server is said by the command's own lines only (trial 7, F10)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A command that waits for an answer the way the sweep waits for a load: tritonclient.http (gevent)
# on a server that takes the connection and never answers; a SIGINT arrives while it waits.
_CHILD = r"""
import os, signal, socket, threading
import click
import tritonclient.http as th
from core.cli import run_cli

# a suite started in a non-interactive shell's background (`cmd &`, nohup) hands SIGINT down ignored, and
# Python then installs no KeyboardInterrupt handler: the Ctrl-C this test sends would never arrive
signal.signal(signal.SIGINT, signal.default_int_handler)

silent = socket.socket()
silent.bind(("127.0.0.1", 0))
silent.listen()

@click.command()
def wait():
    client = th.InferenceServerClient(f"127.0.0.1:{silent.getsockname()[1]}", network_timeout=30)
    threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT)).start()
    client.is_server_live()

run_cli(wait)
"""


def test_an_interrupt_inside_gevents_loop_prints_only_the_commands_lines() -> None:
    res = subprocess.run(
        [sys.executable, "-c", _CHILD], capture_output=True, text=True, cwd=ROOT, timeout=60, env={"PYTHONPATH": str(ROOT)}
    )
    assert res.returncode == 130, res.stderr
    # gevent's hub printed "KeyboardInterrupt" and "2026-12-02T11:18:57Z" before the command's own line
    assert res.stderr.split() == ["interrupted", "(Ctrl-C)"], res.stderr  # click adds an empty line before it (T23-3: named)


# A Ctrl-C that lands while geventhttpclient builds a response leaves it without ``_sock``; its
# ``__del__`` then raises when it is collected (CI, 2026-12-04: "Exception ignored in ...
# HTTPSocketPoolResponse.__del__" and a traceback after `clients infer` said how it stopped).
_HALF_BUILT = r"""
import gc
import click
from geventhttpclient.response import HTTPSocketPoolResponse
from core.cli import run_cli

class Own:
    def __del__(self):
        raise AttributeError("an error of our own is still printed")

@click.command()
def stop():
    half = HTTPSocketPoolResponse.__new__(HTTPSocketPoolResponse)  # as an interrupted __init__ leaves it
    del half
    gc.collect()
    own = Own()
    del own
    click.echo("done")

run_cli(stop)
"""


def test_a_client_object_an_interrupt_left_half_built_is_collected_without_a_traceback() -> None:
    res = subprocess.run(
        [sys.executable, "-c", _HALF_BUILT], capture_output=True, text=True, cwd=ROOT, timeout=60, env={"PYTHONPATH": str(ROOT)}
    )
    assert res.returncode == 0 and res.stdout.strip() == "done", res.stderr
    assert "HTTPSocketPoolResponse" not in res.stderr and "_sock" not in res.stderr, res.stderr
    assert "an error of our own is still printed" in res.stderr, res.stderr  # only the known one is dropped
