"""The ``remote`` runtime: a Triton the toolkit did not start (``--runtime remote --url HOST:PORT``).

Nothing is launched. :meth:`RemoteRuntime.check` asks the server whether it is live, reads
its version and extensions (server metadata) and, when variants are to be deployed, whether
it is in explicit model-control mode; :meth:`RemoteRuntime.load_model` deploys a variant of
the local repository through Triton's model-repository API (Triton docs, "Model Repository
Extension": the ``config`` and ``file:<version>/<name>`` load parameters, tritonclient's
``load_model(name, config=..., files=...)``).

Facts this module follows, checked on the bundled Triton 2.51 (tests/clients/runtimes/test_remote_integration.py):

- A load or unload request on a server in ``none`` or ``poll`` model-control mode fails with
  ``explicit model load / unload is not allowed if polling is enabled`` (HTTP 503); an unload
  of an unknown model succeeds in ``explicit`` mode. An unload of a name no model has is
  therefore the harmless probe of the mode (:data:`MODE_PROBE_MODEL`).
- A model loaded from an uploaded config must have the name its config gives (else the server
  logs ``directory name must equal model name`` and answers ``failed to poll from model
  repository``); Triton accepts the config as protobuf JSON, field names as in
  ``config.pbtxt`` (``max_batch_size``) or lowerCamelCase.
- Request size: see :mod:`clients.runtimes.upload`; above the limit a variant is refused with the
  way out: ``--remote-repository PATH``, a repository the server reads, from which variants
  are loaded by name.

Ports: ``--url`` gives one endpoint, ``[http://|grpc://]HOST:PORT`` (without a scheme: HTTP).
The others follow Triton's default layout (HTTP, gRPC = HTTP + 1, metrics = HTTP + 2: 8000,
8001, 8002): ``--metrics-url`` overrides the metrics endpoint, and the gRPC endpoint is asked
whether it answers before anything is measured over it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import socket
import urllib.parse
from pathlib import Path
from typing import Any

from clients.runtimes.base import Ports, Runtime
from clients.runtimes.diagnosis import first_line
from clients.runtimes.host import not_ours
from clients.runtimes.identity import found_artifact, uploaded_artifact, with_upload_token
from clients.runtimes.options import ServerOptions
from clients.runtimes.served import Delivery
from clients.runtimes.upload import deploy_payload, limit_source, mib, request_bytes, upload_limit_bytes
from core.errors import ServerError
from core.wording import count

log = logging.getLogger(__name__)


def load_failed(url: str, model: str, e: BaseException) -> ServerError:
    """The error of a load request the server at ``url`` (``host:port``), which the toolkit did not start, refused or
    did not answer: Triton's words and where that server's log is (:func:`clients.runtimes.host.not_ours`), never a
    log file of this host (s16's left open: it named a launcher's log path no server had written)."""
    said = getattr(e, "message", None)  # tritonclient's InferenceServerException.message()
    why = first_line(said()) if callable(said) else f"{type(e).__name__}: {e}"  # no python stub's frames (T25-21)
    return ServerError(f"the server at http://{url} could not load model {model!r}: {why}", hint=not_ours(url))


#: The model name whose unload request probes the model-control mode (no model has it).
MODE_PROBE_MODEL = "__triton_toolkit_mode_probe__"
#: Triton's answer to a load/unload request in ``none``/``poll`` mode.
NOT_EXPLICIT = "explicit model load / unload is not allowed"
#: The extension a server needs to load and unload models on request.
REPOSITORY_EXTENSION = "model_repository"
#: Offsets of Triton's default port layout from the HTTP port (8000, 8001, 8002).
GRPC_OFFSET, METRICS_OFFSET = 1, 2
#: Host names and addresses that mean this machine.
LOOPBACK = ("localhost", "127.0.0.1", "::1", "0.0.0.0")


@dataclasses.dataclass(frozen=True)
class Endpoint:
    """Where one remote server answers: ``host:port`` strings, as tritonclient and perf_analyzer take them.

    Attributes:
        given: The ``--url`` item as the user wrote it.
        host: Its host.
        http_url, grpc_url: ``host:port`` of its HTTP and gRPC endpoints (one given, the
            other by Triton's default layout).
        metrics_url: ``host:port/metrics`` (``--metrics-url`` or the default layout).
        protocol: The protocol of the given endpoint (``http`` or ``grpc``).
    """

    given: str
    host: str
    http_url: str
    grpc_url: str
    metrics_url: str
    protocol: str

    @property
    def ports(self) -> Ports:
        """The HTTP, gRPC and metrics ports of the three endpoints."""
        return Ports(*(int(u.split("/")[0].rsplit(":", 1)[1]) for u in (self.http_url, self.grpc_url, self.metrics_url)))


def parse_endpoint(url: str, metrics_url: str | None = None) -> Endpoint:
    """One ``--url`` item: ``HOST:PORT``, ``http://HOST:PORT`` or ``grpc://HOST:PORT``.

    Args:
        url: The item.
        metrics_url: ``[http://]HOST:PORT[/metrics]`` of its metrics endpoint (default: the
            same host, HTTP port + 2, Triton's layout).

    Raises:
        ServerError: not ``[SCHEME://]HOST:PORT`` with a scheme of ``http`` or ``grpc``.
    """
    text = url.strip()
    parts = urllib.parse.urlsplit(text if "://" in text else f"http://{text}")
    try:
        port = parts.port
    except ValueError:
        port = None
    if parts.scheme not in ("http", "grpc") or not parts.hostname or port is None or parts.path not in ("", "/"):
        raise ServerError(
            f"--url {url!r} is not [http://|grpc://]HOST:PORT",
            hint="give the server's HTTP endpoint (e.g. 10.0.0.5:8000) or its gRPC one (grpc://10.0.0.5:8001); "
            "several servers: a comma list",
            flag="--url",
        )
    host = parts.hostname
    netloc = f"[{host}]" if ":" in host else host
    http = port if parts.scheme == "http" else port - GRPC_OFFSET
    if metrics_url:
        m = urllib.parse.urlsplit(metrics_url if "://" in metrics_url else f"http://{metrics_url}")
        metrics = f"{m.netloc}{m.path if m.path not in ('', '/') else '/metrics'}"
    else:
        metrics = f"{netloc}:{http + METRICS_OFFSET}/metrics"
    return Endpoint(text, host, f"{netloc}:{http}", f"{netloc}:{http + GRPC_OFFSET}", metrics, parts.scheme)


def host_key(host: str) -> str:
    """Which machine ``host`` is, as far as this one can tell: ``"this host"`` for a loopback
    name or one of this machine's own addresses, else its resolved address (the name when it
    does not resolve)."""
    if host in LOOPBACK or host.startswith("127."):
        return "this host"
    try:
        addr = socket.gethostbyname(host)
    except OSError:
        return host
    own = {"127.0.0.1"}
    with contextlib.suppress(OSError):
        own |= set(socket.gethostbyname_ex(socket.gethostname())[2])
    return "this host" if addr in own or addr.startswith("127.") else addr


def _message(e: Exception) -> str:
    msg = getattr(e, "message", None)
    return str(msg() if callable(msg) else e)


class RemoteRuntime(Runtime):
    """A running Triton reached by URL (see the module docstring).

    Attributes:
        endpoint: Where it answers.
        metadata: Its server metadata (``name``, ``version``, ``extensions``) once checked.
        explicit: Whether it is in explicit model-control mode (``None``: not asked).
    """

    name = "remote"
    launches = False

    def __init__(self, opts: ServerOptions) -> None:
        super().__init__(opts)
        if len(opts.urls) != 1:
            raise ServerError(
                f"the remote runtime talks to one server here, got {len(opts.urls)} --url values",
                hint="pass --url HOST:PORT (several servers in parallel: `triton-perf sweep --url a,b`)",
                flag="--url",
            )
        metrics = opts.metrics_urls[0] if opts.metrics_urls else None
        self.endpoint = parse_endpoint(opts.urls[0], metrics)
        self.metadata: dict[str, Any] = {}
        self.explicit: bool | None = None

    def host(self) -> str:
        """The host of the ``--url`` endpoint."""
        return self.endpoint.host

    def fixed_ports(self) -> Ports:
        """The endpoint's ports: the server chose them, not the toolkit."""
        return self.endpoint.ports

    def endpoints(self, ports: Ports) -> tuple[str, str, str]:
        """The endpoint's HTTP, gRPC and metrics addresses (``ports`` is not used)."""
        e = self.endpoint
        return e.http_url, e.grpc_url, e.metrics_url

    def command(self, ports: Ports) -> list[str]:
        """No command: nothing is launched."""
        return []

    def unloads(self) -> bool:
        """Whether the toolkit loads and unloads models there: not with ``--no-deploy`` (those
        models were loaded by someone else and stay)."""
        return self.opts.deploy

    def serving_release(self) -> str | None:
        """The server's version from its metadata (known once :meth:`check` ran)."""
        return self.version

    def on_this_host(self) -> bool:
        """Whether ``--url`` names this machine (:func:`host_key`)."""
        return host_key(self.endpoint.host) == "this host"

    def mismatch_hint(self) -> str:
        """What to do when the served model is not the local variant, by how it got there."""
        if not self.opts.deploy:
            return "load the local variant there, or drop --no-deploy so that the toolkit deploys it"
        if self.opts.remote_repository:
            return (
                f"the copy in the server's repository ({self.opts.remote_repository}) is not the local variant: copy "
                f"{self.opts.repository}/<variant> there again, or drop --remote-repository to upload it"
            )
        return super().mismatch_hint()

    def check(self) -> None:
        """Ask the server whether it is live; read its metadata; with deploying on, check it can
        load models on request (the repository extension, explicit model control).

        Raises:
            ServerError: it does not answer; it lacks the repository extension or is not in
                explicit model-control mode while variants are to be deployed.
        """
        import tritonclient.http as th

        url = self.endpoint.http_url
        try:
            with contextlib.closing(th.InferenceServerClient(url, connection_timeout=5, network_timeout=10)) as c:
                live = c.is_server_live()
                self.metadata = c.get_server_metadata()
                if self.opts.deploy:
                    self.explicit = self._probe_explicit(c)
        except Exception as e:  # noqa: BLE001 - refused, unknown host, timeout: one message
            raise ServerError(
                f"no Triton server answers at http://{url} (from --url {self.endpoint.given}"
                + (
                    ": health and metadata are read over HTTP, at the gRPC port - 1 in Triton's default layout"
                    if self.endpoint.protocol == "grpc"
                    else ""
                )
                + f"): {type(e).__name__}: {_message(e)}",
                hint="check the address and that the server runs (curl http://HOST:PORT/v2/health/live); through "
                "Kubernetes: kubectl port-forward POD 8000:8000 8001:8001 8002:8002",
            ) from None
        if not live:
            raise ServerError(f"the Triton server at http://{url} answers but is not live", hint=not_ours(url))
        if not self.opts.deploy:
            return
        extensions = self.metadata.get("extensions") or []
        if REPOSITORY_EXTENSION not in extensions:
            raise ServerError(
                f"the Triton server at {url} (version {self.version}) lacks the {REPOSITORY_EXTENSION!r} extension: "
                "it cannot load the variants on request",
                hint="start it with a repository extension (a standard tritonserver build), or sweep the models it "
                "already serves with --no-deploy",
            )
        if not self.explicit:
            raise ServerError(
                f"the Triton server at {url} is not in explicit model-control mode: it refused a model unload request "
                f"({NOT_EXPLICIT} if polling is enabled), so the toolkit cannot deploy variants on it",
                hint="restart it with --model-control-mode=explicit, or sweep the models it already serves with --no-deploy",
            )

    @staticmethod
    def _probe_explicit(client: Any) -> bool:
        """Whether ``client``'s server takes unload requests (explicit mode): an unload of a name
        no model has (module docstring)."""
        from tritonclient.utils import InferenceServerException

        try:
            client.unload_model(MODE_PROBE_MODEL)
        except InferenceServerException as e:
            if NOT_EXPLICIT in _message(e):
                return False
            raise
        return True

    @property
    def version(self) -> str | None:
        """The server's version (server metadata), once checked."""
        return self.metadata.get("version")

    def grpc_answers(self) -> bool:
        """Whether the gRPC endpoint answers as live."""
        import tritonclient.grpc as tg

        try:
            with contextlib.closing(tg.InferenceServerClient(self.endpoint.grpc_url)) as c:
                return bool(c.is_server_live(client_timeout=5))
        except Exception:  # noqa: BLE001 - not there
            return False

    def load_model(self, client: Any, model: str) -> Delivery | None:
        """Deploy ``model`` (a variant of the local repository) on the server.

        - ``--no-deploy``: nothing is sent; the model must already be ready there.
        - ``--remote-repository PATH``: loaded by name from the server's own repository
          (which the user says is PATH, holding the same variant folders).
        - otherwise: its ``config.pbtxt`` (as protobuf JSON, with a one-time upload token:
          :func:`clients.runtimes.served.with_upload_token`) and the files of its version
          folders are sent in the load request, over gRPC when that endpoint answers.

        Returns:
            What was sent or found: an upload's files by SHA-256 and its token; for a load by
            name the files at PATH when PATH is readable here (a server on this host), else
            nothing known; nothing for ``--no-deploy``.

        Raises:
            ServerError: not loaded (``--no-deploy``); not in the server's repository (load by
                name); the upload is above the limit.
            Exception: what tritonclient raises when the server refuses or does not answer
                (the caller, :meth:`clients.server.TritonServer.load`, words it).
        """
        if not self.opts.deploy:
            if not client.is_model_ready(model):
                raise ServerError(
                    f"{model} is not loaded on the server at {self.endpoint.http_url} (--no-deploy measures only the models "
                    "it already serves)",
                    hint="load it there first, or drop --no-deploy so that the toolkit deploys it",
                )
            return None
        if self.opts.remote_repository:
            listed = {m.get("name") for m in client.get_model_repository_index()}
            if model not in listed:
                raise ServerError(
                    f"{model} is not in the repository of the server at {self.endpoint.http_url} "
                    f"(--remote-repository {self.opts.remote_repository}); nothing was loaded",
                    hint=f"copy {Path(self.opts.repository) / model} to {self.opts.remote_repository}/{model} where the "
                    "server runs (the server must have been started on that repository)",
                )
            client.load_model(model)
            there = Path(self.opts.remote_repository) / model
            return Delivery(found_artifact(there) if self.on_this_host() and there.is_dir() else None)
        folder = Path(self.opts.repository) / model
        config, files = deploy_payload(folder)
        artifact = uploaded_artifact(folder, files)
        config, token = with_upload_token(config, artifact)
        protocol = "grpc" if self.grpc_answers() else "http"
        size = request_bytes(config, files, protocol)
        limit = self.opts.max_upload_bytes or upload_limit_bytes(protocol)
        if size > limit:
            raise ServerError(
                f"uploading {model} means a load request of {mib(size)} over {protocol}, above the "
                f"{mib(limit)} limit ({limit_source(protocol, self.opts.max_upload_bytes)}); nothing was sent. Copy the "
                "variant folders where the server reads its repository and pass --remote-repository PATH (that folder "
                "as the server sees it): variants are then loaded by name",
                hint="or raise the server's limit (tritonserver --http-max-input-size) and --max-upload-mb",
            )
        log.info("%s: uploading %s, %s, over %s (token %s)", model, count(len(files), "file"), mib(size), protocol, token)
        if protocol == "grpc":
            import tritonclient.grpc as tg

            with contextlib.closing(tg.InferenceServerClient(self.endpoint.grpc_url)) as g:
                g.load_model(model, config=config, files=files, client_timeout=self.opts.start_timeout_s)
        else:
            client.load_model(model, config=config, files=files)
        return Delivery(artifact, token)
