"""What launching a server process on this host needs, whatever the runtime: free ports (all
held until chosen) and the server's log file (one folder, the newest kept), and where the log of a
server known by its address is (:func:`log_where`). The process itself is tied to its launcher by
:mod:`core.processes` (``PR_SET_PDEATHSIG``, its process group)."""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import socket
import time
import weakref
from collections.abc import Iterable, Sequence
from pathlib import Path

from clients.runtimes.options import KEEP_SERVER_LOGS, server_log_dir

#: Error lines tritonserver logs on every start without a GPU (shared/RUNTIME.md): harmless.
_HARMLESS = ("CudaDriverHelper has not been initialized", "Failed to initialize NVML", "DCGM unable to start")
#: The servers this process started and has not stopped, by endpoint (``host:port``, HTTP and gRPC) -> their log file:
#: where :func:`log_where` finds the log of a server that a message knows by its address only.
_STARTED: dict[str, Path] = {}


def started_here(urls: Iterable[str], log_path: Path | None) -> None:
    """Record the servers at ``urls`` as started by this process, their log at ``log_path`` (``None``: stopped)."""
    for url in urls:
        if log_path is None:
            _STARTED.pop(url, None)
        else:
            _STARTED[url] = log_path


def _not_started(urls: tuple[str, ...], scheme: str) -> str:
    """``"the server at http://h:8000 was not started by this command"`` (``"the servers at ... were"``)."""
    one = len(urls) == 1
    at = ", ".join(f"{scheme}://{u}" for u in urls)
    return f"{'the server at' if one else 'the servers at'} {at} {'was' if one else 'were'} not started by this command"


def not_ours(*urls: str, scheme: str = "http") -> str:
    """Where the log of the server(s) at ``urls`` (``host:port``) is, said where this command did not start them
    (``--url``, ``--http-url``, ``clients infer``): never in a run folder (re-check 18: a sweep whose --url server did
    not answer said the run folder "keeps the server log"), and, for one the toolkit's launcher started in another
    terminal, the log folder it writes to. The one sentence every such message says it with (:func:`not_ours_short`
    where a message names a log beside each failure)."""
    one = len(urls) == 1
    its = "its" if one else "each one's"
    return (
        f"{_not_started(urls, scheme)}, so no log of {'it' if one else 'them'} is kept here: {its} own log says why: "
        f"where scripts/launch_tritonserver.sh started it, the file it printed as `log:` (in {server_log_dir()} unless "
        "--log-file); else where it runs (`docker logs CONTAINER`, `kubectl logs POD`)"
    )


def not_ours_short(url: str, scheme: str = "http") -> str:
    """:func:`not_ours`'s short form, said where a log is named beside each failure (a sweep's failed variant:
    ``"(server log: none kept here: ...)"``): ``"none kept here: the server at http://h:8000 was not started by this
    command; its log is where it runs (its own machine or container)"``. A sweep on a ``--url`` server said "the log of
    the server at h:8000" in every failed variant's error, as if a log file (s17's left open)."""
    return f"none kept here: {_not_started((url,), scheme)}; its log is where it runs (its own machine or container)"


def log_where(url: str, scheme: str = "http") -> str:
    """Where the log of the server at ``url`` (``host:port``) says why, in words: its file where this process
    started it (:func:`started_here`: a `clients check` or a sweep with their own server), else :func:`not_ours` (a
    server given by address). Issue 26 (s16's left open): "check the server log" for a server the user runs."""
    path = _STARTED.get(url)
    return f"its log, {path}, says why" if path is not None else not_ours(url, scheme=scheme)


def log_size(path: Path) -> int:
    """The size of the log at ``path`` now, in bytes (0 where there is none yet): where a load's lines start."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


class HeldPorts:
    """TCP ports on an address held for a server that binds them later, so that the OS does not hand one to another
    process between the choice and the server's bind (a full suite: another test's server, started on free ports,
    took the gRPC port one test had picked). Each is bound with ``SO_REUSEADDR`` and never listens: the OS hands it
    to no port-0 bind and refuses a plain bind of it, while tritonserver, which binds its HTTP, gRPC and metrics
    listeners with ``SO_REUSEADDR``, takes it. It does not keep out a process that asks for that very port with
    ``SO_REUSEADDR`` (another launch given the same explicit port; :func:`port_in_use` sees a held port as free).
    Held until :meth:`release` (or until the object is collected).

    Attributes:
        ports: The ports, in the order asked (a free one for each 0).
    """

    def __init__(self, ports: Sequence[int], address: str = "127.0.0.1") -> None:
        """Hold ``ports`` (0: a free one) on ``address``.

        Raises:
            OSError: a port is in use (something listens on it, or holds it without ``SO_REUSEADDR``).
        """
        self._socks: list[socket.socket] = []
        weakref.finalize(self, _close_all, self._socks)
        try:
            for port in ports:
                s = socket.socket()
                self._socks.append(s)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind((address, port))
        except OSError:
            self.release()
            raise
        self.ports: list[int] = [s.getsockname()[1] for s in self._socks]

    def release(self) -> None:
        """Let the ports go (the server has bound them, stopped, or binds them through a proxy). Safe to call again."""
        _close_all(self._socks)


def _close_all(socks: list[socket.socket]) -> None:
    for s in socks:
        s.close()


def choose_ports(http: int, grpc: int, metrics: int, address: str = "127.0.0.1", hold: bool = True) -> HeldPorts:
    """The ports a server is started on, held for it (:class:`HeldPorts`; ``hold=False``: released at once, for a
    server whose ports a proxy binds, such as ``docker run -p``): the asked ones (refused when in use), free ones for
    those given as 0. With only ``http`` given, gRPC and metrics follow Triton's layout at
    ``http + 1`` and ``http + 2`` (what ``--url HOST:PORT`` assumes of a server:
    :mod:`clients.runtimes.remote`).

    Returns:
        The held ports; ``.ports`` is ``[http, grpc, metrics]``.

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
    try:
        held = HeldPorts(list(asked.values()), address)
    except OSError as e:  # taken since the check above
        raise ServerError(f"a port asked for on {address} was taken just now: {e}", hint="launch again") from e
    if not hold:
        held.release()
    return held


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
