"""A toolkit command started as its own process, to be sent Ctrl-C (SIGINT) by a test."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def start(cmd: Sequence[str], *, stderr: int = subprocess.PIPE, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """Start ``cmd`` at the checkout's root (``PYTHONPATH`` the checkout, ``COLUMNS`` 250; ``env``: more variables, a
    ``PYTHONPATH`` of it before the checkout), its text output piped (``stderr``: ``subprocess.STDOUT`` merges it into
    stdout). A suite started in the background hands SIGINT down ignored, and Python then installs no
    KeyboardInterrupt handler: the command gets the default one back."""
    more = dict(env or {})
    path = os.pathsep.join([*filter(None, [more.pop("PYTHONPATH", "")]), str(ROOT)])
    return subprocess.Popen(
        list(cmd),
        cwd=ROOT,
        env={**os.environ, **more, "PYTHONPATH": path, "COLUMNS": "250"},
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def interrupt_at(
    cmd: Sequence[str], marker: str, *, after_s: float = 0.0, timeout: float = 120, env: dict[str, str] | None = None
) -> tuple[int, str]:
    """Start ``cmd`` (:func:`start`, stderr merged into stdout, ``env`` added), Ctrl-C it ``after_s`` seconds after
    the first line holding ``marker``; returns its exit code and its whole output."""
    proc = start(cmd, stderr=subprocess.STDOUT, env=env)
    lines: list[str] = []
    try:
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.append(line)
            if marker in line:
                break
        time.sleep(after_s)
        proc.send_signal(signal.SIGINT)
        out = "".join(lines) + proc.communicate(timeout=timeout)[0]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, out


def check_interrupted(repo: Path, names: list[str], log: Path, again_after_s: float | None = None) -> tuple[int, str, str, float]:
    """``clients check`` of ``names`` on the bundled server, Ctrl-C during the second one's load (and again
    ``again_after_s`` after its stopping line); returns rc, stdout, stderr and how long the stopping line took
    (s; infinite when it never came)."""
    cmd = [sys.executable, "-m", "clients.cli.main", "check", "-r", str(repo), "--runtime", "bundled"]
    proc = start([*cmd, "--log-file", str(log), "--variants", ",".join(names)])
    lines: list[str] = []
    try:
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.append(line)
            if f"{names[1]}: loading" in line:  # the first variant's rows are in: Ctrl-C during the next load
                break
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        said_after = float("inf")
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.append(line)
            if said_after == float("inf") and "stopping (Ctrl-C)" in line:
                said_after = time.monotonic() - sent
                if again_after_s is not None:  # while the server stops
                    time.sleep(again_after_s)
                    proc.send_signal(signal.SIGINT)
        rc = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return rc, "".join(lines), proc.stderr.read(), said_after  # type: ignore[union-attr]


#: A ``sitecustomize`` that holds a ``python -m builders.model.artifact_io`` child (``builders validate
#: --load-artifacts``' loader) whose artifact lies in the model folder ``$HOLD_MODEL_FOLDER`` until it is killed (at
#: most 120 s): a command is then certainly checking that folder when a test interrupts it, however loaded the host.
HOLD_LOADER = """
import os, sys, time
folder = os.environ.get("HOLD_MODEL_FOLDER")
if folder and "builders.model.artifact_io" in sys.orig_argv and any(f"/{folder}/" in a for a in sys.orig_argv):
    end = time.monotonic() + 120
    while time.monotonic() < end:
        time.sleep(0.1)
"""


def holding_loader(tmp: Path, folder: str) -> dict[str, str]:
    """The ``env`` (:func:`start`) under which the artifact loader of model folder ``folder`` waits to be killed
    (:data:`HOLD_LOADER`, written to ``tmp/sitecustomize.py``)."""
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "sitecustomize.py").write_text(HOLD_LOADER)
    return {"PYTHONPATH": str(tmp), "HOLD_MODEL_FOLDER": folder}
