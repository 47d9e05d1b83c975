"""What a user asks of a tritonserver launch: :class:`ServerOptions` and the defaults it uses.

One source for every flag: the tritonserver flags of ``clients serve/check``, ``python -m
clients.cli.launch``, ``triton-perf sweep`` and ``triton-perf coldstart`` are generated from the
fields of :class:`ServerOptions` (:mod:`core.options`: help, default, type, panel), and each
runtime module reads the fields that concern it. Adding a server flag is adding a field here.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Annotated

import click
from pydantic import Field
from pydantic.dataclasses import dataclass

from builders.repository.view import DEFAULT_REPOSITORY
from builders.triton.releases import DEFAULT_RELEASE
from core.options import NOT_A_FLAG, REPOSITORY, VARIANT_PATTERNS, Flag
from core.units import Duration

#: NVIDIA's server image and the release the container runtime uses by default.
DEFAULT_IMAGE = "nvcr.io/nvidia/tritonserver"
DEFAULT_TAG = f"{DEFAULT_RELEASE}-py3"
#: tritonserver ``--model-control-mode`` values (Triton docs, "Model Management").
MODEL_CONTROL_MODES = ("explicit", "none", "poll")
#: Where servers launched without ``--log-file`` write their logs (one folder, found again by
#: the user; the launcher prints the file's path), and how many of them are kept there.
SERVER_LOG_DIR_ENV = "TRITON_TOOLKIT_LOG_DIR"
KEEP_SERVER_LOGS = 20
#: The environment variable naming a local tritonserver binary (``--runtime local``).
LOCAL_ENV = "TRITONSERVER"
#: The help panels of the server flags.
SERVER_PANEL = "tritonserver"
CONTAINER_PANEL = "Container and local runtimes"
REMOTE_PANEL = "A running server (--runtime remote)"


def server_log_dir() -> Path:
    """The folder of server logs: ``$TRITON_TOOLKIT_LOG_DIR``, else
    ``$XDG_CACHE_HOME/triton-model-toolkit/server-logs`` (``~/.cache/...`` by default)."""
    if os.environ.get(SERVER_LOG_DIR_ENV):
        return Path(os.environ[SERVER_LOG_DIR_ENV])
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "triton-model-toolkit" / "server-logs"


def image_for_tag(tag: str) -> str:
    """NVIDIA's server image for a release tag: ``"24.10"`` -> ``nvcr.io/nvidia/tritonserver:24.10-py3``.

    A tag that already ends in ``-py3`` (or another suffix such as ``-py3-igpu``) is kept as is.
    """
    return f"{DEFAULT_IMAGE}:{tag if '-' in tag else tag + '-py3'}"


def runtime_help(remote: bool = True) -> str:
    """The ``--runtime`` flag's help: each choice; ``remote=False`` for a command that starts its server (the
    launcher: trial 25, T25-13 offered ``remote``, then refused it), which neither offers nor names it."""
    words = [
        "container (NVIDIA image, GPU)",
        "local (binary on PATH or $TRITONSERVER)",
        "bundled (nvidia-pytriton wheel, python backend, CPU)",
        *(["remote (a running server at --url)"] if remote else []),
        f"auto (the best available; says why{'; remote when --url is given' if remote else ''})",
    ]
    return f"Which tritonserver: {', '.join(words)}."


@dataclass
class ServerOptions:
    """How to launch tritonserver; every field but ``exit_timeout_s`` is a flag (its description
    is the flag's help; :func:`clients.cli.options.server_options`).

    Attributes:
        repository: Model repository folder (default ``model_repository``).
        runtime: ``auto`` | ``bundled`` | ``local`` | ``container`` | ``remote``
            (:data:`clients.runtimes.choose.RUNTIMES`).
        http_port, grpc_port, metrics_port: Ports; ``0`` = pick free ones.
        address: Listen address (default ``127.0.0.1``; ``0.0.0.0`` exposes the server).
        model_control: ``explicit`` (load/unload on request; for sweeps), ``none`` or ``poll``.
        load_models: Models to load at start (explicit mode): names or shell patterns such as
            ``mlp_*`` (matched against the repository's model folders); ``["*"]`` loads all.
        log_file: Server log path (default: a new file in :func:`server_log_dir`, where the
            newest :data:`KEEP_SERVER_LOGS` are kept).
        log_verbose: ``--log-verbose`` level.
        metrics_interval_ms: ``--metrics-interval-ms`` (how often gauges such as CPU/GPU
            utilisation are refreshed; default 500 ms).
        extra_args: Further tritonserver flags, passed through as given (``--server-arg``); those the
            toolkit sets itself are refused (:mod:`clients.runtimes.server_flags`).
        start_timeout_s: Seconds to wait for readiness (default 120; ``--start-timeout``).
        exit_timeout_s: tritonserver `--exit-timeout-secs`: how long a stop waits for in-flight
            requests before the server exits (default 15 s; `stop()` waits 5 s longer).
        tag: A release tag (``--tag 24.01``): the container image becomes NVIDIA's image of
            that release (:func:`image_for_tag`) unless ``image`` is set to another one.
        image: Container image (``runtime=container``), default ``nvcr.io/nvidia/tritonserver:24.10-py3``.
        gpus: ``docker run --gpus`` value (default ``all``).
        shm_size: ``docker run --shm-size`` in docker's size syntax (``512m``, ``2g``); default
            ``None``: computed from the repository's python-backend models
            (:mod:`clients.runtimes.shm`, at least 1g). A value docker would not take or
            below the repository's need is refused when the container runtime is used.
        binary: Path of a local tritonserver (``runtime=local``; ``--tritonserver``); default
            ``$TRITONSERVER`` or PATH.
        urls: Servers the toolkit did not start (``runtime=remote``; ``--url``), each
            ``[http://|grpc://]HOST:PORT`` (:func:`clients.runtimes.remote.parse_endpoint`);
            one for a check, one or more for a sweep (measured in parallel).
        metrics_urls: Their metrics endpoints, in the same order (default: the same host,
            HTTP port + 2, Triton's layout: 8002 beside 8000).
        remote_repository: The remote server's own model repository as it sees it, holding the
            same variant folders: variants are loaded from it by name instead of uploaded.
        max_upload_bytes: Largest load request sent to a remote server (``--max-upload-mb``,
            MiB; default: the protocol's limit, :func:`clients.runtimes.upload.upload_limit_bytes`).
        deploy: Load each variant on the remote server (``True``), or only use models it
            already serves (``False``, ``--no-deploy``).
        replace_models: Let the toolkit load a variant whose name a model already loaded on a
            server it did not start has (``--replace-models``); that model is loaded again from
            the server's own repository afterwards. Default ``False``: refused
            (:meth:`clients.runtimes.tenancy.Tenancy.claim`).
        given: The fields whose flags the user typed (click's parameter source, :func:`core.options.given_fields`):
            a flag typed at its default value is given too. ``None`` (a Python caller): the fields whose value is not
            their default (:func:`clients.runtimes.choose.given_server_fields`).
    """

    repository: Annotated[Path, REPOSITORY] = Field(
        default=DEFAULT_REPOSITORY, description="Model repository (one folder per variant, written by `builders build`)."
    )
    runtime: Annotated[str, Flag(choices="clients.runtimes.choose:RUNTIMES", panel=SERVER_PANEL)] = Field(
        default="auto", description=runtime_help()
    )
    http_port: Annotated[int, Flag(panel=SERVER_PANEL)] = Field(
        default=0, ge=0, le=65535, description="HTTP port (0 = a free one)."
    )
    grpc_port: Annotated[int, Flag(panel=SERVER_PANEL)] = Field(
        default=0, ge=0, le=65535, description="gRPC port (0 = a free one)."
    )
    metrics_port: Annotated[int, Flag(panel=SERVER_PANEL)] = Field(
        default=0, ge=0, le=65535, description="Prometheus metrics port (0 = a free one)."
    )
    address: Annotated[str, Flag(panel=SERVER_PANEL)] = Field(
        default="127.0.0.1", description="Listen address; 0.0.0.0 exposes the server to the network."
    )
    model_control: Annotated[str, Flag(choices=MODEL_CONTROL_MODES, panel=SERVER_PANEL)] = Field(
        default="explicit", description="--model-control-mode: explicit (load/unload on request; sweeps), none (load all), poll."
    )
    load_models: Annotated[
        tuple[str, ...], dataclasses.replace(VARIANT_PATTERNS, decls=("--load-model",), panel=SERVER_PANEL)
    ] = Field(
        default=(),
        description="Model(s) to load at start (explicit mode): names or shell patterns such as 'mlp_*', "
        "comma-separated or repeated, as --variants takes them; '*' loads all.",
    )
    log_file: Annotated[Path | None, Flag(path={"dir_okay": False}, panel=SERVER_PANEL)] = Field(
        default=None,
        description=f"Server log file [default: {server_log_dir()}/tritonserver-<time>.log; "
        f"the newest {KEEP_SERVER_LOGS} are kept; ${SERVER_LOG_DIR_ENV} moves the folder].",
    )
    log_verbose: Annotated[int, Flag(panel=SERVER_PANEL)] = Field(
        default=0, ge=0, description="tritonserver --log-verbose level."
    )
    metrics_interval_ms: Annotated[int, Flag(type=Duration("ms", integer=True), metavar="MS", panel=SERVER_PANEL)] = Field(
        default=500, ge=1, description="How often the server refreshes utilisation gauges (ms)."
    )
    extra_args: Annotated[tuple[str, ...], Flag(decls=("--server-arg",), repeat=True, metavar="FLAG", panel=SERVER_PANEL)] = (
        Field(
            default=(),
            description="Extra tritonserver flag passed through as given (repeatable), e.g. --server-arg=--log-info=false; "
            "one the toolkit sets itself or that changes what it measures or says (the repository, a port, a listen "
            "address, the model control, the log...) is refused, naming the toolkit's flag to use.",
        )
    )
    start_timeout_s: Annotated[float, Flag(decls=("--start-timeout",), type=Duration("s"), metavar="S", panel=SERVER_PANEL)] = (
        Field(
            default=120.0,
            ge=1,
            description="Seconds to wait for the server to start and for each model load it is asked for (a sweep's "
            "and a co-location run's: at most to its --time-budget's end); a load Triton says failed ends the wait at once.",
        )
    )
    exit_timeout_s: Annotated[int, NOT_A_FLAG] = 15
    tag: Annotated[str | None, Flag(panel=CONTAINER_PANEL, default_text=DEFAULT_TAG.removesuffix("-py3"))] = Field(
        default=None, description=f"Container release tag: image {DEFAULT_IMAGE}:<tag>-py3."
    )
    image: Annotated[str, Flag(panel=CONTAINER_PANEL, default_text="from --tag")] = Field(
        default=f"{DEFAULT_IMAGE}:{DEFAULT_TAG}", description="Full container image reference."
    )
    gpus: Annotated[str, Flag(panel=CONTAINER_PANEL)] = Field(
        default="all", description="docker run --gpus value (container runtime)."
    )
    shm_size: Annotated[str | None, Flag(metavar="SIZE", panel=CONTAINER_PANEL)] = Field(
        default=None,
        description="docker run --shm-size (container runtime), e.g. 2g [default: computed from the repository's "
        "python-backend models (instances x tensor sizes), at least 1g].",
    )
    binary: Annotated[Path | None, Flag(decls=("--tritonserver",), path={"dir_okay": False}, panel=CONTAINER_PANEL)] = Field(
        default=None, description=f"Local tritonserver binary (local runtime) [default: ${LOCAL_ENV}, else PATH]."
    )
    urls: Annotated[tuple[str, ...], Flag(decls=("--url",), metavar="[http://|grpc://]HOST:PORT[,...]", panel=REMOTE_PANEL)] = (
        Field(
            default=(),
            description="A running Triton the toolkit did not start (--runtime remote): its HTTP endpoint (or grpc://HOST:PORT); "
            "gRPC and metrics follow Triton's layout (HTTP+1, HTTP+2: 8001, 8002 beside 8000). One server, except "
            "`triton-perf sweep`, which takes several (a comma list) and measures variants on them in parallel.",
        )
    )
    metrics_urls: Annotated[tuple[str, ...], Flag(decls=("--metrics-url",), metavar="HOST:PORT[,...]", panel=REMOTE_PANEL)] = (
        Field(
            default=(),
            description="Metrics endpoint of each --url server, in the same order [default: the same host, HTTP port + 2].",
        )
    )
    remote_repository: Annotated[str | None, Flag(metavar="PATH", panel=REMOTE_PANEL)] = Field(
        default=None,
        description="The remote server's model repository as it sees it, holding the same variant folders: variants "
        "are loaded from it by name instead of uploaded (needed above the upload limit).",
    )
    max_upload_bytes: Annotated[
        int | None,
        Flag(decls=("--max-upload-mb",), scale=2**20, type=click.FloatRange(0, min_open=True), panel=REMOTE_PANEL),
    ] = Field(
        default=None,
        description="Largest load request uploaded to a remote server, MiB [default: Triton's limit: 64 MiB over HTTP "
        "(--http-max-input-size), 2 GiB over gRPC].",
    )
    deploy: Annotated[bool, Flag(decls=("--no-deploy",), panel=REMOTE_PANEL)] = Field(
        default=True,
        description="Remote server: load nothing, use only the models it already serves (like Model Analyzer's remote mode).",
    )
    replace_models: Annotated[bool, Flag(panel=REMOTE_PANEL)] = Field(
        default=False,
        description="Remote server: load a variant even where a model of that name, loaded by someone else, is served, "
        "instead of refusing it; that model is loaded again from the server's own repository afterwards.",
    )
    given: Annotated[frozenset[str] | None, NOT_A_FLAG] = None

    def __post_init__(self) -> None:
        if self.tag is not None and self.image == f"{DEFAULT_IMAGE}:{DEFAULT_TAG}":
            self.image = image_for_tag(self.tag)
