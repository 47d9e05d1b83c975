"""Comparing an exported artifact with eager PyTorch, output by output (Polygraphy-style).

A float output is compared by its relative error (max |actual - expected| / max |expected|).
An integer or bool output (an argmax label, topk indices, a threshold) is compared by the
fraction of its elements that differ: such an output is computed from float values, and where
two of them nearly tie (two class scores within rounding) the export's rounding may pick the
other one; a label that flips there is rounding carried through, not a different computation.
Its tolerance is that fraction (the precision's default, 1e-4 in fp32, so an output of fewer
than 10,000 elements must agree exactly; ``--rtol NAME=F`` tightens or loosens it). The
float outputs of the same run are held to their own tolerance, so a flip passes only where
they agree.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

from core import precision as precisions
from core.errors import ModelSpecError

#: The bound an integer or bool output is held to, in words (the fraction of its elements that may differ):
#: one name for both kinds (trial 19, T19-10: a bool output's was "the integer-output bound").
LABEL_BOUND = "integer/bool-output bound"

#: Above this max relative error a mismatch is a different result, not rounding: no tolerance
#: that "would pass" is named.
ROUNDING_LIMIT = 0.05


@dataclasses.dataclass
class OutputComparison:
    """Agreement of one output tensor with its reference.

    Attributes:
        name: Output name.
        max_abs_err: max |actual - expected| (for fp16/bf16 exports compared with fp32
            eager PyTorch, this is the number to read).
        max_rel_err: max |actual - expected| / max(|expected|), a scale-aware relative error
            that does not explode on near-zero elements; for an integer or bool output, the
            fraction of its elements that differ (``differing / elements``).
        rtol: The tolerance applied to ``max_rel_err`` (for an integer or bool output: the
            fraction of its elements allowed to differ).
        passed: ``max_rel_err <= rtol`` and no NaN/Inf, shapes and dtypes equal.
        problem: Why it failed, when it did (shape, dtype, NaN, tolerance).
        differing: For an integer or bool output, how many elements differ; else ``None``.
        elements: For an integer or bool output, how many elements it has; else ``None``.
    """

    name: str
    max_abs_err: float
    max_rel_err: float
    rtol: float
    passed: bool
    problem: str | None = None
    differing: int | None = None
    elements: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The manifest's record of this comparison: every field."""
        return dataclasses.asdict(self)


def is_label_dtype(dtype: Any) -> bool:
    """Whether an output of ``dtype`` is compared by the fraction of elements that differ
    (integer and bool outputs) rather than by relative error."""
    return np.dtype(dtype).kind in "biu"


def refuse_open_bounds(dtypes: Mapping[str, Any], rtols: Mapping[str, float]) -> None:
    """Refuse ``--rtol NAME=F`` of 1 or more for an integer or bool output (``dtypes``: each output's
    dtype): its bound is the fraction of elements allowed to differ, and 1 lets every element differ,
    so a wholly wrong output would pass (re-check of trial 18: ``--rtol mask=1``, the trial's own
    flag under the float rule, was accepted and passed any mask). A float output's rtol is not bounded.

    Raises:
        ModelSpecError: names the outputs, what the value means for them and a value to give.
    """

    def label(dtype: Any) -> bool:  # a name numpy does not know (bfloat16) is a float's
        try:
            return is_label_dtype(dtype)
        except TypeError:
            return False

    open_ = {n: v for n, v in rtols.items() if v >= 1 and n in dtypes and label(dtypes[n])}
    if open_:
        said = ", ".join(f"{n}={v:g} ({dtypes[n]})" for n, v in open_.items())
        raise ModelSpecError(
            f"--rtol {said}: an integer or bool output is compared by the fraction of its elements that differ, "
            "and a bound of 1 or more lets every element differ, so a wrong output would pass",
            hint="give the fraction allowed to differ, below 1 (such as 1e-3), or 0 for an exact match",
            flag="--rtol",
        )


def differing_words(name: str, differing: int, elements: int, rtol: float) -> str:
    """``"1 of 4,194,304 'mask' elements differ (2.4e-07), within the integer/bool-output bound 1e-4"``
    (or ``"over"``): what an integer or bool output's comparison found, in words (without the
    name when ``name`` is empty)."""
    frac = differing / elements if elements else 0.0
    side = "within" if frac <= rtol else "over"
    what = f"{name!r} elements" if name else "elements"
    return f"{differing:,} of {elements:,} {what} differ ({frac:.2g}), {side} the {LABEL_BOUND} {rtol:g}"


