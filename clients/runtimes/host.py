"""What launching a server process on this host needs, whatever the runtime: free ports (all
held until chosen) and the server's log file (one folder, the newest kept). The process itself
is tied to its launcher by :mod:`core.processes` (``PR_SET_PDEATHSIG``, its process group)."""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import socket
import time
from pathlib import Path

from clients.runtimes.options import KEEP_SERVER_LOGS, server_log_dir

#: Error lines tritonserver logs on every start without a GPU (shared/RUNTIME.md): harmless.
_HARMLESS = ("CudaDriverHelper has not been initialized", "Failed to initialize NVML", "DCGM unable to start")


def free_ports(n: int, address: str = "127.0.0.1") -> list[int]:
    """``n`` distinct TCP ports free now on ``address`` (all sockets held until every port is
    chosen, so the OS cannot hand out the same port twice)."""
    with contextlib.ExitStack() as stack:
        socks = [stack.enter_context(socket.socket()) for _ in range(n)]
        for s in socks:
            s.bind((address, 0))
        return [s.getsockname()[1] for s in socks]


def free_port(address: str = "127.0.0.1") -> int:
    """A TCP port that is free now on ``address``."""
    return free_ports(1, address)[0]


def choose_ports(http: int, grpc: int, metrics: int, address: str = "127.0.0.1") -> tuple[int, int, int]:
    """The ports a server is started on: the asked ones (refused when in use), free ones for
    those given as 0. With only ``http`` given, gRPC and metrics follow Triton's layout at
    ``http + 1`` and ``http + 2`` (what ``--url HOST:PORT`` assumes of a server:
    :mod:`clients.runtimes.remote`).

    Raises:
        ServerError: an asked port is in use.
    """
    from core.errors import ServerError

    layout = bool(http) and not grpc and not metrics
    asked = {"http": http, "grpc": http + 1 if layout else grpc, "metrics": http + 2 if layout else metrics}
    for what, port in asked.items():
        if port and port_in_use(port, address):
            why = f" (HTTP port {http} + {port - http}: Triton's layout)" if layout and what != "http" else ""
            raise ServerError(
                f"{what} port {port}{why} on {address} is already in use",
                hint="stop whatever listens there, pick another port, or pass 0 for a free one"
                + (" (--grpc-port/--metrics-port set them apart from --http-port)" if why else ""),
            )
    free = iter(free_ports(sum(1 for v in asked.values() if not v), address))
    return asked["http"] or next(free), asked["grpc"] or next(free), asked["metrics"] or next(free)


def port_in_use(port: int, address: str = "127.0.0.1") -> bool:
    """Whether ``port`` on ``address`` cannot be bound now."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((address, port))
        except OSError:
            return True
    return False


_log_seq = itertools.count(1)


def default_log_path(folder: Path | None = None) -> Path:
    """Where a server launched without ``--log-file`` logs: ``tritonserver-<time>-<pid>-<n>.log``
    in ``folder`` (default :func:`clients.runtimes.options.server_log_dir`). Nothing is
    created here (``--print-cmd`` writes nothing); :func:`prune_server_logs` runs at start."""
    folder = Path(folder) if folder is not None else server_log_dir()
    return folder / f"tritonserver-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{next(_log_seq)}.log"


def prune_server_logs(folder: Path, keep: int = KEEP_SERVER_LOGS) -> None:
    """Remove the oldest ``tritonserver-*.log`` in ``folder`` so that a new one makes at most ``keep``."""
    try:
        old = sorted(folder.glob("tritonserver-*.log"), key=lambda p: p.stat().st_mtime)
    except OSError:
        return
    for p in old[: max(0, len(old) - keep + 1)]:
        with contextlib.suppress(OSError):
            p.unlink()


def log_tail(path: Path, lines: int = 30) -> str:
    """The last ``lines`` lines of the server log at ``path`` (``"(no log)"`` when unreadable).

    Error lines logged earlier (glog ``E<mmdd> ...`` lines, e.g. why a model failed to
    load, which Triton prints above its long option table) are put first, at most 10.
    """
    try:
        all_lines = Path(path).read_text(errors="replace").splitlines()
    except OSError:
        return "(no log)"
    tail = all_lines[-lines:]
    errors = [ln for ln in all_lines[:-lines] if re.match(r"^E\d{4} ", ln) and not any(h in ln for h in _HARMLESS)][-10:]
    return "\n".join([*errors, *(["..."] if errors else []), *tail])


def log_since(path: Path, offset: int, lines: int = 20) -> str:
    """The last ``lines`` lines the server logged at ``path`` after byte ``offset`` (harmless
    start-up noise left out); ``"(nothing logged)"`` when none."""
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            text = f.read().decode(errors="replace")
    except OSError:
        return "(no log)"
    kept = [ln for ln in text.splitlines() if ln.strip() and not any(h in ln for h in _HARMLESS)]
    return "\n".join(kept[-lines:]) or "(nothing logged)"
