"""Why a verification failed, in words: the :class:`~core.errors.VerificationError` of a
failed comparison or run, with the one hint that fits the cause.

Causes, in the order they are recognised:

- the exporter traced the model and warned that forward() turned a tensor into a Python
  value (``torch.jit.TracerWarning``): the trace froze data-dependent control flow (or a
  size), so the export computes the branch taken on the example inputs for every input.
  The hint says to script or rewrite the branch, never to loosen the tolerance;
- a dynamic axis frozen at the example size (the artifact runs there, not elsewhere);
- NaN/Inf in eager PyTorch itself (the inputs or the model), or only in the export;
- a changed dtype;
- a tolerance breach: a small one (max rel err < :data:`builders.verify.compare.ROUNDING_LIMIT`) may be rounding
  and the hint names the ``--rtol`` that would pass; a large one is a different result,
  and no tolerance is suggested;
- an integer or bool output with more differing elements than its bound: a small fraction
  (under :data:`builders.verify.compare.ROUNDING_LIMIT`) may be labels flipped at near-ties of the
  float values they are computed from (said with the float outputs that agreed), and the hint
  names the ``--rtol`` (fraction) that would pass; a large one is a different result.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from builders.model.spec import ModelSpec
from builders.model.value_ranges import zero_one
from builders.verify.compare import LABEL_BOUND, ROUNDING_LIMIT, OutputComparison, passing_tolerance
from core.errors import VerificationError

#: Start of the tracer warnings that mean a tensor became a Python value inside forward().
PYTHON_VALUE_WARNINGS = ("Converting a tensor to a Python", "Iterating over a tensor", "torch.tensor results are registered")


def python_value_warnings(tracer_warnings: Sequence[str]) -> list[str]:
    """The tracer warnings that say forward() turned a tensor into a Python value."""
    return [w for w in tracer_warnings if w.startswith(PYTHON_VALUE_WARNINGS)]


def frozen_control_flow(fmt: str, tracer_warnings: Sequence[str]) -> tuple[str, str]:
    """``(what, hint)`` for a mismatch of a trace that warned of Python values."""
    warned = python_value_warnings(tracer_warnings) or list(tracer_warnings)
    tracer = "torch.jit.trace" if fmt == "torchscript" else "the TorchScript-based ONNX exporter (torch.jit.trace)"
    what = (
        f"the trace froze data-dependent control flow: {tracer} warned {warned[0]!r}"
        + (f" (and {len(warned) - 1} more, listed in the manifest)" if len(warned) > 1 else "")
        + "; the branch taken on the example inputs was recorded for every input"
    )
    if fmt == "torchscript":
        hint = (
            "make forward() scriptable so that torch.jit.script (tried first; its error is in the manifest's attempts) "
            "keeps the branch, or write it with tensor ops (torch.where) so that a trace records both sides; "
            "a looser --rtol would only hide a wrong result"
        )
    else:
        hint = (
            "write the branch with tensor ops (torch.where) or torch.cond, which the dynamo exporter turns into an "
            "ONNX If, or serve the TorchScript export (--format torchscript scripts forward()); "
            "a looser --rtol would only hide a wrong result"
        )
    return what, hint


def comparison_error(
    what: str,
    where: str,
    c: OutputComparison,
    frozen: list[str],
    fmt: str,
    tracer_warnings: Sequence[str],
    agreed: Sequence[str] = (),
) -> VerificationError:
    """The error of one failed output comparison.

    Args:
        what: The export and device (``"onnx (fp16, dynamo) on CPU"``).
        where: The point and draw (``"batch 4, axes {}, draw 'negative'"``).
        c: The failed comparison.
        frozen: Dynamic axes the export lost (see ``builders.verify.verification``), may be empty.
        fmt: Export format.
        tracer_warnings: What the exporter's tracer warned.
        agreed: The float outputs of the same run that were within their tolerance (said
            for an integer output whose few differing elements may be near-ties).
    """
    problem = c.problem or "failed"
    labels = c.differing is not None and LABEL_BOUND in problem
    hint = None
    if problem.startswith("shape") and frozen:
        problem += f"; the export lost dynamic axis {frozen} (frozen at the example size)"
        hint = "a dynamic axis was frozen at the example size: avoid Python ints from tensor sizes in forward()"
    elif "eager PyTorch" in problem:
        hint = "fix the model or the input spec (value ranges) so that eager PyTorch gives finite outputs"
    elif python_value_warnings(tracer_warnings) and (problem.startswith("shape") or "tolerance" in problem or labels):
        cause, hint = frozen_control_flow(fmt, tracer_warnings)
        problem += f"; {cause}"
    elif problem.startswith("shape"):
        hint = "the export returns another shape than eager PyTorch: check for sizes turned into Python numbers in forward()"
    elif "NaN" in problem:
        hint = "the export overflows or diverges: try fp32, or another exporter/opset"
    elif problem.startswith("dtype"):
        hint = "the exporter changed a dtype: cast the output explicitly in forward(), or try another exporter"
    elif labels and c.max_rel_err < ROUNDING_LIMIT:
        floats = f"the float outputs {', '.join(map(repr, agreed))} agree within their tolerance, so " if agreed else ""
        problem += (
            f"; {floats}these may be labels flipped where the float values they are computed from nearly tie "
            "(argmax, topk, a threshold), which the export's rounding can tip either way"
        )
        hint = (
            f"if {c.differing} flipped elements of {c.elements:,} are acceptable, pass --rtol "
            f"{c.name}={passing_tolerance(c.max_rel_err):g} (for an integer output: the fraction of elements allowed "
            "to differ); flips away from near-ties would be a wrong result"
        )
    elif labels:
        problem += ": a different result, not labels flipped at near-ties"
        hint = (
            "the export computes something else than eager PyTorch on these inputs: look for control flow or "
            "sizes that depend on input values in forward(), or try another exporter/opset"
        )
    elif "tolerance" in problem and c.max_rel_err < ROUNDING_LIMIT:
        hint = f"if this error is acceptable, pass --rtol {c.name}={passing_tolerance(c.max_rel_err):g}"
    elif "tolerance" in problem:
        problem += ": a different result, not rounding"
        hint = (
            "the export computes something else than eager PyTorch on these inputs: look for control flow or "
            "sizes that depend on input values in forward(), or try another exporter/opset"
        )
    errors = f"max abs err {c.max_abs_err:.3g}" + ("" if labels else f", max rel err {c.max_rel_err:.3g}")
    return VerificationError(
        f"{what} output {c.name!r} at {where}: {problem} ({errors})",
        hint=hint,
    )


def run_error(what: str, where: str, e: BaseException, frozen: list[str]) -> VerificationError:
    """The error of an artifact that raised at a verification point."""
    return VerificationError(
        f"{what} artifact failed to run at {where}: {type(e).__name__}: {str(e).strip()[:300]}"
        + (f"\n  the export lost dynamic axis {frozen}: it runs at the example size but not at this one" if frozen else ""),
        hint="the export froze a dynamic axis at the example size: avoid turning tensor sizes into Python "
        "numbers in forward() (int(x.shape[0]), x.size(0) in a Python expression), or make forward() scriptable"
        if frozen
        else "check the input spec's dynamic axes and value ranges",
    )


def batch_axis_error(name: str, batch_axis: int, shape: Sequence[int], batch: int, where: str) -> VerificationError:
    """Eager PyTorch's own output lost or moved its batch axis at one batch size."""
    return VerificationError(
        f"eager PyTorch output {name!r} at {where} has shape {list(shape)}: its batch axis {batch_axis} "
        f"(size {batch} at this batch) is not there, so Triton cannot split it per request at this batch size",
        hint="keep the batch axis at every batch size (e.g. squeeze() drops it at batch 1: squeeze a named dim instead)",
    )


