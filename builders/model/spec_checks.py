"""What makes a :class:`builders.model.spec.ModelSpec` consistent, checked when one is made (:func:`require_consistent`):
unique tensor names, every dynamic axis an input names declared and every declared one named (a typo is named, with
the closest), the batch axis never declared nor moved from first, and the axes' steps within their ranges."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from builders.model.axis_steps import require_axes, undeclared_hint
from builders.model.tensor import BATCH_AXIS, TensorSpec
from core.errors import ModelSpecError
from core.names import require_known


class UnknownAxisError(ModelSpecError):
    """A declared dynamic axis no input's shape names (:func:`require_consistent`), said
    as ``--dynamic-axis``'s; :meth:`builders.model.spec.ModelSpec.from_json` says it as the spec's ``dynamic_axes``
    field when the axis came from a spec file (issue 26: the message named a flag never passed).

    Attributes:
        example: An axis an input names without a range (the one to declare), or ``"seq"``.
    """

    example = "seq"


def require_consistent(
    inputs: Sequence[TensorSpec],
    outputs: Sequence[TensorSpec],
    dynamic_axes: Mapping[str, tuple[int, int, int]],
    multiple_of: Mapping[str, int],
) -> None:
    """Check a spec of ``inputs``, ``outputs``, ``dynamic_axes`` and ``multiple_of`` as it is made
    (:meth:`builders.model.spec.ModelSpec.__post_init__`; its parts, not the spec: this module is below it).

    Raises:
        ModelSpecError: repeated tensor names, the batch axis in ``dynamic_axes``, a declared axis no input names
            (:class:`UnknownAxisError`), an axis an input names with no range, an input whose batch axis is not its
            first, or a step that does not fit its axis's range.
    """
    names = [t.name for t in (*inputs, *outputs)]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise ModelSpecError(
            f"tensor names must be unique; repeated: {', '.join(sorted(dup))}",
            hint="give each input and output its own name (an output may not share an input's name)",
            flag="--input",
        )
    used = {d for t in inputs for d in t.shape if isinstance(d, str)}
    missing = used - set(dynamic_axes)
    if BATCH_AXIS in dynamic_axes:
        raise ModelSpecError(
            f"{BATCH_AXIS!r} cannot be declared in dynamic_axes: its range is always (1, opt, max_batch_size)",
            hint="set the batch range with --max-batch-sizes",
            flag="--dynamic-axis",
        )
    _require_used_axes(inputs, outputs, dynamic_axes, used)
    if missing:
        users = [t.name for t in inputs if set(t.shape) & missing]
        axis = sorted(missing)[0]
        raise ModelSpecError(
            f"inputs {', '.join(users)} use dynamic axes {', '.join(sorted(missing))} with no declared range",
            hint=undeclared_hint(axis, dynamic_axes, multiple_of),
            flag="--dynamic-axis",
        )
    moved = [t for t in inputs if t.batch_axis != 0]
    if moved:
        raise ModelSpecError(
            f"input {moved[0].name!r} has batch_axis {moved[0].batch_axis}: Triton batches every input on its "
            "first axis (max_batch_size > 0 prepends it; the Triton model-configuration docs, 'Maximum Batch Size')",
            hint="drop batch_axis from inputs (it is an output fact, found from the model), or permute the "
            "input inside forward() and build with the batch first",
            flag="--spec",
        )
    require_axes(dynamic_axes, multiple_of)


def _require_used_axes(
    inputs: Sequence[TensorSpec], outputs: Sequence[TensorSpec], dynamic_axes: Mapping[str, tuple[int, int, int]], used: set[str]
) -> None:
    """Every declared dynamic axis (``--dynamic-axis``, the spec's ``dynamic_axes``) is one an
    input (or output) names: a typo is named, with the axes the inputs use
    (:func:`core.names.require_known`, the check of every flag that names inputs or axes).

    Raises:
        ModelSpecError: the unknown axis, the closest used one and every used one.
    """
    named = used | {d for t in outputs for d in t.shape if isinstance(d, str)}
    undeclared = sorted(used - set(dynamic_axes))
    example = undeclared[0] if undeclared else "seq"
    axis = next((a for a in dynamic_axes if a not in named), example)
    own = next((t for t in inputs if any(isinstance(d, str) for d in t.shape)), None)  # s22z, Z-7: its own input
    shape = [axis if d == next(x for x in own.shape if isinstance(x, str)) else d for d in own.shape] if own else [axis]
    where = f"--input {own.name}:{own.dtype}:{','.join(map(str, shape))}" if own else f"--input NAME:DTYPE:{axis}"
    try:
        require_known(
            "--dynamic-axis",
            (a for a in dynamic_axes if a not in named),
            sorted(used),
            kind="dynamic axis",
            owner="the model's inputs",
            error=UnknownAxisError,
            hint=f"give --dynamic-axis (or the spec's dynamic_axes) for an axis an input's shape names, e.g. "
            f"--dynamic-axis {example}=1,64,128, or name the axis in an input's shape ({where})",
        )
    except UnknownAxisError as e:
        e.example = example
        raise
