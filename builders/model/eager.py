"""Running the eager model on inputs made from the spec, and the one error when it cannot run.

Every place a build runs the user's model (the output probe before any export, the reference
data, every verification point and draw, the user's ``--sample``) goes through
:func:`run_keyed`, so a model that does not run at some size the spec allows fails with one
:class:`core.errors.ModelSpecError` that names the point (batch, each dynamic axis' size and
whether it is that axis' ``min``/``max``), the model's error and its line, and what to change
(:func:`run_failure`) — never a traceback. The exporters trace at the export sizes, which the
probe runs first (:func:`builders.model.outputs.infer_outputs`).
"""

from __future__ import annotations

import math
from typing import Any

from builders.model.axis_steps import axis_flag
from builders.model.lookups.index_ranges import diagnose
from builders.model.spec import ModelSpec
from builders.model.user_frame import user_frame
from core.errors import ModelSpecError

Key = tuple[str | int, ...]


def flatten_with_keys(out: Any, prefix: Key = ()) -> list[tuple[Key, Any]]:
    """Flatten a model's output (tensor, tuple/list, or dict in insertion order) to
    ``(key, tensor)`` pairs; see :mod:`builders.model.outputs` for keys."""
    if isinstance(out, (list, tuple)):
        return [kt for i, o in enumerate(out) for kt in flatten_with_keys(o, (*prefix, i))]
    if isinstance(out, dict):
        return [kt for k, o in out.items() for kt in flatten_with_keys(o, (*prefix, k))]
    return [(prefix, out)]


def run_eager(module: Any, spec: ModelSpec, inputs: dict[str, Any]) -> list[Any]:
    """Run the eager model on numpy ``inputs`` (name -> array, spec input order) without
    gradients; returns its flattened outputs as torch tensors.

    Raises:
        ModelSpecError: the model does not run on ``inputs`` (:func:`run_keyed`).
    """
    return [t for _k, t in run_keyed(module, spec, inputs)]


def run_keyed(module: Any, spec: ModelSpec, inputs: dict[str, Any]) -> list[tuple[Key, Any]]:
    """Run the eager model; its flattened outputs with their keys.

    Raises:
        ModelSpecError: an integer value past a table it indexes (torch's bare ``IndexError``:
            :func:`builders.model.lookups.index_ranges.diagnose` names the input and the range it
            accepts), or any other failure (:func:`run_failure`).
    """
    import torch

    try:
        with torch.no_grad():
            return flatten_with_keys(module(*(torch.from_numpy(inputs[t.name]) for t in spec.inputs)))
    except ModelSpecError:
        raise
    except Exception as e:
        raise (diagnose(module, spec, inputs, e) or run_failure(spec, inputs, e)) from e


def point_sizes(spec: ModelSpec, inputs: dict[str, Any]) -> tuple[int, dict[str, int]]:
    """``(batch, dynamic-axis sizes)`` of ``inputs`` (name -> ``[batch, ...]`` array)."""
    sizes: dict[str, int] = {}
    for t in spec.inputs:
        for d, n in zip(t.shape, inputs[t.name].shape[1:]):
            if isinstance(d, str):
                sizes.setdefault(d, int(n))
    return int(inputs[spec.inputs[0].name].shape[0]), sizes


def _end(spec: ModelSpec, axis: str, size: int) -> str | None:
    """``"min"``/``"max"`` when ``size`` is that end of ``axis``' range (and not its opt)."""
    lo, opt, hi = spec.dynamic_axes.get(axis, (None, None, None))
    if size == opt:
        return None
    return "min" if size == lo else "max" if size == hi else None


def run_failure(spec: ModelSpec, inputs: dict[str, Any], error: BaseException) -> ModelSpecError:
    """The one error for an eager run that raised ``error`` on ``inputs``.

    The message names the point (batch and every dynamic axis' size, with its range; an axis at
    its ``min`` or ``max`` says so), the error's first 300 characters and the line of the
    user's code that raised it (:func:`builders.model.user_frame.user_frame`). The hint says to
    raise the ``min`` (lower the ``max``) of the axes at that end — the build verifies, and
    clients may send, every size of the range — or to fix the line when the spec is right.
    """
    batch, sizes = point_sizes(spec, inputs)
    ends = {a: _end(spec, a, n) for a, n in sizes.items()}
    at = ", ".join(
        [f"batch {batch}"]
        + [
            f"{a}={n} ({f'the min of dynamic axis {a!r}, ' if ends[a] == 'min' else ''}"
            f"{f'the max of dynamic axis {a!r}, ' if ends[a] == 'max' else ''}range {list(spec.dynamic_axes[a])})"
            if a in spec.dynamic_axes
            else f"{a}={n}"
            for a, n in sizes.items()
        ]
    )
    where = user_frame(error)
    bug = ", or fix the line above if the spec is right (a bug in the model itself)" if where else ""
    lows = [a for a, e in ends.items() if e == "min"]
    highs = [a for a, e in ends.items() if e == "max"]
    off = [a for a, n in sizes.items() if spec.off_axis_sizes().get(a) == n]
    if off and not (lows or highs):  # a size between the ends, off every multiple (trial 30, F1)
        a = off[0]
        lo, opt, hi = spec.dynamic_axes[a]
        step = math.gcd(lo, opt, hi)
        hint = (
            f"{a}={sizes[a]} lies within the range {lo}..{hi}{' in steps of ' + str(spec.step(a)) if spec.step(a) > 1 else ''}, "
            "so clients may send it and the build verifies it: if forward() takes only multiples of a number, declare it "
            f"as the axis's step (--dynamic-axis {axis_flag(a, (lo, opt, hi), step if step > 1 else 2)}, the multiple "
            'the model needs; a spec file\'s "multiple_of")' + bug
        )
    elif lows or highs:
        moves = [f"raise the min of {a!r} to the smallest size forward() accepts" for a in lows]
        moves += [f"lower the max of {a!r} to the largest size forward() accepts" for a in highs]
        example = (lows or highs)[0]
        hint = (
            "; ".join(moves) + f' (the spec\'s "dynamic_axes" or --dynamic-axis {example}=MIN,OPT,MAX): the build verifies every '
            "axis at its min, opt and max, and clients may send any size in the range (a model that takes only multiples "
            f"of a number declares it as the axis's step: --dynamic-axis {example}=MIN,OPT,MAX/STEP)" + bug
        )
    else:
        hint = (
            "check the input names' order, per-sample shapes, dtypes, value ranges and dynamic axis ranges against forward()"
            + bug
        )
    return ModelSpecError(
        f"the model does not run on inputs made from the spec at {at}: {type(error).__name__}: {str(error)[:300]}"
        + (f"\n  raised at {where}" if where else ""),
        hint=hint,
    )
