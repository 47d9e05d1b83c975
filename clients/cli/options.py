"""Click option groups shared by the CLIs (``clients serve/check``, ``python -m clients.cli.launch``,
``perf``), defined once as decorators.

This module imports neither tritonclient nor torch, so ``--help`` stays fast.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from builders.repository.view import DEFAULT_REPOSITORY
from clients.runtimes.choose import RUNTIMES
from clients.runtimes.local import LOCAL_ENV
from clients.runtimes.options import (
    DEFAULT_IMAGE,
    DEFAULT_TAG,
    KEEP_SERVER_LOGS,
    MODEL_CONTROL_MODES,
    SERVER_LOG_DIR_ENV,
    ServerOptions,
    image_for_tag,
    server_log_dir,
)
from core.cli import list_option

F = Callable[..., Any]
#: Defaults shown by the flags are the API's (ServerOptions), defined once there.
_D = ServerOptions(repository=DEFAULT_REPOSITORY)

#: What an omitted flag (``server_options(omit=...)``) stands for: the flag's default.
_OMITTED: dict[str, Any] = {
    "runtime": _D.runtime,
    "http_port": 0,
    "grpc_port": 0,
    "metrics_port": 0,
    "address": _D.address,
    "model_control": _D.model_control,
    "load_models": (),
    "log_file": None,
    "log_verbose": _D.log_verbose,
    "metrics_interval_ms": _D.metrics_interval_ms,
    "server_args": (),
    "start_timeout": _D.start_timeout_s,
    "tag": DEFAULT_TAG,
    "image": None,
    "gpus": _D.gpus,
    "shm_size": _D.shm_size,
    "tritonserver": None,
    "urls": (),
    "metrics_urls": (),
    "remote_repository": None,
    "max_upload_mb": None,
    "no_deploy": False,
}

#: The keyword names the server decorator consumes (and removes) before calling the command.
SERVER_KEYS = (
    "runtime",
    "http_port",
    "grpc_port",
    "metrics_port",
    "address",
    "model_control",
    "load_models",
    "log_file",
    "log_verbose",
    "metrics_interval_ms",
    "server_args",
    "start_timeout",
    "tag",
    "image",
    "gpus",
    "shm_size",
    "tritonserver",
    "urls",
    "metrics_urls",
    "remote_repository",
    "max_upload_mb",
    "no_deploy",
)
#: The flags of a server the toolkit did not start (``--runtime remote``).
REMOTE_KEYS = ("urls", "metrics_urls", "remote_repository", "max_upload_mb", "no_deploy")


def server_options(fn: F | None = None, *, repository_flag: bool = True, omit: tuple[str, ...] = ()) -> Any:
    """Add the tritonserver launch flags to a click command; it receives ``server_opts``.

    Use as ``@server_options`` (also adds ``-r/--repository``, default ``model_repository``)
    or ``@server_options(repository_flag=False)`` when the command declares its own
    ``--repository`` option: its value must then arrive as the ``repository`` keyword, which
    is read and left in place for the command. ``omit`` names flags (by their keyword, e.g.
    ``"model_control"``) the command must not offer because it sets them itself (the sweep:
    model control, models to load, log file); they take :class:`ServerOptions`'s defaults.

    The command gets ``server_opts: ServerOptions`` instead of the individual flags.
    Flags: ``--runtime``, ``--http-port/--grpc-port/--metrics-port`` (0 = free),
    ``--address``, ``--model-control``, ``--load-model`` (repeatable), ``--log-file``,
    ``--log-verbose``, ``--metrics-interval-ms``, ``--server-arg`` (repeatable, passed to
    tritonserver verbatim), ``--start-timeout``, ``--tag``/``--image`` (container),
    ``--gpus``, ``--shm-size``, ``--tritonserver`` (local binary).
    """
    if fn is None:
        return functools.partial(server_options, repository_flag=repository_flag, omit=omit)
    unknown = set(omit) - set(SERVER_KEYS)
    if unknown:
        raise ValueError(f"server_options(omit=...): unknown flags {sorted(unknown)}")

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        v = {k: kwargs.pop(k) if k not in omit else _OMITTED[k] for k in SERVER_KEYS}
        repository = kwargs.pop("server_repository") if repository_flag else kwargs.get("repository")
        if repository is None:
            raise click.UsageError("a model repository is needed (--repository)")
        opts = ServerOptions(
            repository=Path(repository),
            runtime=v["runtime"],
            http_port=v["http_port"],
            grpc_port=v["grpc_port"],
            metrics_port=v["metrics_port"],
            address=v["address"],
            model_control=v["model_control"],
            load_models=tuple(v["load_models"]),
            log_file=v["log_file"],
            log_verbose=v["log_verbose"],
            metrics_interval_ms=v["metrics_interval_ms"],
            extra_args=tuple(v["server_args"]),
            start_timeout_s=v["start_timeout"],
            image=v["image"] or image_for_tag(v["tag"]),
            gpus=v["gpus"],
            shm_size=v["shm_size"],
            binary=v["tritonserver"],
            urls=tuple(v["urls"]),
            metrics_urls=tuple(v["metrics_urls"]),
            remote_repository=v["remote_repository"],
            max_upload_bytes=int(v["max_upload_mb"] * 2**20) if v["max_upload_mb"] else None,
            deploy=not v["no_deploy"],
        )
        return fn(*args, server_opts=opts, **kwargs)

    port = click.IntRange(0, 65535)
    options: list[tuple[str, Any]] = [
        (
            "runtime",
            click.option(
                "--runtime",
                type=click.Choice(RUNTIMES),
                default=_D.runtime,
                help="Which tritonserver: container (NVIDIA image, GPU), local (binary on PATH or $TRITONSERVER), "
                "bundled (nvidia-pytriton wheel, python backend, CPU), remote (a running server at --url), "
                "auto (the best available; says why; remote when --url is given).",
            ),
        ),
        ("http_port", click.option("--http-port", type=port, default=0, help="HTTP port (0 = a free one).")),
        ("grpc_port", click.option("--grpc-port", type=port, default=0, help="gRPC port (0 = a free one).")),
        ("metrics_port", click.option("--metrics-port", type=port, default=0, help="Prometheus metrics port (0 = a free one).")),
        (
            "address",
            click.option("--address", default=_D.address, help="Listen address; 0.0.0.0 exposes the server to the network."),
        ),
        (
            "model_control",
            click.option(
                "--model-control",
                "model_control",
                type=click.Choice(MODEL_CONTROL_MODES),
                default=_D.model_control,
                help="--model-control-mode: explicit (load/unload on request; sweeps), none (load all), poll.",
            ),
        ),
        (
            "load_models",
            click.option(
                "--load-model",
                "load_models",
                multiple=True,
                metavar="NAME|PATTERN",
                help="Model(s) to load at start (explicit mode; repeatable): a name or a shell pattern such as "
                "'mlp_*', as --variants takes them; '*' loads all.",
            ),
        ),
        (
            "log_file",
            click.option(
                "--log-file",
                type=click.Path(dir_okay=False, path_type=Path),
                default=None,
                help=f"Server log file [default: {server_log_dir()}/tritonserver-<time>.log; "
                f"the newest {KEEP_SERVER_LOGS} are kept; ${SERVER_LOG_DIR_ENV} moves the folder].",
            ),
        ),
        (
            "log_verbose",
            click.option(
                "--log-verbose", type=click.IntRange(0), default=_D.log_verbose, help="tritonserver --log-verbose level."
            ),
        ),
        (
            "metrics_interval_ms",
            click.option(
                "--metrics-interval-ms",
                type=click.IntRange(1),
                default=_D.metrics_interval_ms,
                help="How often the server refreshes utilisation gauges (ms).",
            ),
        ),
        (
            "server_args",
            click.option(
                "--server-arg",
                "server_args",
                multiple=True,
                metavar="FLAG",
                help="Extra tritonserver flag passed through verbatim (repeatable), e.g. --server-arg=--log-info=false.",
            ),
        ),
        (
            "start_timeout",
            click.option(
                "--start-timeout",
                type=click.FloatRange(1),
                default=_D.start_timeout_s,
                help="Seconds to wait for the server to become ready.",
            ),
        ),
        (
            "tag",
            click.option(
                "--tag", default=DEFAULT_TAG.removesuffix("-py3"), help=f"Container release tag: image {DEFAULT_IMAGE}:<tag>-py3."
            ),
        ),
        ("image", click.option("--image", default=None, help="Full container image reference [default: from --tag].")),
        ("gpus", click.option("--gpus", default=_D.gpus, help="docker run --gpus value (container runtime).")),
        (
            "shm_size",
            click.option(
                "--shm-size",
                default=_D.shm_size,
                metavar="SIZE",
                help="docker run --shm-size (container runtime), e.g. 2g [default: computed from the repository's "
                "python-backend models (instances x tensor sizes), at least 1g].",
            ),
        ),
        (
            "tritonserver",
            click.option(
                "--tritonserver",
                type=click.Path(dir_okay=False, path_type=Path),
                default=None,
                help=f"Local tritonserver binary (local runtime) [default: ${LOCAL_ENV}, else PATH].",
            ),
        ),
        (
            "urls",
            list_option(
                "--url",
                "urls",
                metavar="[http://|grpc://]HOST:PORT[,...]",
                help="A running Triton the toolkit did not start (--runtime remote): its HTTP endpoint (or grpc://HOST:PORT); "
                "gRPC and metrics follow Triton's layout (HTTP+1, HTTP+2: 8001, 8002 beside 8000). Several (a comma "
                "list): a sweep measures variants on them in parallel.",
            ),
        ),
        (
            "metrics_urls",
            list_option(
                "--metrics-url",
                "metrics_urls",
                metavar="HOST:PORT[,...]",
                help="Metrics endpoint of each --url server, in the same order [default: the same host, HTTP port + 2].",
            ),
        ),
        (
            "remote_repository",
            click.option(
                "--remote-repository",
                metavar="PATH",
                default=None,
                help="The remote server's model repository as it sees it, holding the same variant folders: variants "
                "are loaded from it by name instead of uploaded (needed above the upload limit).",
            ),
        ),
        (
            "max_upload_mb",
            click.option(
                "--max-upload-mb",
                type=click.FloatRange(0, min_open=True),
                default=None,
                help="Largest load request uploaded to a remote server, MiB [default: Triton's limit: 64 MiB over HTTP "
                "(--http-max-input-size), 2 GiB over gRPC].",
            ),
        ),
        (
            "no_deploy",
            click.option(
                "--no-deploy",
                is_flag=True,
                help="Remote server: load nothing, use only the models it already serves (like Model Analyzer's remote mode).",
            ),
        ),
    ]
    if repository_flag:
        options.insert(
            0,
            (
                "repository",
                click.option(
                    "-r",
                    "--repository",
                    "server_repository",
                    type=click.Path(file_okay=False, path_type=Path),
                    default=DEFAULT_REPOSITORY,
                    help="Model repository to serve.",
                ),
            ),
        )
    for key, opt in reversed(options):
        if key not in omit:
            wrapper = opt(wrapper)
    return wrapper
