"""A running ``tritonserver``, whatever launched it: the :class:`TritonServer` context manager.

It owns what every runtime shares: free ports (or the ones asked for, checked first),
readiness polled with a timeout, the log kept in a file, the repository API (load/unload), a
clean stop (SIGINT, wait, SIGKILL) and an error carrying the log's tail when the server fails
to start. What differs per runtime (command line, environment, what runs beside the server)
comes from a :class:`clients.runtimes.base.Runtime` (``bundled``, ``local``, ``container``,
``auto``: :mod:`clients.runtimes`). Neither the server nor what it starts (python-backend stubs)
outlives it or its launcher, SIGKILL included: :mod:`core.processes` (PDEATHSIG, process group).
Servers listen on 127.0.0.1 unless another address is asked for.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import shlex
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from builders.repository.missing import repository_not_found
from clients.runtimes.base import Ports, Runtime
from clients.runtimes.choose import resolve_runtime
from clients.runtimes.diagnosis import exited_words, failed_hint, hung_loads, hung_words, not_ready_hint, read_log
from clients.runtimes.health import not_live
from clients.runtimes.host import choose_ports, default_log_path, log_since, log_tail, prune_server_logs, started_here
from clients.runtimes.loading import LoadDeadline, load_model
from clients.runtimes.models import UNLOAD_WAIT_S, expand_model_patterns, model_state, unload_and_wait, wait_until
from clients.runtimes.options import MODEL_CONTROL_MODES, ServerOptions
from clients.runtimes.plans import refuse_plans
from clients.runtimes.servable import check_servable, refuse_at_start, refuse_unservable
from clients.runtimes.served import Loaded, ServedModel
from clients.runtimes.tenancy import Tenancy
from core.errors import ServerError
from core.processes import ProcessGroup, die_with_parent, held_stops, interrupt_then_kill

__all__ = ["ServerOptions", "TritonServer"]

log = logging.getLogger(__name__)

#: How long a stop waits for a server with a hung load (:attr:`TritonServer.hung_load`) before it kills it (s): its
#: graceful stop waits for that load, which never ends (the bundled tritonserver's python backend never reaped a stub
#: that failed to preinitialize; trial 31, F6).
HUNG_LOAD_STOP_S = 3.0


class TritonServer:
    """A running tritonserver; use as a context manager.

    Example:
        >>> with TritonServer(ServerOptions(Path("model_repository"))) as srv:
        ...     srv.load("mlp_onnx_cpu1_nodb_mbs64")

    Attributes:
        runtime: The runtime's name (``bundled``, ``local``, ``container``), ``auto`` resolved.
        runtime_reason: Why that runtime (``"asked for"``, or what ``auto`` found).
        runtime_impl: The :class:`clients.runtimes.base.Runtime` that launches it.
        http_url, grpc_url, metrics_url: ``host:port`` strings (no scheme), as tritonclient
            and perf_analyzer take them.
        command: The exact command line run (to print or re-run).
        log_path: The server's log file.
    """

    #: A model whose load Triton said failed but never ended (:func:`clients.runtimes.loading.load_model`): a stop
    #: kills it after :data:`HUNG_LOAD_STOP_S`.
    hung_load: str | None = None

    def __init__(self, opts: ServerOptions, runtime: Runtime | None = None):
        """Resolve the runtime, check the repository and ports, and build the command.

        Nothing is started yet (``start()`` or ``with`` does that), so this is what
        ``--print-cmd`` uses.

        Args:
            opts: The launch options.
            runtime: A runtime object to use instead of the one ``opts.runtime`` names.

        Raises:
            ServerError: unknown runtime or model control mode, missing repository, an asked
                port already in use, the runtime's server not available, or a model loaded at
                start that it cannot load (:func:`clients.runtimes.servable.refuse_at_start`).
        """
        if opts.model_control not in MODEL_CONTROL_MODES:
            raise ServerError(
                f"unknown model control mode {opts.model_control!r}", hint=f"choose one of {', '.join(MODEL_CONTROL_MODES)}"
            )
        if opts.load_models and opts.model_control != "explicit":
            raise ServerError(
                "models to load at start (--load-model) need explicit model control",
                hint="use --model-control explicit, or drop --load-model (modes none/poll load the whole repository)",
                flag="--load-model",
            )
        if runtime is None:
            runtime, self.runtime_reason = resolve_runtime(opts)
        else:
            self.runtime_reason = "given"
        self.runtime_impl = runtime
        self.runtime = runtime.name
        self.opts = opts = dataclasses.replace(opts, runtime=runtime.name)
        ports = runtime.fixed_ports() or Ports(opts.http_port, opts.grpc_port, opts.metrics_port)
        if runtime.launches:
            repo = Path(opts.repository)
            if not repo.is_dir():
                raise repository_not_found(repo, error=ServerError)
            if opts.load_models:
                self.opts = opts = dataclasses.replace(opts, load_models=expand_model_patterns(repo, opts.load_models))
                runtime.opts = opts  # the command names the models the patterns matched
            refuse_at_start(runtime, self.runtime_reason, opts.model_control, opts.load_models, repo)
            runtime.held = choose_ports(opts.http_port, opts.grpc_port, opts.metrics_port, opts.address, runtime.binds_address)
            ports = Ports(*runtime.held.ports)  # held until the server has bound them (Runtime.after_stop lets them go)
        runtime.check()
        self.http_port, self.grpc_port, self.metrics_port = ports.http, ports.grpc, ports.metrics
        self.http_url, self.grpc_url, self.metrics_url = runtime.endpoints(ports)
        self.command = runtime.command(ports) if runtime.launches else []
        self._env = runtime.environment()
        self._own_log = not opts.log_file
        self.log_path = Path(opts.log_file) if opts.log_file else default_log_path()
        self._proc: subprocess.Popen | None = None
        self._group: ProcessGroup | None = None  # the server's process group (its stubs), guarded
        #: Whose models are on the server, recorded once it answers (:mod:`clients.runtimes.tenancy`).
        self.tenancy: Tenancy | None = None
        #: What :meth:`stop` could not put back on a server the toolkit did not start, in words.
        self.left_differently: list[str] = []
        #: A time no model load waits past, beside ``--start-timeout`` (a sweep's ``--time-budget``); ``None``: none.
        self.load_deadline: LoadDeadline | None = None

    def refuse_plans(self, models: Sequence[str]) -> dict[str, str]:
        """Check the plans among ``models`` before it starts (:func:`clients.runtimes.plans.refuse_plans`)."""
        return refuse_plans(Path(self.opts.repository), models, self.runtime_impl.serving_release())

    @property
    def container_name(self) -> str | None:
        """The container's name (container runtime), else ``None``."""
        return getattr(self.runtime_impl, "container_name", None)

    @property
    def pid(self) -> int | None:
        """Process id of the started server (the ``docker run`` client for a container)."""
        return self._proc.pid if self._proc else None

    @property
    def command_line(self) -> str:
        """The command as one shell-quoted line, environment included."""
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in self._env.items())
        return (env + " " if env else "") + shlex.join(self.command)

    def start(self) -> TritonServer:
        """Start and wait until ready (a runtime that launches nothing: only wait).

        Raises:
            ServerError: the process exits or is not ready within ``start_timeout_s``; the
                message holds the last lines of its log.
        """
        if not self.runtime_impl.launches:
            log.info("using tritonserver at %s (%s: %s)", self.http_url, self.runtime, self.runtime_reason)
            self._wait_ready()
            self.tenancy = Tenancy.of_server(self.http_url, self.opts, self.runtime_impl)
            return self
        log.info("starting tritonserver (%s: %s): %s", self.runtime, self.runtime_reason, self.command_line)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        if self._own_log:
            prune_server_logs(self.log_path.parent)
        self.runtime_impl.check_can_start()
        logf = open(self.log_path, "wb")
        self.runtime_impl.before_start()
        try:
            # own session: a terminal's Ctrl-C reaches the launcher only, which then stops the
            # server once, cleanly (stop()); PDEATHSIG and the group's guardian cover a launcher that dies.
            self._proc = subprocess.Popen(
                self.command,
                stdout=logf,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env={**os.environ, **self._env},
                preexec_fn=die_with_parent(os.getpid()),
                start_new_session=True,
            )
        except OSError as e:
            self.runtime_impl.after_stop()
            raise ServerError(
                f"could not run {self.command[0]}: {e}",
                hint="check that the server binary exists and is executable (scripts/setup.sh installs the bundled one), "
                "or pick another --runtime",
            ) from e
        finally:
            logf.close()
        started_here((self.http_url, self.grpc_url), self.log_path)  # where log_where finds its log (clients.runtimes.host)
        try:
            self._group = ProcessGroup(self._proc.pid)
            self._wait_ready()
            self.tenancy = Tenancy.of_server(self.http_url, self.opts, self.runtime_impl)
        except BaseException:  # not ready, or Ctrl-C while waiting: leave nothing running
            self.stop()
            raise
        return self

    def _ready_or_exited(self) -> bool:
        """One readiness probe; raises when the server process has already exited, or its log shows a model it loads
        at start that Triton will never end loading (:func:`clients.runtimes.diagnosis.hung_loads`, trial 30, F21)."""
        text = read_log(self.log_path) if self._proc is not None and self._proc.poll() is None else ""
        if hung := hung_loads(text):  # Triton would wait on it until --start-timeout, saying nothing more
            hint = failed_hint(text, self.runtime_impl.explain(self.log_tail()), "")
            message, hint = hung_words(hung, hint, Path(self.opts.repository), self.opts.load_models)
            raise ServerError(message, hint=hint, log_path=str(self.log_path))
        if self._proc is not None and self._proc.poll() is not None:
            tail = self.log_tail()
            launcher = self.runtime_impl.exited(self._proc.returncode)  # docker run's own failure, not tritonserver's
            what, otherwise = launcher or (
                f"tritonserver exited with code {self._proc.returncode}",
                "read the log above; a model that fails to load, a busy port or a missing library are the usual causes",
            )
            text = "" if launcher else read_log(self.log_path)  # models that failed to load: a line each (T25-21)
            hint = otherwise if launcher else failed_hint(text, self.runtime_impl.explain(tail), otherwise)
            message, hint = exited_words(text, what, tail, hint, Path(self.opts.repository), self.opts.load_models)
            raise ServerError(message, hint=hint, log_path=str(self.log_path))
        return self.is_ready("ready" if self.runtime_impl.launches else "live")

    def _not_ready_in_time(self) -> NoReturn:
        if not self.runtime_impl.launches:
            raise not_live(self.http_url, self.opts.start_timeout_s)
        tail = self.log_tail()
        raise ServerError(
            f"tritonserver was not ready within {self.opts.start_timeout_s:g} s; last lines of its log:\n{tail}",
            hint=not_ready_hint(read_log(self.log_path), self.runtime_impl.explain(tail), self.opts.start_timeout_s),
            log_path=str(self.log_path),
        )

    def _wait_ready(self) -> None:
        """Poll ``/v2/health/ready`` every :data:`READY_POLL_S` until ready, the process exits
        (its error raised at once) or ``start_timeout_s`` passes; a server this launcher did not
        start: ``/v2/health/live`` (:mod:`clients.runtimes.health`: not its readiness)."""
        wait_until(self._ready_or_exited, self.opts.start_timeout_s, self._not_ready_in_time)
        log.info("tritonserver ready at http=%s grpc=%s metrics=%s", self.http_url, self.grpc_url, self.metrics_url)

    def is_ready(self, what: str = "ready") -> bool:
        """``GET /v2/health/ready`` (``what="live"``: ``/v2/health/live``) answered true."""
        import tritonclient.http as th

        try:
            with contextlib.closing(th.InferenceServerClient(self.http_url, connection_timeout=2, network_timeout=2)) as c:
                return bool(c.is_server_ready() if what == "ready" else c.is_server_live())
        except Exception:  # connection refused while starting
            return False

    def is_alive(self) -> bool:
        """The server process runs; for a server this launcher did not start: it is live (:mod:`clients.runtimes.health`)."""
        if not self.runtime_impl.launches:
            return self.is_ready("live")
        return self._proc is not None and self._proc.poll() is None

    def wait(self) -> int | None:
        """Block until the server process exits; its exit code (``None`` when none was started)."""
        return self._proc.wait() if self._proc is not None else None

    def log_tail(self, lines: int = 30) -> str:
        """The server log's last ``lines`` lines, earlier error lines first (:func:`clients.runtimes.host.log_tail`)."""
        return log_tail(self.log_path, lines)

    def refuse_unservable(self, models: Sequence[str], nothing: str) -> dict[str, str]:
        """Before it starts, ``models`` by the rule of every command that starts a server for named models
        (:func:`clients.runtimes.servable.refuse_unservable`): refused when it can load none of them."""
        return refuse_unservable(self.runtime_impl, self.runtime_reason, Path(self.opts.repository), models, nothing=nothing)

    def check_servable(self, model: str) -> None:
        """Refuse (ServerError) a model whose backend this runtime's server lacks, or a TensorRT
        plan its release cannot load (:func:`clients.runtimes.servable.check_servable`)."""
        check_servable(self.runtime_impl, self.runtime_reason, Path(self.opts.repository), model)

    def load(self, model: str, timeout_s: float | None = None) -> Loaded:
        """Load ``model`` (repository API, explicit model control), wait until it is ready, and check
        the server runs the variant (:meth:`clients.runtimes.tenancy.Tenancy.load`).

        Args:
            model: The model name.
            timeout_s: How long it may take to become ready (default: the launcher's
                ``start_timeout_s``, ``--start-timeout``; never past :attr:`load_deadline`). A load Triton
                says failed (its answer, its log, its repository index) ends the wait at once
                (:mod:`clients.runtimes.loading`).

        Returns:
            What the server runs for it (the measurement's stamp), and the load request's time.

        Raises:
            ServerError: not servable here (:meth:`check_servable`), someone else's name, Triton
                refused it (its reason), not ready in time or the server stopped answering (the
                log lines since the request), or it serves something else than the variant (the
                fields named); the hint is the runtime's fix where it knows one (a container's shm).
        """
        return load_model(self, model, timeout_s)

    def log_since(self, offset: int, lines: int = 20) -> str:
        """What the server logged after byte ``offset`` (:func:`clients.runtimes.host.log_since`)."""
        return log_since(self.log_path, offset, lines)

    def unload(self, model: str, timeout_s: float = UNLOAD_WAIT_S) -> bool:
        """Unload ``model`` and wait up to ``timeout_s`` until it is gone (:func:`unload_and_wait`).

        Returns:
            Whether it is gone; ``False`` also when the request failed (logged, not raised:
            the caller decides, e.g. the sweep restarts the server). ``True`` without a
            request for a model the toolkit did not load: never unloaded.
        """
        import tritonclient.http as th

        if self.tenancy is None or not self.tenancy.may_unload(model):
            return True
        try:
            with contextlib.closing(th.InferenceServerClient(self.http_url, network_timeout=60)) as c:
                gone = unload_and_wait(c, model, timeout_s)
        except Exception as e:  # an unload failure must not end a sweep
            log.warning("unloading %s failed: %s", model, e)
            return False
        if gone:
            self.tenancy.unloaded(model)
        return gone

    def served(self, model: str) -> ServedModel:
        """What the server runs for ``model`` now (:meth:`clients.runtimes.tenancy.Tenancy.read_at`: ServerError when not known)."""
        return (self.tenancy or Tenancy({}, url=self.http_url)).read_at(self.http_url, model)

    def model_state(self, model: str) -> str | None:
        """:func:`model_state` of ``model`` on this server; ``None`` also when it does not answer."""
        import tritonclient.http as th

        with contextlib.suppress(Exception), contextlib.closing(th.InferenceServerClient(self.http_url, network_timeout=10)) as c:
            return model_state(c, model)
        return None

    def stop(self, timeout_s: float | None = None) -> None:
        """SIGINT, wait ``timeout_s``, then SIGKILL; then SIGKILL what it left in its process group (a stub
        that missed its exit), and the runtime's clean-up (``docker rm -f``). A server the launcher did not start is left.

        SIGINT is tritonserver's graceful shutdown: it stops accepting requests, waits up to
        ``--exit-timeout-secs`` (``opts.exit_timeout_s``) for in-flight ones and unloads the
        models. The default wait is that timeout plus 5 s (:meth:`Runtime.stop_wait_s`), so a draining
        server is never killed early. Safe to call more than once. A stop that comes meanwhile kills it at once and
        is raised once all of this is done (:func:`core.processes.held_stops`; break-it F24's second case).
        """
        hung = f"its load of {self.hung_load!r}, which Triton said failed, never ends, and its stop waits for it"
        if timeout_s is None:  # a hung load: no graceful stop can end (trial 31, F6: 20 s, then a kill)
            timeout_s = HUNG_LOAD_STOP_S if self.hung_load else self.runtime_impl.stop_wait_s()
        with held_stops():
            if not self.runtime_impl.launches and self.tenancy is not None:  # left with the models it was found with
                tenancy, self.tenancy = self.tenancy, None
                self.left_differently = tenancy.leave(self.http_url)
            if self._proc is not None:
                interrupt_then_kill(self._proc, timeout_s, "tritonserver", hung if self.hung_load else None)
                started_here((self.http_url, self.grpc_url), None)
            group, self._group = self._group, None
            if group is not None:  # what the server started and left behind: python-backend stubs
                group.close(f"tritonserver (pid {self.pid})")
            self.runtime_impl.after_stop()

    def __enter__(self) -> TritonServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
