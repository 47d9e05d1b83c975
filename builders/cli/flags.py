"""Flags shared by ``builders build`` and ``builders variants``: the export formats and
precisions (defaults from :class:`builders.build.BuildOptions`), the variant grid (defaults from
:class:`builders.config.variants.VariantGrid`) and ``--serving``. Each set is a list of options
for a help panel (:func:`core.options.panel`) plus a wrapper that turns their values into what
the command takes (``grid``, ``serving``)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import click

from builders.backends import DEFAULT_SERVING, LEGACY_SERVINGS, SERVINGS
from builders.build import BuildOptions
from builders.config.variants import KINDS, VariantGrid, parse_queue_delays
from core.cli import flag, list_option
from core.errors import ConfigError
from core.formats import FORMAT_NAMES
from core.naming import WARMUPS
from core.options import OptionSpec, option, panel
from core.precision import PRECISION_NAMES, TRT_ACCELERATOR_PRECISIONS

#: Help panels of the build commands.
EXPORT_PANEL = "Exports"
GRID_PANEL = "Variant grid (one variant per combination)"


def _queue_delay(text: str) -> int | None:
    """One ``--dynamic-batching`` item by :func:`builders.config.variants.parse_queue_delays`: ``off`` -> None, ``500`` -> 500."""
    try:
        return parse_queue_delays(text)[0]
    except ConfigError as e:
        raise ValueError(e.message) from None  # the message says what to write: click shows no hint here


def off_or(convert: Callable[[str], Any]) -> Callable[[str], Any]:
    """An item converter where ``off`` (or ``none``) means ``None``: ``--warmup off,zero``."""

    def conv(text: str) -> Any:
        return None if text.lower() in ("off", "none") else convert(text)

    return conv


def _grid_default(field: str) -> tuple[Any, ...]:
    """A grid flag's default: :class:`VariantGrid`'s own (the one place it is kept), in the
    flag's words (``None`` -> ``off``)."""
    value = VariantGrid.__dataclass_fields__[field].default
    assert isinstance(value, tuple)
    return tuple("off" if v is None else v for v in value)


#: ``--format`` and ``--precision`` (comma lists or repeated); defaults are BuildOptions'.
FORMAT_FLAGS: tuple[OptionSpec, ...] = (
    option(
        BuildOptions,
        "formats",
        decls=("--format",),
        item=click.Choice([*FORMAT_NAMES, "all"]),
        metavar=None,
        panel=EXPORT_PANEL,
        help=f"Export format(s), e.g. torchscript,onnx; all = every format ({','.join(FORMAT_NAMES)}: trt needs a CUDA GPU and "
        "TensorRT on the build host, so on a CPU host give torchscript,onnx).",
    ),
    option(
        BuildOptions,
        "precisions",
        decls=("--precision",),
        item=click.Choice(PRECISION_NAMES),
        panel=EXPORT_PANEL,
        help="Precision(s) to export and verify, e.g. fp32,fp16.",
    ),
)

#: ``--serving python|native`` and its deprecated alias ``--runtime bundled|native``.
SERVING_FLAGS: tuple[OptionSpec, ...] = (
    flag(
        "--serving",
        type=click.Choice(SERVINGS),
        default=None,
        panel=GRID_PANEL,
        help=f"How variants are served: python (a python-backend model.py running the export; what the bundled "
        f"CPU server serves) or native (pytorch_libtorch / onnxruntime_onnx / tensorrt_plan). [default: {DEFAULT_SERVING}]",
    ),
    flag(
        "--runtime",
        "legacy_runtime",
        type=click.Choice(sorted(LEGACY_SERVINGS)),
        default=None,
        panel=GRID_PANEL,
        help="Deprecated alias of --serving (bundled = python, native = native); removed in the next release.",
    ),
)

