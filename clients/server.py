"""A running ``tritonserver``, whatever launched it: the :class:`TritonServer` context manager.

It owns what every runtime shares: free ports (or the ones asked for, checked first),
readiness polled with a timeout, the log kept in a file, the repository API (load/unload), a
clean stop (SIGINT, wait, SIGKILL) and an error carrying the log's tail when the server fails
to start. What differs per runtime (command line, environment, what runs beside the server)
comes from a :class:`clients.runtimes.base.Runtime` (``bundled``, ``local``, ``container``,
``auto``: :mod:`clients.runtimes`). The server process is tied to its launcher with
``PR_SET_PDEATHSIG`` so it never outlives it, also when the launcher is killed with SIGKILL.
Servers listen on 127.0.0.1 unless another address is asked for.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import itertools
import logging
import os
import re
import shlex
import signal
import socket
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import tenacity

from clients.runtimes.base import Ports, Runtime
from clients.runtimes.choose import resolve_runtime
from clients.runtimes.options import KEEP_SERVER_LOGS, MODEL_CONTROL_MODES, ServerOptions, server_log_dir
from core.errors import ServerError

__all__ = [
    "ServerOptions",
    "TritonServer",
    "default_log_path",
    "expand_model_patterns",
    "free_port",
    "free_ports",
    "model_state",
    "port_in_use",
    "unload_and_wait",
]

log = logging.getLogger(__name__)

#: Error lines tritonserver logs on every start without a GPU (shared/RUNTIME.md): harmless.
_HARMLESS = ("CudaDriverHelper has not been initialized", "Failed to initialize NVML", "DCGM unable to start")
#: Readiness is asked this often while the server starts (s).
READY_POLL_S = 0.25
#: How long :meth:`TritonServer.unload` waits for a model to be gone (s).
UNLOAD_WAIT_S = 30.0


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


def port_in_use(port: int, address: str = "127.0.0.1") -> bool:
    """Whether ``port`` on ``address`` cannot be bound now."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((address, port))
        except OSError:
            return True
    return False


#: Repository-index states of a model that still holds its instances (Triton's
#: ``ModelReadyState``: a model being unloaded is no longer ready but still runs).
PRESENT_STATES = ("READY", "LOADING", "UNLOADING")


def model_state(client: Any, model: str) -> str | None:
    """The state of ``model`` in the server's repository index (``READY``, ``LOADING``,
    ``UNLOADING``, ``UNAVAILABLE``), ``None`` when the index does not list it.

    Args:
        client: A tritonclient HTTP or gRPC ``InferenceServerClient``.
        model: The model (variant) name.

    Raises:
        Exception: whatever the client raises (the server is unreachable).
    """
    if "grpc" in type(client).__module__:
        entries = client.get_model_repository_index(as_json=True).get("models", [])
    else:
        entries = client.get_model_repository_index()
    states = [e.get("state") for e in entries if e.get("name") == model]
    return next((st for st in states if st in PRESENT_STATES), states[0] if states else None)


def unload_and_wait(client: Any, model: str, timeout_s: float = UNLOAD_WAIT_S) -> bool:
    """Ask the server to unload ``model`` and poll until it is gone.

    Triton's unload request returns before the model is gone, and the model stops being
    *ready* as soon as unloading starts, while its instances still run (a python model's
    ``finalize()``, in-flight requests): it is gone only when the repository index no longer
    says ``READY``, ``LOADING`` or ``UNLOADING`` (:data:`PRESENT_STATES`). Whoever loads the
    next model or checks the state waits here.

    Args:
        client: A tritonclient HTTP or gRPC ``InferenceServerClient``.
        model: The model name.
        timeout_s: How long to wait for it to be gone (default 30 s), polled every
            :data:`READY_POLL_S`.

    Returns:
        Whether it was gone in time (a warning naming its state is logged when not).

    Raises:
        Exception: whatever the client raises (the server refused or is unreachable).
    """
    client.unload_model(model)

    def gone() -> bool:
        return not client.is_model_ready(model) and model_state(client, model) not in PRESENT_STATES

    def still_there(state: tenacity.RetryCallState) -> bool:
        now = "READY" if client.is_model_ready(model) else model_state(client, model)
        log.warning("%s still %s %g s after its unload request", model, now or "listed", timeout_s)
        return False

    return bool(
        tenacity.Retrying(
            stop=tenacity.stop_after_delay(timeout_s),
            wait=tenacity.wait_fixed(READY_POLL_S),
            retry=tenacity.retry_if_result(lambda done: not done),
            retry_error_callback=still_there,
        )(gone)
    )


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


