"""The one interface every server runtime implements.

:class:`clients.server.TritonServer` owns what all runtimes share: the ports, the log file,
readiness polling, the repository API (load/unload) and the clean stop. A :class:`Runtime`
says only what differs between kinds of tritonserver:

- whether its server is available here (:meth:`Runtime.check`, with what to install) and,
  for ``auto``, why it would be chosen (:meth:`Runtime.detect`);
- the exact command line (:meth:`Runtime.command`) and the extra environment
  (:meth:`Runtime.environment`);
- whether tritonserver itself binds the listen address (:attr:`Runtime.binds_address`; in a
  container the ports are published on it instead);
- what runs beside the server and must go with it (:meth:`Runtime.before_start`,
  :meth:`Runtime.after_stop`; the container's guardian).

A runtime that starts nothing (``launches = False``; the ``remote`` runtime: a Triton the
toolkit did not start) gives its endpoints (:meth:`Runtime.endpoints`), how a model is loaded
there (:meth:`Runtime.load_model`: uploaded through the repository API) and whether what was
measured is unloaded (:meth:`Runtime.unloads`); ``TritonServer`` then only checks readiness,
talks to it, and leaves it running when it stops.
"""

from __future__ import annotations

import abc
import dataclasses
from typing import Any, ClassVar

from builders.serving.torch_env import server_env
from clients.runtimes.host import HeldPorts
from clients.runtimes.identity import found_artifact
from clients.runtimes.options import ServerOptions
from clients.runtimes.served import Delivery
from clients.runtimes.server_flags import passed_value, server_arg_refusal


@dataclasses.dataclass(frozen=True)
class Ports:
    """The three ports of one server (HTTP, gRPC, Prometheus metrics)."""

    http: int
    grpc: int
    metrics: int


#: tritonserver's default ports (``tritonserver --help``: ``--http-port`` 8000, ``--grpc-port``
#: 8001, ``--metrics-port`` 8002): what a server the toolkit did not start listens on.
TRITON_DEFAULT_PORTS = Ports(http=8000, grpc=8001, metrics=8002)


def server_args(opts: ServerOptions, ports: Ports, repository: str, *, bind_address: bool = True) -> list[str]:
    """The tritonserver flags common to every runtime (Triton docs, ``tritonserver --help``).

    Args:
        opts: The launch options (model control, models to load, log level, metrics
            interval, exit timeout, extra flags appended verbatim at the end).
        ports: The ports the server listens on.
        repository: ``--model-repository`` as the server sees it (a path inside a container).
        bind_address: Add ``--http-address/--grpc-address/--metrics-address=opts.address``.
    """
    args = [
        f"--model-repository={repository}",
        f"--http-port={ports.http}",
        f"--grpc-port={ports.grpc}",
        f"--metrics-port={ports.metrics}",
        f"--model-control-mode={opts.model_control}",
        f"--metrics-interval-ms={opts.metrics_interval_ms}",
        f"--log-verbose={opts.log_verbose}",
        "--allow-metrics=true",
        "--allow-cpu-metrics=true",
        "--strict-readiness=false",
        f"--exit-timeout-secs={opts.exit_timeout_s}",
    ]
    if bind_address:
        args += [f"--http-address={opts.address}", f"--grpc-address={opts.address}", f"--metrics-address={opts.address}"]
    for m in opts.load_models:
        args.append(f"--load-model={m}")
    return [*args, *opts.extra_args]