def load_error(fmt: str, precision: str, path: Any, device: str, e: BaseException) -> VerificationError:
    """The artifact does not load on the verifying runtime."""
    return VerificationError(
        f"{fmt} ({precision}) artifact {path} cannot be loaded for verification on {device}: "
        f"{type(e).__name__}: {str(e).strip()[:300]}",
        hint="onnxruntime's CPU provider lacks many bf16 (and some fp16) kernels: verify this precision on a GPU "
        "host with onnxruntime-gpu, or export it as TorchScript / TensorRT"
        if precision != "fp32"
        else "the exported file is not loadable: re-export with --force, or try another --opset",
    )


_DRAW = re.compile(r"draw '(\w+)'")


def rejection_line(
    fmt: str,
    precision: str,
    strategy: str,
    stage: str,
    error: str | None,
    draws: Mapping[str, Mapping[str, str]] | None = None,
    spec: ModelSpec | None = None,
) -> str:
    """One line saying why an export strategy was rejected (the build summary prints one per
    rejected strategy, kept exports and failed ones alike).

    Args:
        fmt: The export's format.
        precision: Its precision.
        strategy: The rejected strategy (``"dynamo"``...).
        stage: ``"export"`` (the exporter failed) or ``"verify"`` (the export disagreed with
            eager PyTorch).
        error: The attempt's error (:attr:`builders.export.artifacts.Attempt.error`).
        draws: The manifest's ``draws`` (what each draw gave each input): the draw the error
            names is spelled out.
        spec: The inputs: a bool input, or an integer one whose range is ``[0, 1]`` at every
            position (:func:`builders.model.value_ranges.zero_one`), without a domain is named,
            with how to declare it a mask, when a verification failed.

    Returns:
        ``"onnx fp32: strategy dynamo rejected (verification failed): <error>; draw 'negative'
        gave attention_mask: ..."``.
    """
    why = "verification failed" if stage == "verify" else "export failed"
    line = f"{fmt} {precision}: strategy {strategy} rejected ({why}): {error or 'no error recorded'}"
    m = _DRAW.search(error or "")
    if stage == "verify" and m and draws and m.group(1) in draws:
        line += f"; draw {m.group(1)!r} gave " + ", ".join(f"{k}: {v}" for k, v in draws[m.group(1)].items())
    binary = [t for t in (spec.inputs if spec else ()) if t.domain is None and (t.dtype == "bool" or zero_one(t.value_range))]
    if stage == "verify" and binary:
        t = binary[0]
        line += (
            f"; if no request sends a row of 0s in {', '.join(b.name for b in binary)}, declare it a mask "
            f'(spec "domain": "mask", or --input {t.name}:{t.dtype}:{",".join(map(str, t.shape))}:mask) '
            "so that no draw makes one"
        )
    return line
