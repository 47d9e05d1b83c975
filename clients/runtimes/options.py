"""What a user asks of a tritonserver launch: :class:`ServerOptions` and the defaults it uses.

One source for every default: the click flags (``clients/cli/options.py``) read them from a
default :class:`ServerOptions`, and each runtime module reads the fields that concern it.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path

from builders.triton.releases import DEFAULT_RELEASE

#: NVIDIA's server image and the release the container runtime uses by default.
DEFAULT_IMAGE = "nvcr.io/nvidia/tritonserver"
DEFAULT_TAG = f"{DEFAULT_RELEASE}-py3"
#: tritonserver ``--model-control-mode`` values (Triton docs, "Model Management").
MODEL_CONTROL_MODES = ("explicit", "none", "poll")
#: Where servers launched without ``--log-file`` write their logs (one folder, found again by
#: the user; the launcher prints the file's path), and how many of them are kept there.
SERVER_LOG_DIR_ENV = "TRITON_TOOLKIT_LOG_DIR"
KEEP_SERVER_LOGS = 20


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


@dataclasses.dataclass
class ServerOptions:
    """How to launch tritonserver.

    Attributes:
        repository: Model repository folder.
        runtime: ``auto`` | ``bundled`` | ``local`` | ``container`` | ``remote``
            (:data:`clients.runtimes.RUNTIMES`).
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
        extra_args: Further tritonserver flags, passed through verbatim.
        start_timeout_s: Seconds to wait for readiness (default 120).
        exit_timeout_s: tritonserver `--exit-timeout-secs`: how long a stop waits for in-flight
            requests before the server exits (default 15 s; `stop()` waits 5 s longer).
        image: Container image (``runtime=container``), default ``nvcr.io/nvidia/tritonserver:24.10-py3``.
        gpus: ``docker run --gpus`` value (default ``all``).
        shm_size: ``docker run --shm-size`` in docker's size syntax (``512m``, ``2g``); default
            ``None``: computed from the repository's python-backend models
            (:mod:`clients.runtimes.shm`, at least 1g). A value docker would not take or
            below the repository's need is refused when the container runtime is used.
        binary: Path of a local tritonserver (``runtime=local``); default ``$TRITONSERVER`` or PATH.
        urls: Servers the toolkit did not start (``runtime=remote``; ``--url``), each
            ``[http://|grpc://]HOST:PORT`` (:func:`clients.runtimes.remote.parse_endpoint`);
            one for a check, one or more for a sweep (measured in parallel).
        metrics_urls: Their metrics endpoints, in the same order (default: the same host,
            HTTP port + 2, Triton's layout: 8002 beside 8000).
        remote_repository: The remote server's own model repository as it sees it, holding the
            same variant folders: variants are loaded from it by name instead of uploaded.
        max_upload_bytes: Largest load request sent to a remote server (default: the
            protocol's limit, :func:`clients.runtimes.upload.upload_limit_bytes`).
        deploy: Load each variant on the remote server (``True``), or only use models it
            already serves (``False``, ``--no-deploy``).
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
    shm_size: str | None = None
    binary: Path | None = None
    urls: Sequence[str] = ()
    metrics_urls: Sequence[str] = ()
    remote_repository: str | None = None
    max_upload_bytes: int | None = None
    deploy: bool = True