class Runtime(abc.ABC):
    """How one kind of tritonserver is started (see the module docstring).

    Attributes:
        name: The ``--runtime`` value (``bundled``, ``local``, ``container``, ``remote``).
        launches: Whether the toolkit starts and stops the server process.
        binds_address: Whether tritonserver binds ``opts.address`` itself.
        backends: The Triton backends its server has, when known (the bundled server: python only).
        opts: The launch options.
    """

    name: ClassVar[str]
    launches: ClassVar[bool] = True
    binds_address: ClassVar[bool] = True
    #: The ports its server binds, held for it from the launcher's choice until it stops (:class:`HeldPorts`).
    held: HeldPorts | None = None
    #: The Triton backends its server has (``None``: not known here, whatever the server was built with).
    backends: ClassVar[tuple[str, ...] | None] = None

    def __init__(self, opts: ServerOptions) -> None:
        """Keep ``opts``.

        Raises:
            FlagError: a ``--server-arg`` this runtime's server does not take from the user: one the toolkit
                sets itself or that changes what it measures or says, or any with a server it does not start
                (:func:`clients.runtimes.server_flags.server_arg_refusal`), before anything is started.
        """
        if (refused := server_arg_refusal(opts.extra_args, self.name if self.launches else "remote")) is not None:
            raise refused
        self.opts = opts

    @classmethod
    def detect(cls, opts: ServerOptions) -> str | None:
        """Why ``auto`` may pick this runtime here (a sentence), or ``None`` when it cannot."""
        return None

    def check(self) -> None:  # noqa: B027 - an optional hook: a runtime with nothing to check keeps it
        """Raise :class:`core.errors.ServerError` (with what to install) when the server is not available."""

    def check_can_start(self) -> None:  # noqa: B027 - an optional hook
        """Raise :class:`core.errors.ServerError` when the server cannot be started now (a container
        engine that does not answer); :meth:`check` alone decides what ``--print-cmd`` prints."""

    def exited(self, code: int) -> tuple[str, str] | None:
        """``(what exited, what to do)`` when exit ``code`` during start-up is the launcher's own,
        not tritonserver's (``docker run``'s 125: docker could not start the container); ``None``:
        tritonserver's."""
        return None

    @abc.abstractmethod
    def command(self, ports: Ports) -> list[str]:
        """The exact command line that starts the server on ``ports``."""

    def environment(self) -> dict[str, str]:
        """Environment variables added to the launcher's for the server process."""
        return {}

    def wait_policy(self) -> str | None:
        """The OpenMP wait policy of torch (``OMP_WAIT_POLICY``) the server runs with, as every runtime that starts one
        passes it (its environment or ``docker run -e``: :func:`builders.serving.torch_env.server_env`); ``None``
        for a server the toolkit did not start (not known here). Recorded with the run's server."""
        return server_env()["OMP_WAIT_POLICY"] if self.launches else None

    def host(self) -> str:
        """The host clients connect to: ``localhost`` for a loopback or wildcard address."""
        a = self.opts.address
        return "localhost" if a in ("0.0.0.0", "127.0.0.1") else a

    def before_start(self) -> None:  # noqa: B027 - an optional hook
        """Start what must run beside the server (called just before the server process)."""

    def after_stop(self) -> None:
        """Clean up what :meth:`before_start` started and the server left, and let its :attr:`held` ports go (safe to
        call twice)."""
        if self.held is not None:
            self.held.release()

    def explain(self, text: str) -> str | None:
        """What to do about a failure this runtime causes, recognised in ``text`` (Triton's
        error message or the server log), e.g. a container's ``/dev/shm`` too small for the
        python backend; ``None`` when it recognises nothing."""
        return None

    def fixed_ports(self) -> Ports | None:
        """The ports of a server this runtime does not choose (a remote one's); ``None``: chosen at launch."""
        return None

    def endpoints(self, ports: Ports) -> tuple[str, str, str]:
        """``(http, grpc, metrics)`` as ``host:port`` (metrics: ``host:port/metrics``)."""
        host = self.host()
        return f"{host}:{ports.http}", f"{host}:{ports.grpc}", f"{host}:{ports.metrics}/metrics"

    def load_model(self, client: Any, model: str) -> Delivery | None:
        """Ask the server behind ``client`` (tritonclient HTTP) to load ``model`` from its
        repository; returns what it was asked to load (the model folder's files, by size and mtime)."""
        from pathlib import Path

        client.load_model(model)
        return Delivery(found_artifact(Path(self.opts.repository) / model))

    def unloads(self) -> bool:
        """Whether the toolkit loads models there and unloads them after use (not with
        ``--no-deploy``: those models are the server's own and stay)."""
        return True

    def serving_release(self) -> str | None:
        """The Triton release its server is, as :func:`builders.triton.releases.release` reads it
        (a container image or tag, a server version); ``None`` when not known before it runs."""
        return None

    def on_this_host(self) -> bool:
        """Whether the server runs on this machine (its cores are this host's)."""
        return True

    def mismatch_hint(self) -> str:
        """What to do when the server runs a variant with other settings than its
        ``config.pbtxt`` (the hint of :meth:`clients.runtimes.tenancy.Tenancy.load`'s error)."""
        return (
            "the server changed the config when it loaded it (Triton's auto-complete fills in fields a config leaves "
            "out): state the field in the variant's config.pbtxt, or start the server with "
            "--server-arg=--disable-auto-complete-config"
        )

    def stop_wait_s(self) -> float:
        """How long a stop waits for the server to exit: its ``--exit-timeout-secs`` (``opts.exit_timeout_s``, or
        the one passed through, which tritonserver takes: the last given) and 5 s more, so a draining server is
        never killed early."""
        given = passed_value(self.opts.extra_args, "--exit-timeout-secs")
        return (int(given) if given and given.isdigit() else self.opts.exit_timeout_s) + 5

    def args(self, ports: Ports, repository: str) -> list[str]:
        """:func:`server_args` for this runtime (address bound or not)."""
        return server_args(self.opts, ports, repository, bind_address=self.binds_address)
