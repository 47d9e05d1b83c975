"""The flags of ``builders build`` a build would not read, refused before any work (trial 21 kind K1, "a flag
accepted and ignored": ``--format torchscript --opset 17``, ``--timing-cache`` without a TensorRT plan,
``--target-triton`` without ``--print-trtexec``, ``--warmup-count`` on a grid without model_warmup all built
without a word), by the rule every command's unread flags follow (:func:`core.flag_refusals.refuse_unread`).
The grid's own flags are refused by :class:`builders.config.variants.VariantGrid` (the Python API's rule too:
``--preferred-batch-sizes`` without dynamic batching, ``--gpus`` or ``--trt-accelerator`` without KIND_GPU)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import click

from builders.backends import servable
from builders.build_exports import export_tasks
from builders.config.variants import Variant, VariantGrid
from core.flag_refusals import Unread, refuse_unread
from core.options import given


def refuse_unread_build_flags(
    ctx: click.Context,
    formats: tuple[str, ...],
    precisions: tuple[str, ...],
    plans: Mapping[str, Path],
    grid: VariantGrid,
    serving: str,
    print_trtexec: bool,
) -> None:
    """Refuse the flags the user typed that this build would not read, each named with what reads it.

    Args:
        ctx: The ``builders build`` context (which parameters were typed: :func:`core.options.given`).
        formats: The export formats this build makes (after ``--plan`` / ``--print-trtexec`` changed them).
        precisions: Its precisions (the same).
        plans: The plans ``--plan`` takes back, by precision: a TensorRT precision among them is imported, not built
            (``--workspace-mib`` and ``--timing-cache`` apply to a plan built here only).
        grid: The variant grid.
        serving: ``--serving`` (which variants the grid writes: ORT-TRT variants get a model_warmup).
        print_trtexec: Whether ``--print-trtexec`` was given.

    Raises:
        FlagError: one or more typed flags would be ignored (exit 2).
    """
    made = f"this build makes none (--format {','.join(formats)})"
    built = any(f == "trt" and p not in plans for f, p in export_tasks(formats, precisions, tuple(plans)))
    no_trt = not built and not print_trtexec
    typed = given(ctx)
    no_warm = all(w is None for w in grid.warmups) and (
        all(a is None for a in grid.trt_accelerators)  # the grid's own rule says which variants warm up (ORT-TRT's)
        or (bool({"warmup_count", "warmup_count_reason"} & typed) and not any(v.warmup for v in _planned(grid, formats, serving)))
    )
    trt_words = f"it applies to TensorRT plans (--format trt, or --print-trtexec), and {made}"
    add_trt = "add --format trt"
    if "trt" in formats and plans:  # --format trt is there: "add --format trt" was refused again (break-it F16's kind)
        trt_words = f"it applies to TensorRT plans built here, and --plan takes plans built elsewhere back ({', '.join(plans)})"
        add_trt = "build the plans here instead (--format trt in place of --plan)"
    warm = "it applies to variants with model_warmup, and this grid has none (--warmup off)"
    refuse_unread(
        typed,
        [
            Unread(
                "opset",
                "--opset",
                not any(f == "onnx" for f, _ in export_tasks(formats, precisions, tuple(plans))),
                f"it applies to ONNX exports, and {made}"
                + ("; --plan takes TensorRT plans built elsewhere back, and no ONNX is exported for them" if plans else ""),
                "add --format onnx, or drop --opset",
            ),
            Unread("workspace_bytes", "--workspace-mib", no_trt, trt_words, f"{add_trt}, or drop --workspace-mib"),
            Unread("timing_cache", "--timing-cache", no_trt, trt_words, f"{add_trt}, or drop --timing-cache"),
            Unread(
                "target_triton",
                "--target-triton",
                not print_trtexec,
                "it applies to the commands --print-trtexec prints, and it was not given",
                "add --print-trtexec, or drop --target-triton",
            ),
            Unread("warmup_count", "--warmup-count", no_warm, warm, "add --warmup zero (or random), or drop --warmup-count"),
            Unread(
                "warmup_count_reason",
                "--warmup-count-reason",
                no_warm,
                warm,
                "add --warmup zero (or random), or drop --warmup-count-reason",
            ),
        ],
    )


#: The ``builders build`` parameters only a build reads (the variants it writes and how it verifies them): where
#: ``--print-trtexec`` prints from the recorded ONNX export, nothing is built and they would be ignored.
BUILD_ONLY = (
    "replace",
    "rtol",
    "sample_path",
    "kinds",
    "instance_counts",
    "batching",
    "preferred_batch_sizes",
    "gpus",
    "warmups",
    "accelerators",
    "server_gpu",
    "serving",
    "legacy_runtime",
    "warmup_count",
    "warmup_count_reason",
)


def refuse_unread_printing(ctx: click.Context) -> None:
    """Refuse the flags ``builders build --print-trtexec`` would not read where it prints the commands from the build
    folder's recorded ONNX export (:func:`builders.plan_source.recorded_onnx`): nothing is built or written then
    (:data:`BUILD_ONLY`: the grid, the serving, the verification's tolerances and sample, ``--replace``). ``--force``
    and ``--opset`` are read there (``--force`` exports again; another ``--opset`` is refused by it), and
    ``--max-batch-sizes`` (the plans' largest batch).

    Args:
        ctx: The ``builders build`` context (which parameters were typed: :func:`core.options.given`).

    Raises:
        FlagError: one or more of them typed (exit 2), each named, with what to do.
    """
    typed = given(ctx)
    spelled = {p.name: _spelled(p, ctx.params.get(p.name or "")) for p in ctx.command.params if p.name in BUILD_ONLY}
    hit = [spelled[n] for n in BUILD_ONLY if n in typed and n in spelled]
    them = "it" if len(hit) == 1 else "them"
    refuse_unread(
        typed,
        [
            Unread(
                name,
                spelled.get(name, name),
                True,
                "--print-trtexec prints the plans' commands from the recorded ONNX export, and builds, verifies and "
                "writes nothing",
                f"drop {' and '.join(hit)} here and give {them} to the printed --plan command (which writes the variants), "
                "or add --force to export again and build the variants now",
            )
            for name in BUILD_ONLY
        ],
    )


def _spelled(param: click.Parameter, value: object) -> str:
    """The flag as typed: ``--no-server-gpu`` for a boolean flag's off side, else its first spelling."""
    secondary = getattr(param, "secondary_opts", None)
    return secondary[0] if secondary and value is False else param.opts[0]


def _planned(grid: VariantGrid, formats: tuple[str, ...], serving: str) -> list[Variant]:
    """The variants the grid writes for the formats ``serving`` serves (the build's own plan: builders.build)."""
    return grid.plan("model", tuple(f for f in formats if servable(f, serving)), serving=serving).variants