def expand_model_patterns(repository: Path, patterns: Sequence[str]) -> tuple[str, ...]:
    """Model names for ``--load-model`` values: names or shell patterns (``mlp_*``, ``*``)
    matched against the repository's model folders, by the rule ``--variants`` follows
    (:meth:`builders.repository.view.Repository.names`).

    Raises:
        ServerError: a pattern matches no model folder (the message lists them).
    """
    from builders.repository.view import Repository
    from core.errors import RepositoryError

    try:
        return tuple(Repository(repository).names(patterns, indexed=False))
    except RepositoryError as e:
        raise ServerError(f"--load-model {' '.join(patterns)}: {e.message}", hint=e.hint) from None


def _die_with_parent(parent_pid: int):
    """A preexec_fn: SIGKILL this child when the launcher dies (Linux ``PR_SET_PDEATHSIG``).

    The signal follows the death of the launcher *thread* that started the child (prctl(2)),
    so start servers from a thread that lives as long as the server (normally the main one).
    A launcher that died between fork and prctl is caught by comparing the parent's pid.
    """

    def preexec() -> None:
        with contextlib.suppress(Exception):
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        if os.getppid() != parent_pid:
            os._exit(1)

    return preexec


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

    def __init__(self, opts: ServerOptions, runtime: Runtime | None = None):
        """Resolve the runtime, check the repository and ports, and build the command.

        Nothing is started yet (``start()`` or ``with`` does that), so this is what
        ``--print-cmd`` uses.

        Args:
            opts: The launch options.
            runtime: A runtime object to use instead of the one ``opts.runtime`` names.

        Raises:
            ServerError: unknown runtime or model control mode, missing repository, an asked
                port already in use, or the runtime's server not available.
        """
        if opts.model_control not in MODEL_CONTROL_MODES:
            raise ServerError(
                f"unknown model control mode {opts.model_control!r}", hint=f"choose one of {', '.join(MODEL_CONTROL_MODES)}"
            )
        if opts.load_models and opts.model_control != "explicit":
            raise ServerError(
                "models to load at start (--load-model) need explicit model control",
                hint="use --model-control explicit, or drop --load-model (modes none/poll load the whole repository)",
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
                raise ServerError(
                    f"model repository {repo} does not exist", hint="run `builders build` first or pass the right --repository"
                )
            if opts.load_models:
                self.opts = opts = dataclasses.replace(opts, load_models=expand_model_patterns(repo, opts.load_models))
                runtime.opts = opts  # the command names the models the patterns matched
                for m in opts.load_models:
                    self.check_servable(m)
            ports = self._ports(opts)
        runtime.check()
        self.http_port, self.grpc_port, self.metrics_port = ports.http, ports.grpc, ports.metrics
        self.http_url, self.grpc_url, self.metrics_url = runtime.endpoints(ports)
        self.command = runtime.command(ports) if runtime.launches else []
        self._env = runtime.environment()
        self._own_log = not opts.log_file
        self.log_path = Path(opts.log_file) if opts.log_file else default_log_path()
        self._proc: subprocess.Popen | None = None

    @staticmethod
    def _ports(opts: ServerOptions) -> Ports:
        """The asked ports (refused when in use), free ones for those given as 0."""
        asked = {"http": opts.http_port, "grpc": opts.grpc_port, "metrics": opts.metrics_port}
        for what, port in asked.items():
            if port and port_in_use(port, opts.address):
                raise ServerError(
                    f"{what} port {port} on {opts.address} is already in use",
                    hint="stop whatever listens there, pick another port, or pass 0 for a free one",
                )
        free = iter(free_ports(sum(1 for v in asked.values() if not v), opts.address))
        return Ports(**{k: v or next(free) for k, v in asked.items()})

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
            return self
        log.info("starting tritonserver (%s: %s): %s", self.runtime, self.runtime_reason, self.command_line)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        if self._own_log:
            prune_server_logs(self.log_path.parent)
        logf = open(self.log_path, "wb")
        self.runtime_impl.before_start()
        try:
            # own session: a terminal's Ctrl-C reaches the launcher only, which then stops the
            # server once, cleanly (stop()); PDEATHSIG covers a launcher that dies instead.
            self._proc = subprocess.Popen(
                self.command,
                stdout=logf,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env={**os.environ, **self._env},
                preexec_fn=_die_with_parent(os.getpid()),
                start_new_session=True,
            )
        except OSError as e:
            self.runtime_impl.after_stop()
            raise ServerError(f"could not run {self.command[0]}: {e}") from e
        finally:
            logf.close()
        try:
            self._wait_ready()
        except BaseException:  # not ready, or Ctrl-C while waiting: leave nothing running
            self.stop()
            raise
        return self

    def _ready_or_exited(self) -> bool:
        """One readiness probe; raises when the server process has already exited."""
        if self._proc is not None and self._proc.poll() is not None:
            tail = self.log_tail()
            raise ServerError(
                f"tritonserver exited with code {self._proc.returncode} during start-up; last lines of its log:\n{tail}",
                hint=self.runtime_impl.explain(tail)
                or "read the log above; a model that fails to load, a busy port or a missing library are the usual causes",
                log_path=str(self.log_path),
            )
        return self.is_ready()

    def _not_ready_in_time(self, state: tenacity.RetryCallState) -> NoReturn:
        tail = self.log_tail()
        raise ServerError(
            f"tritonserver was not ready within {self.opts.start_timeout_s:g} s; last lines of its log:\n{tail}",
            hint=self.runtime_impl.explain(tail) or "raise --start-timeout or check the log",
            log_path=str(self.log_path),
        )

    def _wait_ready(self) -> None:
        """Poll ``/v2/health/ready`` every :data:`READY_POLL_S` until ready, the process exits
        (its error raised at once) or ``start_timeout_s`` passes."""
        tenacity.Retrying(
            stop=tenacity.stop_after_delay(self.opts.start_timeout_s),
            wait=tenacity.wait_fixed(READY_POLL_S),
            retry=tenacity.retry_if_result(lambda ready: not ready),
            retry_error_callback=self._not_ready_in_time,
        )(self._ready_or_exited)
        log.info("tritonserver ready at http=%s grpc=%s metrics=%s", self.http_url, self.grpc_url, self.metrics_url)

    def is_ready(self) -> bool:
        """``GET /v2/health/ready`` answered true."""
        import tritonclient.http as th

        try:
            with contextlib.closing(th.InferenceServerClient(self.http_url, connection_timeout=2, network_timeout=2)) as c:
                return bool(c.is_server_ready())
        except Exception:  # connection refused while starting
            return False

    def is_alive(self) -> bool:
        """The server process is running (it may not be ready yet); for a server this
        launcher did not start: it answers as live."""
        if not self.runtime_impl.launches:
            return self.is_ready()
        return self._proc is not None and self._proc.poll() is None

    def wait(self) -> int | None:
        """Block until the server process exits; its exit code (``None`` when none was started)."""
        return self._proc.wait() if self._proc is not None else None

    def log_tail(self, lines: int = 30) -> str:
        """The last ``lines`` lines of the server log (``"(no log)"`` when unreadable).

        Error lines logged earlier (glog ``E<mmdd> ...`` lines, e.g. why a model failed to
        load, which Triton prints above its long option table) are put first, at most 10.
        """
        try:
            all_lines = self.log_path.read_text(errors="replace").splitlines()
        except OSError:
            return "(no log)"
        tail = all_lines[-lines:]
        errors = [ln for ln in all_lines[:-lines] if re.match(r"^E\d{4} ", ln) and not any(h in ln for h in _HARMLESS)][-10:]
        return "\n".join([*errors, *(["..."] if errors else []), *tail])

    def check_servable(self, model: str) -> None:
        """Refuse, before asking the server, a model whose backend this runtime's server lacks
        (a ``--serving native`` variant on the bundled server, which has the python backend
        only), naming the runtimes that serve it. Models without a readable config are left
        to the server.

        Raises:
            ServerError: the model's ``config.pbtxt`` names a backend the runtime does not have.
        """
        have = self.runtime_impl.backends
        path = Path(self.opts.repository) / model / "config.pbtxt"
        if have is None or not path.is_file():
            return
        from builders.backends import model_backend
        from builders.config.pbtxt import read_config
        from core.errors import ConfigError

        try:
            cfg = read_config(path)
        except ConfigError:
            return  # the server says what is wrong with it
        backend = model_backend(cfg)
        if not backend or backend in have:
            return
        how = f"platform {cfg.platform}" if cfg.platform else f"backend {cfg.backend}"
        why = "" if self.runtime_reason == "asked for" else f" (chosen by --runtime auto: {self.runtime_reason})"
        raise ServerError(
            f"model {model!r} needs Triton's {backend!r} backend ({how} in its config.pbtxt, a --serving native build); "
            f"the {self.runtime} runtime{why} has only the {', '.join(have)} backend",
            hint="serve it with --runtime local (a tritonserver on PATH or $TRITONSERVER, e.g. inside NVIDIA's "
            "nvcr.io/nvidia/tritonserver image) or --runtime container (that image through Docker); or rebuild with "
            "`builders build --serving python` for the bundled CPU server",
        )

    def load(self, model: str, timeout_s: float | None = None) -> None:
        """Load (or reload) ``model`` through the repository API (explicit model control)
        and wait until it is ready.

        Args:
            model: The model name.
            timeout_s: How long it may take to become ready (default: the launcher's
                ``start_timeout_s``, ``--start-timeout``).

        Raises:
            ServerError: the runtime's server lacks the model's backend (:meth:`check_servable`),
                Triton refused to load it (the message holds Triton's reason), it was not
                ready in time (the message holds the server log lines written since the load
                request), or the server stopped answering while loading it (it may have
                crashed). The hint is the runtime's fix where it recognises the failure (a
                container's shared memory).
        """
        import tritonclient.http as th
        from tritonclient.utils import InferenceServerException

        self.check_servable(model)
        timeout_s = self.opts.start_timeout_s if timeout_s is None else timeout_s
        offset = self._log_size()
        started = time.monotonic()
        try:
            with contextlib.closing(th.InferenceServerClient(self.http_url, network_timeout=timeout_s)) as c:
                self.runtime_impl.load_model(c, model)
        except ServerError:  # the runtime's own refusal (a remote upload above the limit), already worded
            raise
        except InferenceServerException as e:
            why = e.message()
            raise ServerError(
                f"tritonserver could not load model {model!r}: {why}",
                log_path=str(self.log_path),
                hint=self.runtime_impl.explain(why + "\n" + self.log_since(offset)),
            ) from e
        except Exception as e:  # a timeout, or connection refused/reset: the load took the server down
            since = self.log_since(offset)
            if self.is_alive() and time.monotonic() - started >= 0.9 * timeout_s:
                raise ServerError(
                    f"model {model!r} was not ready within {timeout_s:g} s (--start-timeout); server log since the load request:\n{since}",
                    hint=self.runtime_impl.explain(since)
                    or "if it is only slow, raise --start-timeout; else the log lines above show where it stops",
                    log_path=str(self.log_path),
                ) from e
            state = "still running" if self.is_alive() else "no longer running"
            raise ServerError(
                f"loading model {model!r} failed: {type(e).__name__}: {e} (tritonserver is {state}); "
                f"server log since the load request:\n{since}",
                hint=self.runtime_impl.explain(since) or "read the server log",
                log_path=str(self.log_path),
            ) from e

    def _log_size(self) -> int:
        try:
            return self.log_path.stat().st_size
        except OSError:
            return 0

    def log_since(self, offset: int, lines: int = 20) -> str:
        """The last ``lines`` lines the server logged after byte ``offset`` of its log
        (harmless start-up noise left out); ``"(nothing logged)"`` when none."""
        try:
            with open(self.log_path, "rb") as f:
                f.seek(offset)
                text = f.read().decode(errors="replace")
        except OSError:
            return "(no log)"
        kept = [ln for ln in text.splitlines() if ln.strip() and not any(h in ln for h in _HARMLESS)]
        return "\n".join(kept[-lines:]) or "(nothing logged)"

    def unload(self, model: str, timeout_s: float = UNLOAD_WAIT_S) -> bool:
        """Unload ``model`` and wait up to ``timeout_s`` until it is gone (:func:`unload_and_wait`).

        Returns:
            Whether it is gone; ``False`` also when the request failed (logged, not raised:
            the caller decides, e.g. the sweep restarts the server). ``True`` without a
            request where the runtime leaves models loaded (a remote server's own, ``--no-deploy``).
        """
        import tritonclient.http as th

        if not self.runtime_impl.unloads():
            return True

        try:
            with contextlib.closing(th.InferenceServerClient(self.http_url, network_timeout=60)) as c:
                return unload_and_wait(c, model, timeout_s)
        except Exception as e:  # an unload failure must not end a sweep
            log.warning("unloading %s failed: %s", model, e)
            return False

    def model_state(self, model: str) -> str | None:
        """:func:`model_state` of ``model`` on this server; ``None`` also when it does not answer."""
        import tritonclient.http as th

        with contextlib.suppress(Exception), contextlib.closing(th.InferenceServerClient(self.http_url, network_timeout=10)) as c:
            return model_state(c, model)
        return None

    def stop(self, timeout_s: float | None = None) -> None:
        """SIGINT, wait ``timeout_s``, then SIGKILL; then the runtime's clean-up (a container's
        ``docker rm -f``). A server this launcher did not start is left running.

        SIGINT is tritonserver's graceful shutdown: it stops accepting requests, waits up to
        ``--exit-timeout-secs`` (``opts.exit_timeout_s``) for in-flight ones and unloads the
        models. The default wait is that timeout plus 5 s, so a draining server is never
        killed early. Safe to call more than once.
        """
        if timeout_s is None:
            timeout_s = self.opts.exit_timeout_s + 5
        p = self._proc
        if p is not None and p.poll() is None:
            log.info("stopping tritonserver (pid %d)", p.pid)
            p.send_signal(signal.SIGINT)
            try:
                p.wait(timeout_s)
            except subprocess.TimeoutExpired:
                log.warning("tritonserver did not stop within %.0f s; killing it", timeout_s)
                p.kill()
                p.wait()
        self.runtime_impl.after_stop()

    def __enter__(self) -> TritonServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
