"""The tritonserver of one sweep run: :class:`SweepServer`.

- Explicit model control, nothing loaded at start: the sweep loads the variants it measures
  (all the contenders of a group together in the rounds design, one at a time in the sequential one).
- One log file per start, in the run folder, never reused: ``server.log``, then
  ``server-2.log``, ``server-3.log``... (a resumed run goes on counting), so an error that
  names a log still points at the one holding its cause.
- Every start is recorded in ``results.json`` (:class:`perf.records.results.ServerStart`) with why it
  happened: the sweep or a resumed run started, the server died while measuring a level, a
  variant was not gone in time after its unload request.
- A variant is unloaded and checked gone (repository index, :func:`clients.runtimes.models.unload_and_wait`);
  one still loaded after the timeout gets the server stopped, and the next variant starts a
  fresh one, so that no variant is measured beside a leftover.
- Every measurement is stamped with what the server ran (:func:`stamp_loaded` after the load,
  :func:`stamp_after` after the last level: the served config, threads per instance, the
  artifact's identity, the other models loaded): a server that ran something else than the
  variant, or changed it between the two readings, fails the variant, naming the fields.
- A server the toolkit did not start is left with the models it was found with
  (:meth:`clients.server.TritonServer.stop`); what differed is recorded with the server.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from clients.runtimes.host import not_ours_short
from clients.runtimes.loading import LoadDeadline
from clients.runtimes.remote import RemoteRuntime
from clients.runtimes.served import Loaded, changed_since, name_differences
from clients.server import ServerOptions, TritonServer
from core.errors import ServerError
from perf.records import results
from perf.records.measured_files import measured_artifact, refuse_reloaded
from perf.records.results import RunResult, ServerStart, VariantResult
from perf.records.settings import ServerRecord

log = logging.getLogger(__name__)

#: The first server log of a run; later ones are ``server-<n>.log``.
FIRST_LOG = "server.log"


def now() -> str:
    """The local time as ISO 8601 with offset (what ``results.json`` records)."""
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def next_log(run_dir: Path) -> Path:
    """A server log path in ``run_dir`` that no earlier start used (:data:`FIRST_LOG`, then
    ``server-2.log``, ``server-3.log``...)."""
    used = [
        1 if p.name == FIRST_LOG else int(p.stem.rsplit("-", 1)[1])
        for p in run_dir.glob("server*.log")
        if p.name == FIRST_LOG or (p.stem.startswith("server-") and p.stem.rsplit("-", 1)[1].isdigit())
    ]
    n = max(used, default=0) + 1
    return run_dir / (FIRST_LOG if n == 1 else f"server-{n}.log")


def server_record(srv: TritonServer, version: str | None = None) -> ServerRecord:
    """What a run records of its server: the runtime and why, the command line (``""`` for a server the toolkit did
    not start), Triton's version, and torch's OpenMP wait policy it ran with (``Runtime.wait_policy``). The one
    record of every command that measures through a server (sweep, coldstart, colocate)."""
    return {
        "runtime": srv.runtime,
        "reason": srv.runtime_reason,
        "command": srv.command_line if srv.runtime_impl.launches else "",
        "version": version,
        "omp_wait_policy": srv.runtime_impl.wait_policy(),
    }


class SweepServer:
    """Starts, restarts and records the sweep's tritonserver (see the module docstring).

    Args:
        opts: The user's launch options (model control, models to load and log file are
            set by the sweep).
        run: The run whose ``server_starts`` and ``environment["server"]`` are filled in.
        run_dir: The run folder (logs, ``commands.txt``).
        first_reason: Why the first start happens (``"sweep started"``, ``"run resumed"``).
        save: Saves the run (called after each recorded start).
        models: The variants it will load: their TensorRT plans are checked against the
            server's release before it is started (:meth:`clients.server.TritonServer.refuse_plans`).
    """

    def __init__(
        self,
        opts: ServerOptions,
        run: RunResult,
        run_dir: Path,
        first_reason: str,
        save: Callable[[], None],
        models: Sequence[str] = (),
    ):
        if opts.model_control != "explicit" or opts.load_models or opts.log_file:
            log.warning(
                "the sweep loads its variants itself with explicit model control and keeps the server log in "
                "the run folder: ServerOptions model_control, load_models and log_file are not used"
            )
        self.opts = dataclasses.replace(opts, model_control="explicit", load_models=(), log_file=None)
        self.run, self.run_dir, self._save = run, run_dir, save
        self.models = tuple(models)
        self.current: TritonServer | None = None
        self._version: str | None = None
        #: Why the next start happens; ``None``: the server exited on its own.
        self._reason: str | None = first_reason
        #: The time no load on its servers waits past (the sweep's ``--time-budget``), beside ``--start-timeout``.
        self.load_deadline: LoadDeadline | None = None

    def log_name(self) -> str:
        """The current server's log file as errors name it (relative to the run folder); for a ``--url`` server, that
        none is kept here and where it is (:func:`clients.runtimes.host.not_ours_short`: never a file of this host)."""
        if self.opts.urls:
            return not_ours_short(self.opts.urls[0])
        if self.current is None:
            return "the server log"
        with contextlib.suppress(ValueError):
            return str(self.current.log_path.relative_to(self.run_dir))
        return str(self.current.log_path)

    def get(self) -> TritonServer:
        """The running server; started (again) when there is none or it has exited.

        Raises:
            ServerError: it cannot be started (the message holds its log's tail).
        """
        if self.current is not None and self.current.is_alive():
            return self.current
        if self.current is not None and self._reason is None:  # a --url server is not the toolkit's to restart
            again = "waiting for it to be ready again" if self.opts.urls else "restarting it"  # what _start does
            log.warning("tritonserver is gone (its log: %s); %s", self.log_name(), again)
        if self.current is not None and self.current.runtime_impl.launches:  # what it left (its stubs) goes with it
            self.current.stop()
        return self._start()

    def _start(self) -> TritonServer:
        if self.opts.urls:
            return self._reach()
        log_file = next_log(self.run_dir)
        srv = TritonServer(dataclasses.replace(self.opts, log_file=log_file))
        srv.load_deadline = self.load_deadline
        srv.refuse_plans(self.models)
        with open(self.run_dir / results.COMMANDS_FILE, "a") as f:
            f.write(f"# tritonserver (log {log_file.name})\n{srv.command_line}\n")
        reason = self._reason or f"tritonserver exited (its log: {self.log_name()})"
        self.run.server_starts.append(ServerStart(log=log_file.name, started=now(), reason=reason))
        self._reason = None
        self.current = srv
        self._save()
        srv.start()
        self._version = _server_version(srv.http_url)
        self.run.environment["server"] = server_record(srv, self._version)
        return srv

    def _reach(self) -> TritonServer:
        """A server the toolkit did not start (``--runtime remote``): checked (live, version,
        model control) and waited for until ready; nothing is started, so no log and no
        :class:`ServerStart` (``RunResult.servers`` records it)."""
        srv = TritonServer(self.opts)
        srv.load_deadline = self.load_deadline
        srv.refuse_plans(self.models)
        with open(self.run_dir / results.COMMANDS_FILE, "a") as f:
            f.write(f"# tritonserver at http://{srv.http_url} (--runtime remote: not started by the toolkit)\n")
        self._reason = None
        self.current = srv
        srv.start()
        self._version = srv.runtime_impl.version if isinstance(srv.runtime_impl, RemoteRuntime) else None
        self.run.environment["server"] = server_record(srv, self._version)
        return srv

    def version(self) -> str | None:
        """The Triton version of the current server (server metadata); ``None`` before it started."""
        return self._version

    def died(self, reason: str) -> None:
        """Record why the server is gone: the next start says so."""
        self._reason = reason

    def restart_before_next(self, reason: str) -> None:
        """Stop the server now; the next :meth:`get` starts a fresh one, recorded with ``reason``."""
        if self.opts.urls:  # not ours to restart: the next variant is measured beside the leftover, said here
            log.warning(
                "%s: the server at %s is not the toolkit's to restart; the next variant may share it", reason, self.opts.urls[0]
            )
        else:
            log.warning("%s: restarting tritonserver before the next variant", reason)
        if self.current is not None:
            self.current.stop()
        self._reason = reason

    def unload(self, model: str, timeout_s: float) -> bool:
        """Unload ``model`` and check it is gone within ``timeout_s``; if not, stop the server
        (:meth:`restart_before_next`). Returns whether it was gone (``True`` when no server
        runs: nothing is loaded)."""
        srv = self.current
        if srv is None or not srv.is_alive():
            return True
        if srv.unload(model, timeout_s):
            return True
        state = srv.model_state(model)
        self.restart_before_next(
            f"{model} was still {state or 'loaded'} {timeout_s:g} s after its unload request (server log: {self.log_name()})"
        )
        return False

    def stop(self) -> None:
        """Stop the server, if one runs (a remote one is left with the models it was found
        with); what differed is recorded in its :class:`perf.records.servers.MeasuringServer`."""
        if self.current is None:
            return
        srv = self.current
        srv.stop()
        if not srv.runtime_impl.launches:
            for rec in self.run.servers:
                if rec.url == srv.http_url:
                    rec.left_differently = list(srv.left_differently)


def stamp_loaded(vr: VariantResult, loaded: Loaded) -> None:
    """Record what the server runs for ``vr`` right after its load (checked against the
    variant by :meth:`clients.server.TritonServer.load`) in ``vr.served``.

    Raises:
        PerfError: the files loaded are not the ones an earlier load of this run measured (a
            rebuild while the run went on, or between its sessions): numbers of two models would
            be filed under one variant, so the sweep stops, keeping what it measured.
    """
    refuse_reloaded(vr.name, measured_artifact(vr), loaded.served.artifact, "the sweep")
    vr.served.append(dataclasses.replace(loaded.served, moment="after load"))


def stamp_after(srv: TritonServer, vr: VariantResult) -> str | None:
    """Read again what the server runs for ``vr`` after its last level, record it in
    ``vr.served`` and compare it with the reading after the load and with the variant's name.

    Returns:
        Why the variant's numbers cannot be filed under its name (the differing fields), or
        ``None`` when the server ran the variant throughout.
    """
    first = next((s for s in reversed(vr.served) if s.moment == "after load"), None)
    try:
        now = dataclasses.replace(srv.served(vr.name), moment="after the last level")
    except ServerError as e:
        return f"{e.message}: what it ran during the measurement cannot be confirmed"
    vr.served.append(now)
    wrong = (changed_since(first, now) if first is not None else []) + name_differences(vr.name, now.settings)
    if not wrong:
        return None
    return (
        f"the server at {srv.http_url} ran {vr.name} with other settings by the end of its measurement "
        f"({'; '.join(wrong)}): its numbers cannot be filed under the variant"
    )


def _server_version(http_url: str) -> str | None:
    import tritonclient.http as th

    with contextlib.suppress(Exception), contextlib.closing(th.InferenceServerClient(http_url)) as c:
        return c.get_server_metadata().get("version")
    return None
