"""Starting and stopping a real ``tritonserver``: bundled, local binary, or container.

:class:`TritonServer` is a context manager: free ports (or the ones asked for, checked
first), readiness polled with a timeout, the log kept in a file, a clean stop (SIGINT, wait,
SIGKILL) and an error carrying the log's tail when the server fails to start. The server
process is tied to its launcher with ``PR_SET_PDEATHSIG`` so it never outlives it.
Servers listen on 127.0.0.1 unless another address is asked for.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import logging
import os
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Sequence

from builders.errors import ServerError

log = logging.getLogger(__name__)

RUNTIMES = ("auto", "bundled", "local", "container")
DEFAULT_IMAGE = "nvcr.io/nvidia/tritonserver"
DEFAULT_TAG = "24.10-py3"
LOCAL_ENV = "TRITONSERVER"  # path of a local tritonserver binary


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
    image: str = f"{DEFAULT_IMAGE}:{DEFAULT_TAG}"
    gpus: str = "all"
    shm_size: str = "1g"
    binary: Path | None = None


def free_port(address: str = "127.0.0.1") -> int:
    """A TCP port that is free now on ``address``."""
    with socket.socket() as s:
        s.bind((address, 0))
        return s.getsockname()[1]


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
    ]
    if opts.runtime != "container":
        args += [f"--http-address={opts.address}", f"--grpc-address={opts.address}", f"--metrics-address={opts.address}"]
    for m in opts.load_models:
        args.append(f"--load-model={m}")
    return [*args, *opts.extra_args]


def container_command(opts: ServerOptions, http: int, grpc: int, metrics: int) -> list[str]:
    """``docker run`` for NVIDIA's tritonserver image, ports published on ``opts.address``."""
    repo = str(Path(opts.repository).resolve())
    a = opts.address
    cmd = ["docker", "run", "--rm", "--init", f"--shm-size={opts.shm_size}"]
    if opts.gpus:
        cmd.append(f"--gpus={opts.gpus}")
    cmd += [
        "-p", f"{a}:{http}:{http}", "-p", f"{a}:{grpc}:{grpc}", "-p", f"{a}:{metrics}:{metrics}",
        "-v", f"{repo}:/models:ro", opts.image, "tritonserver",
    ]
    return cmd + server_args(opts, http, grpc, metrics, "/models")


def build_command(opts: ServerOptions, http: int, grpc: int, metrics: int) -> tuple[list[str], dict[str, str]]:
    """The exact command line and extra environment for ``opts`` (``opts.runtime`` resolved).

    Raises:
        ServerError: the runtime's server is not available (with what to install).
    """
    if opts.runtime == "container":
        return container_command(opts, http, grpc, metrics), {}
    if opts.runtime == "local":
        binary = _local_binary(opts.binary)
        if not binary:
            raise ServerError(
                "no local tritonserver found",
                hint=f"put tritonserver on PATH, set ${LOCAL_ENV}, or use --runtime bundled",
            )
        return [binary, *server_args(opts, http, grpc, metrics, str(Path(opts.repository).resolve()))], {}
    from clients.bundled import find_bundled

    b = find_bundled()
    cmd = [str(b.binary), f"--backend-directory={b.backend_dir}",
           *server_args(opts, http, grpc, metrics, str(Path(opts.repository).resolve()))]
    return cmd, b.env()


def _die_with_parent() -> None:
    """preexec_fn: SIGKILL this child when the launcher dies (Linux ``PR_SET_PDEATHSIG``)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)


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
        ports = {k: v or free_port(opts.address) for k, v in asked.items()}
        self.http_port, self.grpc_port, self.metrics_port = ports["http"], ports["grpc"], ports["metrics"]
        host = "localhost" if opts.address in ("0.0.0.0", "127.0.0.1") else opts.address
        self.http_url = f"{host}:{self.http_port}"
        self.grpc_url = f"{host}:{self.grpc_port}"
        self.metrics_url = f"{host}:{self.metrics_port}/metrics"
        self.command, self._env = build_command(opts, self.http_port, self.grpc_port, self.metrics_port)
        self.log_path = Path(opts.log_file) if opts.log_file else Path(tempfile.mkstemp(prefix="tritonserver-", suffix=".log")[1])
        self._proc: subprocess.Popen | None = None

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
        try:
            self._proc = subprocess.Popen(
                self.command, stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                env={**os.environ, **self._env}, preexec_fn=_die_with_parent,
            )
        except OSError as e:
            raise ServerError(f"could not run {self.command[0]}: {e}") from e
        finally:
            logf.close()
        deadline = time.monotonic() + self.opts.start_timeout_s
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise ServerError(
                    f"tritonserver exited with code {self._proc.returncode} during start-up:\n{self.log_tail()}",
                    hint="read the log above; a model that fails to load, a busy port or a missing library are the usual causes",
                    log_path=str(self.log_path),
                )
            if self.is_ready():
                log.info("tritonserver ready at http=%s grpc=%s metrics=%s", self.http_url, self.grpc_url, self.metrics_url)
                return self
            time.sleep(0.25)
        tail = self.log_tail()
        self.stop()
        raise ServerError(
            f"tritonserver was not ready within {self.opts.start_timeout_s:.0f} s:\n{tail}",
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
        return self._proc is not None and self._proc.poll() is None

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def load(self, model: str, timeout_s: float = 300) -> None:
        """Load (or reload) ``model`` through the repository API (explicit model control).

        Raises:
            ServerError: Triton refused to load it; the message holds Triton's reason.
        """
        import tritonclient.http as th
        from tritonclient.utils import InferenceServerException

        try:
            with contextlib.closing(th.InferenceServerClient(self.http_url, network_timeout=timeout_s)) as c:
                c.load_model(model)
        except InferenceServerException as e:
            raise ServerError(f"tritonserver could not load model {model!r}: {e.message()}", log_path=str(self.log_path)) from e

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

    def stop(self, timeout_s: float = 20) -> None:
        """SIGINT, wait ``timeout_s``, then SIGKILL."""
        p = self._proc
        if p is None or p.poll() is not None:
            return
        p.send_signal(signal.SIGINT)
        try:
            p.wait(timeout_s)
        except subprocess.TimeoutExpired:
            log.warning("tritonserver did not stop within %.0f s; killing it", timeout_s)
            p.kill()
            p.wait()

    def __enter__(self) -> "TritonServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
