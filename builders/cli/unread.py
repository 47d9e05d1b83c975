"""The flags of ``builders build`` a build would not read, refused before any work (trial 21 kind K1, "a flag
accepted and ignored": ``--format torchscript --opset 17``, ``--timing-cache`` without a TensorRT plan,
``--target-triton`` without ``--print-trtexec``, ``--warmup-count`` on a grid without model_warmup all built
without a word). The grid's own flags are refused by :class:`builders.config.variants.VariantGrid` (the
Python API's rule too: ``--preferred-batch-sizes`` without dynamic batching, ``--gpus`` or
``--trt-accelerator`` without KIND_GPU)."""

from __future__ import annotations

from collections.abc import Sequence

import click

from builders.config.variants import VariantGrid
from core.errors import FlagError
from core.options import given


def unread_build_flags(ctx: click.Context, formats: Sequence[str], grid: VariantGrid, print_trtexec: bool) -> FlagError | None:
    """The refusal of the flags the user typed that this build would not read (each named, with what reads
    it), or ``None``.

    Args:
        ctx: The ``builders build`` context (which parameters were typed: :func:`core.options.given`).
        formats: The export formats this build makes (after ``--plan`` / ``--print-trtexec`` changed them).
        grid: The variant grid.
        print_trtexec: Whether ``--print-trtexec`` was given.
    """
    trt = "trt" in formats or print_trtexec
    warm = any(w is not None for w in grid.warmups) or any(a is not None for a in grid.trt_accelerators)
    plans = f"TensorRT plans (--format trt, or --print-trtexec), and this build makes none (--format {','.join(formats)})"
    warmups = "variants with model_warmup, and this grid has none (--warmup off)"
    # parameter -> (read by this build, what reads it, how to make the build read it)
    rules: dict[str, tuple[bool, str, str]] = {
        "opset": (
            bool({"onnx", "trt"} & set(formats)),
            f"ONNX exports, and this build makes none (--format {','.join(formats)})",
            "add --format onnx",
        ),
        "workspace_bytes": (trt, plans, "add --format trt"),
        "timing_cache": (trt, plans, "add --format trt"),
        "target_triton": (print_trtexec, "the commands --print-trtexec prints, and it was not given", "add --print-trtexec"),
        "warmup_count": (warm, warmups, "add --warmup zero (or random)"),
        "warmup_count_reason": (warm, warmups, "add --warmup zero (or random)"),
    }
    typed = given(ctx)
    unread = [(name, what, fix) for name, (read, what, fix) in rules.items() if name in typed and not read]
    if not unread:
        return None
    flags = [max(next(p for p in ctx.command.params if p.name == name).opts, key=len) for name, _, _ in unread]
    said = "; ".join(f"{flag} would be ignored: it applies to {what}" for flag, (_, what, _) in zip(flags, unread, strict=True))
    fixes = "; ".join(dict.fromkeys(fix for _, _, fix in unread))
    return FlagError(
        said, flag=flags[0], hint=f"{fixes} to use {'it' if len(flags) == 1 else 'them'}, or drop {' and '.join(flags)}"
    )
