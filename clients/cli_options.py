"""Click option groups shared by the CLIs (``clients serve/check``, ``python -m clients.launch``,
``perf``), defined once as decorators.

This module imports neither tritonclient nor torch, so ``--help`` stays fast.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Callable

import click

from clients.runtimes.choose import RUNTIMES
from clients.runtimes.local import LOCAL_ENV
from clients.runtimes.options import DEFAULT_IMAGE, DEFAULT_TAG, MODEL_CONTROL_MODES, ServerOptions, image_for_tag

F = Callable[..., Any]
#: Defaults shown by the flags are the API's (ServerOptions), defined once there.
_D = ServerOptions(repository=Path("model_repository"))

#: The keyword names the server decorator consumes (and removes) before calling the command.
SERVER_KEYS = (
    "runtime", "http_port", "grpc_port", "metrics_port", "address", "model_control", "load_models", "log_file",
    "log_verbose", "metrics_interval_ms", "server_args", "start_timeout", "tag", "image", "gpus", "shm_size", "tritonserver",
)


def server_options(fn: F | None = None, *, repository_flag: bool = True) -> Any:
    """Add the tritonserver launch flags to a click command; it receives ``server_opts``.

    Use as ``@server_options`` (also adds ``-r/--repository``, default ``model_repository``)
    or ``@server_options(repository_flag=False)`` when the command declares its own
    ``--repository`` option: its value must then arrive as the ``repository`` keyword, which
    is read and left in place for the command.

    The command gets ``server_opts: ServerOptions`` instead of the individual flags.
    Flags: ``--runtime``, ``--http-port/--grpc-port/--metrics-port`` (0 = free),
    ``--address``, ``--model-control``, ``--load-model`` (repeatable), ``--log-file``,
    ``--log-verbose``, ``--metrics-interval-ms``, ``--server-arg`` (repeatable, passed to
    tritonserver verbatim), ``--start-timeout``, ``--tag``/``--image`` (container),
    ``--gpus``, ``--shm-size``, ``--tritonserver`` (local binary).
    """
    if fn is None:
        return functools.partial(server_options, repository_flag=repository_flag)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        v = {k: kwargs.pop(k) for k in SERVER_KEYS}
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
        )
        return fn(*args, server_opts=opts, **kwargs)

    port = click.IntRange(0, 65535)
    options = [
        click.option("--runtime", type=click.Choice(RUNTIMES), default=_D.runtime, show_default=True,
                     help="Which tritonserver: container (NVIDIA image, GPU), local (binary on PATH or $TRITONSERVER), "
                          "bundled (nvidia-pytriton wheel, python backend, CPU), auto (the best available; says why)."),
        click.option("--http-port", type=port, default=0, show_default=True, help="HTTP port (0 = a free one)."),
        click.option("--grpc-port", type=port, default=0, show_default=True, help="gRPC port (0 = a free one)."),
        click.option("--metrics-port", type=port, default=0, show_default=True, help="Prometheus metrics port (0 = a free one)."),
        click.option("--address", default=_D.address, show_default=True,
                     help="Listen address; 0.0.0.0 exposes the server to the network."),
        click.option("--model-control", "model_control", type=click.Choice(MODEL_CONTROL_MODES), default=_D.model_control, show_default=True,
                     help="--model-control-mode: explicit (load/unload on request; sweeps), none (load all), poll."),
        click.option("--load-model", "load_models", multiple=True, metavar="NAME",
                     help="Model to load at start (explicit mode; repeatable; '*' loads all)."),
        click.option("--log-file", type=click.Path(dir_okay=False, path_type=Path), default=None,
                     help="Server log file [default: a kept temporary file]."),
        click.option("--log-verbose", type=click.IntRange(0), default=_D.log_verbose, show_default=True, help="tritonserver --log-verbose level."),
        click.option("--metrics-interval-ms", type=click.IntRange(1), default=_D.metrics_interval_ms, show_default=True,
                     help="How often the server refreshes utilisation gauges (ms)."),
        click.option("--server-arg", "server_args", multiple=True, metavar="FLAG",
                     help="Extra tritonserver flag passed through verbatim (repeatable), e.g. --server-arg=--log-info=false."),
        click.option("--start-timeout", type=click.FloatRange(1), default=_D.start_timeout_s, show_default=True,
                     help="Seconds to wait for the server to become ready."),
        click.option("--tag", default=DEFAULT_TAG.removesuffix("-py3"), show_default=True,
                     help=f"Container release tag: image {DEFAULT_IMAGE}:<tag>-py3."),
        click.option("--image", default=None, help="Full container image reference (overrides --tag)."),
        click.option("--gpus", default=_D.gpus, show_default=True, help="docker run --gpus value (container runtime)."),
        click.option("--shm-size", default=_D.shm_size, show_default=True, help="docker run --shm-size (container runtime)."),
        click.option("--tritonserver", type=click.Path(dir_okay=False, path_type=Path), default=None,
                     help=f"Local tritonserver binary (local runtime) [default: ${LOCAL_ENV}, else PATH]."),
    ]
    if repository_flag:
        options.insert(0, click.option("-r", "--repository", "server_repository", type=click.Path(file_okay=False, path_type=Path),
                                       default=Path("model_repository"), show_default=True, help="Model repository to serve."))
    for opt in reversed(options):
        wrapper = opt(wrapper)
    return wrapper
