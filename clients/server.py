"""Starting and stopping a real ``tritonserver``: bundled, local binary, or container.

:class:`TritonServer` is a context manager: free ports (or the ones asked for, checked
first), readiness polled with a timeout, the log kept in a file, a clean stop (SIGINT, wait,
SIGKILL) and an error carrying the log's tail when the server fails to start. The server
process is tied to its launcher with ``PR_SET_PDEATHSIG`` so it never outlives it, also when
the launcher is killed with SIGKILL; a container is additionally named and watched by a small
guardian process that removes it (``docker rm -f``) once the launcher is gone, since a killed
``docker run`` client leaves its container running.
Servers listen on 127.0.0.1 unless another address is asked for.

Runtimes (``--runtime``): ``container`` (NVIDIA's ``nvcr.io/nvidia/tritonserver:<tag>-py3``),
``local`` (``$TRITONSERVER`` or ``tritonserver`` on PATH), ``bundled`` (the binary in the
``nvidia-pytriton`` wheel, python backend, CPU) and ``auto`` (the first available of those,
in the order local, container, bundled; :func:`resolve_runtime` says why).
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import logging
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Sequence

from core.errors import ServerError

log = logging.getLogger(__name__)

RUNTIMES = ("auto", "bundled", "local", "container")
DEFAULT_IMAGE = "nvcr.io/nvidia/tritonserver"
DEFAULT_TAG = "24.10-py3"
LOCAL_ENV = "TRITONSERVER"  # path of a local tritonserver binary
MODEL_CONTROL_MODES = ("explicit", "none", "poll")
#: Error lines tritonserver logs on every start without a GPU (shared/RUNTIME.md): harmless.
_HARMLESS = ("CudaDriverHelper has not been initialized", "Failed to initialize NVML", "DCGM unable to start")


def image_for_tag(tag: str) -> str:
    """NVIDIA's server image for a release tag: ``"24.10"`` -> ``nvcr.io/nvidia/tritonserver:24.10-py3``.

    A tag that already ends in ``-py3`` (or another suffix such as ``-py3-igpu``) is kept as is.
    """
    return f"{DEFAULT_IMAGE}:{tag if '-' in tag else tag + '-py3'}"


@dataclasses.dataclass
class ServerOptions:
    """How to launch tritonserver.

    Attributes:
        repository: Model repository folder.
        runtime: ``auto`` | ``bundled`` | ``local`` | ``container``.
        http_port, grpc_port, metrics_port: Ports; ``0`` = pick free ones.
        address: Listen address (default ``127.0.0.1``; ``0.0.0.0`` exposes the server).
        model_control: ``explicit`` (load/unload on request; for sweeps), ``none`` or ``poll``.
        load_models: Models to load at start (explicit mode); ``["*"]`` loads all.
        log_file: Server log path (default: a temporary file, kept).
        log_verbose: ``--log-verbose`` level.
        metrics_interval_ms: ``--metrics-interval-ms`` (how often gauges such as CPU/GPU
            utilisation are refreshed; default 500 ms).
        extra_args: Further tritonserver flags, passed through verbatim.
        start_timeout_s: Seconds to wait for readiness (default 120).
        exit_timeout_s: tritonserver `--exit-timeout-secs`: how long a stop waits for in-flight
            requests before the server exits (default 15 s; `stop()` waits 5 s longer).
        image: Container image (``runtime=container``), default ``nvcr.io/nvidia/tritonserver:24.10-py3``.
        gpus: ``docker run --gpus`` value (default ``all``).
        shm_size: ``docker run --shm-size`` (default ``1g``).
        binary: Path of a local tritonserver (``runtime=local``); default ``$TRITONSERVER`` or PATH.
    """

    repository: Path
    runtime: str = "auto"
    http_port: int = 0
    grpc_port: int = 0
    metrics_port: int = 0
    address: str = "127.0.0.1"
    model_control: str = "explicit"
    load_models: Sequence[str] = ()
    log_file: Path | None = None
    log_verbose: int = 0
    metrics_interval_ms: int = 500
    extra_args: Sequence[str] = ()
    start_timeout_s: float = 120.0
    exit_timeout_s: int = 15
    image: str = f"{DEFAULT_IMAGE}:{DEFAULT_TAG}"
    gpus: str = "all"
    shm_size: str = "1g"
    binary: Path | None = None


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
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((address, port))
        except OSError:
            return True
    return False


def resolve_runtime(runtime: str, binary: Path | None = None) -> tuple[str, str]:
    """Pick the runtime; returns ``(runtime, why)``.

    ``auto`` prefers a local ``tritonserver`` (native backends), then the container when a
    Docker engine answers and a GPU is present, then the bundled CPU server.

    Args:
        runtime: One of :data:`RUNTIMES`.
        binary: An explicit local binary (``ServerOptions.binary``); else ``$TRITONSERVER``/PATH.

    Raises:
        ServerError: unknown runtime name.
    """
    if runtime not in RUNTIMES:
        raise ServerError(f"unknown server runtime {runtime!r}", hint=f"choose one of {', '.join(RUNTIMES)}")
    if runtime != "auto":
        return runtime, "asked for"
    local = _local_binary(binary)
    if local:
        return "local", f"a tritonserver binary was found at {local}"
    if shutil.which("docker") and shutil.which("nvidia-smi") and _docker_engine_up():
        return "container", "a Docker engine and an NVIDIA GPU are available"
    return "bundled", "no local tritonserver and no Docker engine with a GPU: using the bundled CPU server (python backend)"


def _docker_engine_up() -> bool:
    try:
        return subprocess.run(["docker", "info"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _local_binary(binary: Path | None) -> str | None:
    if binary:
        return str(binary) if Path(binary).is_file() else None
    env = os.environ.get(LOCAL_ENV)
    if env:
        return env if Path(env).is_file() else None
    return shutil.which("tritonserver")


def server_args(opts: ServerOptions, http: int, grpc: int, metrics: int, repository: str) -> list[str]:
    """tritonserver flags common to every runtime (Triton docs, ``tritonserver --help``)."""
    args = [
        f"--model-repository={repository}",
        f"--http-port={http}",
        f"--grpc-port={grpc}",
        f"--metrics-port={metrics}",
        f"--model-control-mode={opts.model_control}",
        f"--metrics-interval-ms={opts.metrics_interval_ms}",
        f"--log-verbose={opts.log_verbose}",
        "--allow-metrics=true",
        "--allow-cpu-metrics=true",
        "--strict-readiness=false",
        f"--exit-timeout-secs={opts.exit_timeout_s}",
    ]
    if opts.runtime != "container":
        args += [f"--http-address={opts.address}", f"--grpc-address={opts.address}", f"--metrics-address={opts.address}"]
    for m in opts.load_models:
        args.append(f"--load-model={m}")
    return [*args, *opts.extra_args]


def container_command(opts: ServerOptions, http: int, grpc: int, metrics: int, name: str | None = None) -> list[str]:
    """``docker run`` for NVIDIA's tritonserver image, ports published on ``opts.address``.

    Follows Triton's quick start (``docker run --gpus=1 --rm -p8000:8000 ... -v
    <repo>:/models nvcr.io/nvidia/tritonserver:<yy.mm>-py3 tritonserver
    --model-repository=/models``): the repository is mounted read-only at ``/models``, each
    port is published on ``opts.address`` only (the server inside listens on all of the
    container's interfaces), ``--shm-size`` is raised for the python backend and system
    shared memory, ``--init`` forwards SIGINT to tritonserver for a clean stop.

    Args:
        name: ``--name`` for the container, so that it can be removed by name.
    """
    repo = str(Path(opts.repository).resolve())
    a = opts.address
    cmd = ["docker", "run", "--rm", "--init"]
    if name:
        cmd.append(f"--name={name}")
    cmd.append(f"--shm-size={opts.shm_size}")
    if opts.gpus:
        cmd.append(f"--gpus={opts.gpus}")
    cmd += [
        "-p", f"{a}:{http}:{http}", "-p", f"{a}:{grpc}:{grpc}", "-p", f"{a}:{metrics}:{metrics}",
        "-v", f"{repo}:/models:ro", opts.image, "tritonserver",
    ]
    return cmd + server_args(opts, http, grpc, metrics, "/models")


def build_command(opts: ServerOptions, http: int, grpc: int, metrics: int,
                  container_name: str | None = None) -> tuple[list[str], dict[str, str]]:
    """The exact command line and extra environment for ``opts`` (``opts.runtime`` resolved).

    Raises:
        ServerError: the runtime's server is not available (with what to install).
    """
    if opts.runtime == "container":
        return container_command(opts, http, grpc, metrics, container_name), {}
    if opts.runtime == "local":
        binary = _local_binary(opts.binary)
        if not binary:
            raise ServerError(
                "no local tritonserver found",
                hint=f"put tritonserver on PATH, set ${LOCAL_ENV}, or use --runtime bundled",
            )
        from clients.bundled import SITE_ENV, site_packages

        # python-backend variants written for the bundled runtime read this; native ones ignore it
        env = {SITE_ENV: site_packages()} if SITE_ENV not in os.environ else {}
        return [binary, *server_args(opts, http, grpc, metrics, str(Path(opts.repository).resolve()))], env
    from clients.bundled import find_bundled

    b = find_bundled()
    cmd = [str(b.binary), f"--backend-directory={b.backend_dir}",
           *server_args(opts, http, grpc, metrics, str(Path(opts.repository).resolve()))]
    return cmd, b.env()


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


#: Run by the container guardian: wait until the launcher closes our stdin (it exited or
#: was killed), then remove the container by name.
_GUARDIAN = (
    "import signal, subprocess, sys\n"
    "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
    "sys.stdin.buffer.read()\n"
    "subprocess.run(['docker', 'rm', '-f', sys.argv[1]], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
)


def start_container_guardian(name: str) -> subprocess.Popen:
    """Start a process that runs ``docker rm -f <name>`` once its stdin pipe closes.

    The launcher keeps the pipe's write end; when the launcher exits for any reason
    (SIGKILL included) the kernel closes it, so the container never outlives the launcher.
    ``TritonServer.stop`` closes it too, after the graceful stop.
    """
    import sys

    return subprocess.Popen([sys.executable, "-c", _GUARDIAN, name], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


class TritonServer:
    """A running tritonserver; use as a context manager.

    Example:
        >>> with TritonServer(ServerOptions(Path("model_repository"))) as srv:
        ...     srv.load("mlp_onnx_cpu1_nodb_mbs64")

    Attributes:
        http_url, grpc_url, metrics_url: ``host:port`` strings (no scheme), as tritonclient
            and perf_analyzer take them.
        command: The exact command line run (to print or re-run).
        log_path: The server's log file.
    """

    def __init__(self, opts: ServerOptions):
        """Resolve the runtime, check the repository and ports, and build the command.

        Nothing is started yet (``start()`` or ``with`` does that), so this is what
        ``--print-cmd`` uses.

        Raises:
            ServerError: unknown runtime or model control mode, missing repository, an asked
                port already in use, or the runtime's server not available.
        """
        if opts.model_control not in MODEL_CONTROL_MODES:
            raise ServerError(f"unknown model control mode {opts.model_control!r}", hint=f"choose one of {', '.join(MODEL_CONTROL_MODES)}")
        if opts.load_models and opts.model_control != "explicit":
            raise ServerError("models to load at start (--load-model) need explicit model control",
                              hint="use --model-control explicit, or drop --load-model (modes none/poll load the whole repository)")
        self.opts = opts
        self.runtime, self.runtime_reason = resolve_runtime(opts.runtime, opts.binary)
        opts = dataclasses.replace(opts, runtime=self.runtime)
        self.opts = opts
        repo = Path(opts.repository)
        if not repo.is_dir():
            raise ServerError(f"model repository {repo} does not exist", hint="run `builders build` first or pass the right --repository")
        asked = {"http": opts.http_port, "grpc": opts.grpc_port, "metrics": opts.metrics_port}
        for what, port in asked.items():
            if port and port_in_use(port, opts.address):
                raise ServerError(
                    f"{what} port {port} on {opts.address} is already in use",
                    hint="stop whatever listens there, pick another port, or pass 0 for a free one",
                )
        free = iter(free_ports(sum(1 for v in asked.values() if not v), opts.address))
        ports = {k: v or next(free) for k, v in asked.items()}
        self.http_port, self.grpc_port, self.metrics_port = ports["http"], ports["grpc"], ports["metrics"]
        host = "localhost" if opts.address in ("0.0.0.0", "127.0.0.1") else opts.address
        self.http_url = f"{host}:{self.http_port}"
        self.grpc_url = f"{host}:{self.grpc_port}"
        self.metrics_url = f"{host}:{self.metrics_port}/metrics"
        self.container_name = f"tritonserver-{os.getpid()}-{self.http_port}" if self.runtime == "container" else None
        self.command, self._env = build_command(opts, self.http_port, self.grpc_port, self.metrics_port, self.container_name)
        if opts.log_file:
            self.log_path = Path(opts.log_file)
        else:
            fd, name = tempfile.mkstemp(prefix="tritonserver-", suffix=".log")
            os.close(fd)
            self.log_path = Path(name)
        self._proc: subprocess.Popen | None = None
        self._guardian: subprocess.Popen | None = None

    @property
    def pid(self) -> int | None:
        """Process id of the started server (the ``docker run`` client for a container)."""
        return self._proc.pid if self._proc else None

    @property
    def command_line(self) -> str:
        """The command as one shell-quoted line, environment included."""
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in self._env.items())
        return (env + " " if env else "") + shlex.join(self.command)

    def start(self) -> "TritonServer":
        """Start and wait until ready.

        Raises:
            ServerError: the process exits or is not ready within ``start_timeout_s``; the
                message holds the last lines of its log.
        """
        log.info("starting tritonserver (%s: %s): %s", self.runtime, self.runtime_reason, self.command_line)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        logf = open(self.log_path, "wb")
        if self.container_name:
            self._guardian = start_container_guardian(self.container_name)
        try:
            # own session: a terminal's Ctrl-C reaches the launcher only, which then stops the
            # server once, cleanly (stop()); PDEATHSIG covers a launcher that dies instead.
            self._proc = subprocess.Popen(
                self.command, stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                env={**os.environ, **self._env}, preexec_fn=_die_with_parent(os.getpid()), start_new_session=True,
            )
        except OSError as e:
            self._release_guardian()
            raise ServerError(f"could not run {self.command[0]}: {e}") from e
        finally:
            logf.close()
        try:
            self._wait_ready()
        except BaseException:  # not ready, or Ctrl-C while waiting: leave nothing running
            self.stop()
            raise
        return self

    def _wait_ready(self) -> None:
        assert self._proc is not None
        deadline = time.monotonic() + self.opts.start_timeout_s
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise ServerError(
                    f"tritonserver exited with code {self._proc.returncode} during start-up; last lines of its log:\n{self.log_tail()}",
                    hint="read the log above; a model that fails to load, a busy port or a missing library are the usual causes",
                    log_path=str(self.log_path),
                )
            if self.is_ready():
                log.info("tritonserver ready at http=%s grpc=%s metrics=%s", self.http_url, self.grpc_url, self.metrics_url)
                return
            time.sleep(0.25)
        tail = self.log_tail()
        raise ServerError(
            f"tritonserver was not ready within {self.opts.start_timeout_s:g} s; last lines of its log:\n{tail}",
            hint="raise --start-timeout or check the log", log_path=str(self.log_path),
        )

    def is_ready(self) -> bool:
        """``GET /v2/health/ready`` answered true."""
        import tritonclient.http as th

        try:
            with contextlib.closing(th.InferenceServerClient(self.http_url, connection_timeout=2, network_timeout=2)) as c:
                return bool(c.is_server_ready())
        except Exception:  # connection refused while starting
            return False

    def is_alive(self) -> bool:
        """The server process is running (it may not be ready yet)."""
        return self._proc is not None and self._proc.poll() is None

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

    def load(self, model: str, timeout_s: float = 300) -> None:
        """Load (or reload) ``model`` through the repository API (explicit model control).

        Raises:
            ServerError: Triton refused to load it (the message holds Triton's reason), or
                the server stopped answering while loading it (it may have crashed).
        """
        import tritonclient.http as th
        from tritonclient.utils import InferenceServerException

        try:
            with contextlib.closing(th.InferenceServerClient(self.http_url, network_timeout=timeout_s)) as c:
                c.load_model(model)
        except InferenceServerException as e:
            raise ServerError(f"tritonserver could not load model {model!r}: {e.message()}", log_path=str(self.log_path)) from e
        except Exception as e:  # connection refused/reset: the load took the server down
            state = "still running" if self.is_alive() else "no longer running"
            raise ServerError(f"loading model {model!r} failed: {type(e).__name__}: {e} (tritonserver is {state})",
                              hint="read the server log", log_path=str(self.log_path)) from e

    def unload(self, model: str) -> None:
        """Unload ``model`` and wait until it is gone (errors are logged, not raised)."""
        import tritonclient.http as th

        try:
            with contextlib.closing(th.InferenceServerClient(self.http_url, network_timeout=60)) as c:
                c.unload_model(model)
                for _ in range(120):
                    if not c.is_model_ready(model):
                        break
                    time.sleep(0.25)
        except Exception as e:  # an unload failure must not end a sweep
            log.warning("unloading %s failed: %s", model, e)

    def stop(self, timeout_s: float | None = None) -> None:
        """SIGINT, wait ``timeout_s``, then SIGKILL (and ``docker rm -f`` for a container).

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
        self._release_guardian()

    def _release_guardian(self) -> None:
        """Close the container guardian's pipe: it removes the container (if any is left) and exits."""
        g, self._guardian = self._guardian, None
        if g is None:
            return
        with contextlib.suppress(OSError):
            g.stdin.close()
        try:
            g.wait(30)
        except subprocess.TimeoutExpired:
            g.kill()

    def __enter__(self) -> "TritonServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
