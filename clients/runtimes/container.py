"""The ``container`` runtime: NVIDIA's ``nvcr.io/nvidia/tritonserver:<tag>-py3`` image under
``docker run`` (native backends, GPUs).

A killed ``docker run`` client leaves its container running, so the container is named and
watched by a small guardian process that removes it (``docker rm -f``) once the launcher is
gone, SIGKILL included.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from types import ModuleType

from builders.serving.torch_env import server_env
from clients.runtimes.base import Ports, Runtime
from clients.runtimes.options import ServerOptions
from core.errors import ServerError
from core.processes import end_guardian, start_guardian

#: Run by the container guardian: wait until the launcher closes our stdin (it exited or
#: was killed), then remove the container by name.
_GUARDIAN = (
    "import signal, subprocess, sys\n"
    "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
    "sys.stdin.buffer.read()\n"
    "subprocess.run(['docker', 'rm', '-f', sys.argv[1]], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
)


def start_container_guardian(name: str) -> subprocess.Popen:
    """Start a process that runs ``docker rm -f <name>`` once its stdin pipe closes
    (:func:`core.processes.start_guardian`).

    The launcher keeps the pipe's write end; when the launcher exits for any reason
    (SIGKILL included) the kernel closes it, so the container never outlives the launcher.
    :meth:`ContainerRuntime.after_stop` closes it too, after the graceful stop.
    """
    return start_guardian(_GUARDIAN, name)


def container_command(opts: ServerOptions, ports: Ports, args: list[str], name: str | None = None) -> list[str]:
    """``docker run`` for NVIDIA's tritonserver image, ports published on ``opts.address``.

    Follows Triton's quick start (``docker run --gpus=1 --rm -p8000:8000 ... -v
    <repo>:/models nvcr.io/nvidia/tritonserver:<yy.mm>-py3 tritonserver
    --model-repository=/models``): the repository is mounted read-only at ``/models``, each
    port is published on ``opts.address`` only (the server inside listens on all of the
    container's interfaces), ``--shm-size`` is sized for the python backend
    (:mod:`clients.runtimes.shm`), ``--init`` forwards SIGINT to tritonserver for a clean stop, ``-e
    OMP_WAIT_POLICY=PASSIVE`` lets LibTorch's OpenMP threads sleep while they wait, as the toolkit's runs have them
    (:func:`builders.serving.torch_env.server_env`: a policy this environment names is passed instead).

    Args:
        opts: Image, ``--gpus`` (empty: none), ``--shm-size`` (``None``: computed from the
            repository), repository, address.
        ports: Published as ``<address>:<port>:<port>``.
        args: The tritonserver flags (``--model-repository=/models`` ...).
        name: ``--name`` for the container, so that it can be removed by name.
    """
    repo = str(Path(opts.repository).resolve())
    a = opts.address
    cmd = ["docker", "run", "--rm", "--init"]
    if name:
        cmd.append(f"--name={name}")
    cmd.append(f"--shm-size={opts.shm_size or _shm().default_shm_size(Path(opts.repository), opts.image)}")
    if opts.gpus:
        cmd.append(f"--gpus={opts.gpus}")
    for port in (ports.http, ports.grpc, ports.metrics):
        cmd += ["-p", f"{a}:{port}:{port}"]
    for k, v in server_env().items():  # torch's OpenMP threads sleep while they wait (builders.serving.torch_env)
        cmd += ["-e", f"{k}={v}"]
    cmd += ["-v", f"{repo}:/models:ro", opts.image, "tritonserver"]
    return cmd + args


#: ``docker run``'s own exit codes (Docker's reference, "Exit status"): the container never ran.
DOCKER_RUN_FAILED = {
    125: "docker could not start the container",
    126: "the container's command could not be invoked",
    127: "the container's command was not found",
}


#: What to use instead of a container, in every refusal of one.
_OTHER_RUNTIMES = "or use --runtime bundled (the CPU server, no Docker) or --runtime local (a tritonserver on this host)"


def docker_engine_problem() -> tuple[str, str] | None:
    """Why no container can be started now, and what to do: no ``docker`` client on PATH (nothing
    to ask an engine with), or ``docker info`` fails (the engine is not running or not reachable;
    its first line of error said); ``None``: it answers."""
    try:
        done = subprocess.run(["docker", "info"], capture_output=True, text=True, timeout=10)
    except FileNotFoundError:
        return (
            "no docker client on PATH: the container runtime runs `docker run`, and there is no `docker` command here",
            f"install Docker (its `docker` command) or put it on PATH, {_OTHER_RUNTIMES}",
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        said = f"`docker info` did not answer ({e})"
    else:
        if done.returncode == 0:
            return None
        first = next((line.strip() for line in (done.stderr or done.stdout or "").splitlines() if line.strip()), "")
        said = f"`docker info` fails (exit {done.returncode}" + (f": {first}" if first else "") + ")"
    return (
        f"the container engine is not running: {said}",
        f"start Docker (e.g. `sudo systemctl start docker`) and check `docker info` answers, {_OTHER_RUNTIMES}",
    )


def docker_engine_up() -> bool:
    """``docker info`` answers (a client alone is not enough)."""
    return docker_engine_problem() is None


def _shm() -> ModuleType:
    """:mod:`clients.runtimes.shm`, imported when a container is launched: it reads the
    repository (protobuf, numpy), which ``--help`` of every CLI must not pay for."""
    from clients.runtimes import shm

    return shm


class ContainerRuntime(Runtime):
    """NVIDIA's image under ``docker run``; the container is named after the launcher's pid and
    HTTP port and removed by a guardian when the launcher goes.

    Attributes:
        container_name: ``tritonserver-<pid>-<http port>``, set by :meth:`command`.
    """

    name = "container"
    binds_address = False  # the ports are published on the address instead

    def __init__(self, opts: ServerOptions) -> None:
        super().__init__(opts)
        self.container_name: str | None = None
        self._guardian: subprocess.Popen | None = None

    @classmethod
    def detect(cls, opts: ServerOptions) -> str | None:
        """Why ``auto`` may pick a container: ``docker`` and ``nvidia-smi`` are on PATH and the Docker engine answers."""
        if shutil.which("docker") and shutil.which("nvidia-smi") and docker_engine_up():
            return "a Docker engine and an NVIDIA GPU are available"
        return None

    def check(self) -> None:
        """Refuse a ``--shm-size`` docker would not take or below the repository's need."""
        if self.opts.shm_size:
            _shm().check_shm_size(self.opts.shm_size, Path(self.opts.repository), self.opts.image)

    def check_can_start(self) -> None:
        """The Docker engine answers (``docker info``): with it down, ``docker run`` exits 125 and
        the failure read as tritonserver's (issue 26).

        Raises:
            ServerError: no docker client on PATH, or the container engine is not running or not
                reachable (each said as what it is).
        """
        problem = docker_engine_problem()
        if problem:
            raise ServerError(f"{problem[0]}; no container can be started", hint=problem[1])

    def exited(self, code: int) -> tuple[str, str] | None:
        """``docker run``'s own exit codes (:data:`DOCKER_RUN_FAILED`): docker, not tritonserver, failed."""
        if code not in DOCKER_RUN_FAILED:
            return None
        return (
            f"docker run exited with code {code}: {DOCKER_RUN_FAILED[code]} (tritonserver never ran)",
            "read docker's message above: the container engine, the image "
            f"({self.opts.image}), a port already allocated or the --gpus request are the usual causes",
        )

    def serving_release(self) -> str | None:
        """The image (``nvcr.io/nvidia/tritonserver:24.10-py3``): its tag names the release."""
        return self.opts.image

    def shm_size(self) -> str:
        """The ``--shm-size`` passed: the given one, else the repository's computed default."""
        return self.opts.shm_size or _shm().default_shm_size(Path(self.opts.repository), self.opts.image)

    def explain(self, text: str) -> str | None:
        """The fix when a python-backend model failed for shared memory (:func:`clients.runtimes.shm.shm_failure_hint`)."""
        return _shm().shm_failure_hint(text, self.shm_size())

    def command(self, ports: Ports) -> list[str]:
        """``docker run`` of the serving image (:func:`container_command`), the repository
        mounted at ``/models``; names the container ``tritonserver-<pid>-<http port>``."""
        self.container_name = f"tritonserver-{os.getpid()}-{ports.http}"
        return container_command(self.opts, ports, self.args(ports, "/models"), self.container_name)

    def before_start(self) -> None:
        """Start the guardian that removes the container when this process dies."""
        if self.container_name:
            self._guardian = start_container_guardian(self.container_name)

    def after_stop(self) -> None:
        """Close the guardian's pipe: it removes the container (if any is left) and exits."""
        super().after_stop()
        g, self._guardian = self._guardian, None
        if g is not None:
            end_guardian(g, run=True)
