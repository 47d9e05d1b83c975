"""What ``builders build`` needs from this host and its flags, checked before any work (issue 26,
trial 18, T18-1: ``--format trt`` on a host without a GPU exported and verified the ONNX twice, 6 min,
then failed without saying that TensorRT or a GPU was missing).

:func:`refuse_missing_prerequisites` runs first in :func:`builders.build.build`, before the model
is loaded: every asked format, precision and instance kind whose prerequisites this host or these
flags lack is named in one error, with what to do, and nothing is exported or written.
"""

from __future__ import annotations

from typing import NamedTuple

from builders.build_exports import export_tasks
from builders.build_options import BuildOptions
from builders.serving.tensorrt_env import missing_requirements
from core.errors import ConfigError, GpuRequiredError
from core.formats import FORMAT_NAMES


class Missing(NamedTuple):
    """One thing a build lacks here, and what to do about it."""

    what: str
    do: str


def missing_prerequisites(opts: BuildOptions) -> list[Missing]:
    """What the build asked by ``opts`` lacks here, checked without loading the model.

    Checked: a TensorRT plan built here (``trt`` without ``--plan`` for that precision) needs the
    ``tensorrt`` package and a CUDA GPU (:func:`builders.serving.tensorrt_env.missing_requirements`),
    and a bf16 plan TensorRT >= 9; a grid of KIND_GPU instances only needs a GPU on its server
    (:meth:`builders.config.variants.VariantGrid.plan`'s refusal, said here before the model loads).
    Not refused: plans with ``--serving python`` (built and verified, not served: what
    ``scripts/gpu_check.sh`` does on the bundled server; the python backend serves no plan).

    Returns:
        What is missing, in the order above; empty when the build can go ahead.
    """
    out: list[Missing] = []
    built_here = [
        p for f, p in export_tasks(opts.formats, opts.precisions, tuple(opts.plans)) if f == "trt" and p not in opts.plans
    ]
    missing = missing_requirements() if built_here else []
    if missing:
        out.append(
            Missing(
                f"trt {', '.join(built_here)}: building a TensorRT plan needs {' and '.join(missing)}",
                "run the build on a GPU host with TensorRT (scripts/gpu_check.sh checks one), or build the plan elsewhere: "
                "`builders build --format trt --print-trtexec` prints the docker command (from the build folder's fp32 ONNX export, built here first where there is none)",
            )
        )
    elif "bf16" in built_here:
        import tensorrt as trt  # present: missing_requirements() found it

        if int(trt.__version__.split(".")[0]) < 9:
            out.append(Missing(f"trt bf16: a bf16 plan needs TensorRT >= 9; this is {trt.__version__}", "use --precision fp16"))
    try:
        opts.grid.plan("prerequisites", ("onnx",), ("fp32",))  # only its GPU refusal is taken here
    except GpuRequiredError as e:
        out.append(Missing(e.message, e.hint or ""))
    except ConfigError:  # the plan step says it, with the model's name
        pass
    return out


def refuse_missing_prerequisites(opts: BuildOptions) -> None:
    """Stop before any work when :func:`missing_prerequisites` finds something missing.

    Raises:
        GpuRequiredError: a GPU or TensorRT (or a newer TensorRT) is missing; everything missing in one message.
    """
    missing = missing_prerequisites(opts)
    if not missing:
        return
    message = "not built, nothing was exported or written: " + "; ".join(m.what for m in missing)
    hint = "; ".join(dict.fromkeys(m.do for m in missing if m.do))
    if any(m.what.startswith("trt") for m in missing):
        others = [f for f in FORMAT_NAMES if f in opts.formats and f != "trt"]
        rest = [f for f in FORMAT_NAMES if f != "trt"]
        drop = f"drop trt (--format {','.join(others)} builds the others)" if others else f"build --format {','.join(rest)}"
        hint = f"{drop}; or {hint}"
    raise GpuRequiredError(message, hint=hint)