def compare_outputs(
    actual: dict[str, np.ndarray],
    expected: dict[str, np.ndarray],
    rtol: float | dict[str, float],
) -> list[OutputComparison]:
    """Compare every expected output with the actual one.

    Checks, in order: output present, same shape, reference finite (a model that itself
    produces NaN/Inf fails), actual finite, same dtype, ``max_rel_err <= rtol``. Errors are
    measured in float64. A failed tolerance names the tolerance that would have passed when
    the error could be rounding (below :data:`ROUNDING_LIMIT`). An integer or bool output
    (:func:`is_label_dtype` of the expected dtype) is compared by the fraction of its elements
    that differ, with ``rtol`` as the fraction allowed (see the module's docstring).

    Args:
        actual: Output name -> array from the artifact or the server.
        expected: Output name -> array from eager PyTorch, same shapes.
        rtol: One relative tolerance, or one per output name (missing names use the fp32
            default, ``1e-4``).

    Returns:
        One :class:`OutputComparison` per expected output, in order.
    """
    results = []
    for name, exp in expected.items():
        tol = rtol.get(name, precisions.get("fp32").rtol) if isinstance(rtol, dict) else rtol
        act = actual.get(name)
        if act is None:
            results.append(OutputComparison(name, float("inf"), float("inf"), tol, False, "output missing"))
            continue
        if act.shape != exp.shape:
            results.append(
                OutputComparison(name, float("inf"), float("inf"), tol, False, f"shape {act.shape} != expected {exp.shape}")
            )
            continue
        if not np.all(np.isfinite(exp.astype(np.float64))):
            results.append(
                OutputComparison(
                    name,
                    float("nan"),
                    float("nan"),
                    tol,
                    False,
                    f"NaN or Inf in the eager PyTorch output ({_count_nonfinite(exp)}): the model itself produces them on these inputs",
                )
            )
            continue
        if not np.all(np.isfinite(act.astype(np.float64))):
            results.append(
                OutputComparison(name, float("nan"), float("nan"), tol, False, f"NaN or Inf in output ({_count_nonfinite(act)})")
            )
            continue
        diff = np.abs(act.astype(np.float64) - exp.astype(np.float64))
        max_abs = float(diff.max()) if diff.size else 0.0
        scale = float(np.abs(exp.astype(np.float64)).max()) if exp.size else 0.0
        max_rel = max_abs / scale if scale > 0 else max_abs
        differing = elements = None
        if is_label_dtype(exp.dtype):
            differing, elements = int(np.count_nonzero(diff)), int(exp.size)
            max_rel = differing / elements if elements else 0.0
        problem = None
        if act.dtype != exp.dtype:
            problem = f"dtype {act.dtype} != expected {exp.dtype} (the export changed the output's dtype)"
        elif differing is not None and elements is not None and max_rel > tol:
            problem = differing_words(name, differing, elements, tol)
        elif max_rel > tol:
            problem = f"max relative error {max_rel:.3g} > tolerance {tol:g}" + (
                f" (rtol={_passing_tol(max_rel):g} would pass)" if max_rel < ROUNDING_LIMIT else ""
            )
        results.append(OutputComparison(name, max_abs, max_rel, tol, problem is None, problem, differing, elements))
    return results


def _count_nonfinite(a: np.ndarray) -> str:
    f = a.astype(np.float64)
    return f"{int(np.isnan(f).sum())} NaN, {int(np.isinf(f).sum())} Inf of {a.size}"


def passing_tolerance(err: float) -> float:
    """The smallest 1eN, 2eN or 5eN tolerance that ``err`` would pass (0 for no error)."""
    return _passing_tol(err)


def _passing_tol(err: float) -> float:
    """The smallest 1eN or 5eN tolerance that ``err`` would pass."""
    import math

    if err <= 0:
        return 0.0
    exp = math.floor(math.log10(err))
    for m in (1, 2, 5, 10):
        if m * 10**exp >= err:
            return m * 10**exp
    return 10 ** (exp + 1)
