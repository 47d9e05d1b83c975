"""Comparing an exported artifact with eager PyTorch, output by output (Polygraphy-style)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from core import precision as precisions

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
            that does not explode on near-zero elements.
        rtol: The tolerance applied to ``max_rel_err``.
        passed: ``max_rel_err <= rtol`` and no NaN/Inf, shapes and dtypes equal.
        problem: Why it failed, when it did (shape, dtype, NaN, tolerance).
    """

    name: str
    max_abs_err: float
    max_rel_err: float
    rtol: float
    passed: bool
    problem: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The manifest's record of this comparison: every field."""
        return dataclasses.asdict(self)


def compare_outputs(
    actual: dict[str, np.ndarray],
    expected: dict[str, np.ndarray],
    rtol: float | dict[str, float],
) -> list[OutputComparison]:
    """Compare every expected output with the actual one.

    Checks, in order: output present, same shape, reference finite (a model that itself
    produces NaN/Inf fails), actual finite, same dtype, ``max_rel_err <= rtol``. Errors are
    measured in float64. A failed tolerance names the tolerance that would have passed when
    the error could be rounding (below :data:`ROUNDING_LIMIT`).

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
        problem = None
        if act.dtype != exp.dtype:
            problem = f"dtype {act.dtype} != expected {exp.dtype} (the export changed the output's dtype)"
        elif max_rel > tol:
            problem = f"max relative error {max_rel:.3g} > tolerance {tol:g}" + (
                f" (rtol={_passing_tol(max_rel):g} would pass)" if max_rel < ROUNDING_LIMIT else ""
            )
        results.append(OutputComparison(name, max_abs, max_rel, tol, problem is None, problem))
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