#: The variant-grid flags: a comma list or repeats (``--instance-kind cpu,gpu`` ==
#: ``--instance-kind cpu --instance-kind gpu``); ``off`` means "no dynamic batching", "no
#: warmup", "no TensorRT accelerator".
GRID_FLAGS: tuple[OptionSpec, ...] = (
    list_option(
        "--instance-kind",
        "kinds",
        item=click.Choice(KINDS),
        default=_grid_default("kinds"),
        panel=GRID_PANEL,
        help="Instance kind(s): cpu (KIND_CPU), gpu (KIND_GPU), auto (gpu where the server has a GPU, else cpu). "
        "KIND_GPU variants are skipped (and listed) where the server has no GPU.",
    ),
    list_option(
        "--instance-counts",
        item=click.IntRange(1),
        default=_grid_default("counts"),
        metavar="N[,N...]",
        panel=GRID_PANEL,
        help="instance_group count values.",
    ),
    list_option(
        "--dynamic-batching",
        "batching",
        item=_queue_delay,
        default=_grid_default("queue_delays_us"),
        metavar="off|US[,...]",
        panel=GRID_PANEL,
        help="Dynamic batching: off and/or max_queue_delay_microseconds values (µs), e.g. off,100,500.",
    ),
    list_option(
        "--preferred-batch-sizes",
        item=click.IntRange(1),
        metavar="N[,N...]",
        panel=GRID_PANEL,
        help="dynamic_batching.preferred_batch_size values, e.g. 8,16 [default: none: the batcher's own choice].",
    ),
    list_option(
        "--max-batch-sizes",
        item=click.IntRange(0),
        default=_grid_default("max_batch_sizes"),
        metavar="N[,N...]",
        panel=GRID_PANEL,
        help="max_batch_size values, e.g. 0,16,64 (0 = no batch axis).",
    ),
    list_option(
        "--gpus",
        item=click.IntRange(0),
        metavar="ID[,ID...]",
        panel=GRID_PANEL,
        help="GPU ids for KIND_GPU instance groups, e.g. 0,1 [default: all].",
    ),
    list_option(
        "--warmup",
        "warmups",
        item=off_or(click.Choice(WARMUPS)),
        default=_grid_default("warmups"),
        metavar="off|random|zero[,...]",
        panel=GRID_PANEL,
        help="Model warmup settings (Triton model_warmup with random or zero data), e.g. off,zero.",
    ),
    list_option(
        "--trt-accelerator",
        "accelerators",
        item=off_or(click.Choice(TRT_ACCELERATOR_PRECISIONS)),
        default=_grid_default("trt_accelerators"),
        metavar="off|fp32|fp16[,...]",
        panel=GRID_PANEL,
        help="ONNX on KIND_GPU: onnxruntime's TensorRT execution accelerator (precision_mode).",
    ),
    flag(
        "--server-gpu/--no-server-gpu",
        "server_gpu",
        default=None,
        show_default=False,
        panel=GRID_PANEL,
        help="Whether the server that loads the repository has a GPU [default: whether this host has one].",
    ),
)


def with_serving(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn the :data:`SERVING_FLAGS` values into ``serving``.

    ``--runtime`` is the build switch's old name, kept for one release: it prints a
    deprecation warning and maps through :data:`builders.backends.LEGACY_SERVINGS`
    (``bundled`` -> ``python``, ``native`` -> ``native``). Giving both with different
    meanings is a usage error.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, serving: str | None, legacy_runtime: str | None, **kwargs: Any) -> Any:
        if legacy_runtime is not None:
            mapped = LEGACY_SERVINGS[legacy_runtime]
            if serving is not None and serving != mapped:
                raise click.BadParameter(
                    f"--runtime {legacy_runtime} (deprecated) means --serving {mapped}, "
                    f"but --serving {serving} was given too; drop --runtime"
                )
            msg = (
                f"--runtime {legacy_runtime} is deprecated for the build and will be removed in the next release: "
                f"use --serving {mapped}"
            )
            click.secho(f"warning: {msg}", fg="yellow", err=True)
            serving = mapped
        return fn(*args, serving=serving or DEFAULT_SERVING, **kwargs)

    return wrapper


def with_grid(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn the :data:`GRID_FLAGS` values into ``grid`` (a :class:`VariantGrid`)."""

    @functools.wraps(fn)
    def wrapper(
        *args: Any,
        kinds: tuple[str, ...],
        instance_counts: tuple[int, ...],
        batching: tuple[int | None, ...],
        preferred_batch_sizes: tuple[int, ...],
        max_batch_sizes: tuple[int, ...],
        gpus: tuple[int, ...],
        warmups: tuple[str | None, ...],
        accelerators: tuple[str | None, ...],
        server_gpu: bool | None,
        **kwargs: Any,
    ) -> Any:
        given: dict[str, Any] = {
            "kinds": kinds,
            "counts": instance_counts,
            "queue_delays_us": batching,
            "preferred_batch_sizes": preferred_batch_sizes,
            "max_batch_sizes": max_batch_sizes,
            "gpus": gpus,
            "warmups": warmups,
            "trt_accelerators": accelerators,
        }
        # an empty list (``--max-batch-sizes ""``) keeps the grid's own default
        try:
            grid = VariantGrid(**{k: v for k, v in given.items() if v}, server_gpu=server_gpu)
        except ConfigError as e:
            if not kwargs.get("print_trtexec"):
                raise
            # --print-trtexec from a recorded export reads the grid's max batch sizes only: its refusal of the grid
            # flags it would not read comes first (break-it F16: the grid's hint led into it); the command raises this
            # one where it builds (builders.cli.build). The grid without the flags the grid's own rules refused:
            crossed = ("preferred_batch_sizes", "gpus", "trt_accelerators")
            grid = VariantGrid(**{k: v for k, v in given.items() if v and k not in crossed}, server_gpu=server_gpu)
            return fn(*args, grid=grid, grid_refusal=e, **kwargs)
        return fn(*args, grid=grid, **({"grid_refusal": None} if "print_trtexec" in kwargs else {}), **kwargs)

    return wrapper


def grid_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Formats, precisions, the variant grid and ``--serving``, for a command that only adds
    its own few flags (``builders variants``); adds ``grid`` and ``serving``."""
    return panel(*FORMAT_FLAGS, *GRID_FLAGS, *SERVING_FLAGS)(with_grid(with_serving(fn)))


def formats_of(values: tuple[str, ...]) -> tuple[str, ...]:
    """``--format`` values with ``all`` spelled out (every format, in order, once)."""
    out: list[str] = []
    for v in values:
        out.extend(FORMAT_NAMES if v == "all" else (v,))
    return tuple(dict.fromkeys(out))
