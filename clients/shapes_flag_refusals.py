"""The refusal of ``triton-perf sweep --shapes NAME:dims`` (``--shape``'s form, where ``--shapes`` takes AXIS=SIZES),
answered from the model's config and build spec: the ``--shapes AXIS=SIZE`` of the build's axes meant, checked as
:mod:`clients.shape_refusals` checks every ``--shape`` it offers (:func:`clients.shape_refusals.refused_as`)."""

from __future__ import annotations

from collections.abc import Sequence

from builders.model.axis_steps import off_step, range_words
from builders.model.spec import ModelSpec
from builders.model.tensor import BATCH_AXIS
from clients.shape_refusals import names_axis, refused_as
from clients.shape_sizes import ConfigInput, labels
from core.errors import ClientError


def shapes_form_refusal(
    text: str, model: str, inputs: Sequence[ConfigInput], max_batch_size: int, spec: ModelSpec | None
) -> ClientError | None:
    """The refusal of ``triton-perf sweep --shapes NAME:dims`` (``--shape``'s form) naming the build's axes of that input's
    dynamic dims: ``--shapes image:3,16,16`` -> ``--shapes H=16 --shapes W=16`` (s22z, Z-15: "AXIS the build's name of
    image's dynamic axis" where the build names them); ``None`` where the model does not say (another input, other
    dims, no axis names): the flag's own words stand."""
    name, _, dims = text.rpartition(":")
    config = {n: [int(d) for d in d_] for n, d_ in inputs}
    at = config.get(name.strip())
    given = [d.strip() for d in dims.split(",")]
    if (
        at is None
        and spec is not None
        and all(g.isdigit() for g in given)
        and names_axis(name.strip(), inputs, max_batch_size, spec)
    ):
        return _axis_typed(text, model, spec, name.strip(), [int(g) for g in given])
    if at is None or len(given) != len(at) or not all(g.isdigit() for g in given):
        return None
    tensors = {t.name: t for t in spec.inputs} if spec else {}
    axes = labels(at, tensors.get(name.strip()), max_batch_size)
    swept = [f"--shapes {a}={g}" for a, d, g in zip(axes, at, given) if d < 0 and isinstance(a, str) and a != BATCH_AXIS]
    if not swept:
        return None
    why = refused_as(model, inputs, max_batch_size, spec, name.strip(), [int(g) for g in given])  # trial 28, T28-8
    of = f"the axes of {name.strip()}'s dynamic dims, config dims {at}, in {model}'s build"
    return ClientError(
        f"--shapes {text!r} is NAME:dims (--shape's form: one input's dims), not AXIS=SIZE: --shapes sweeps a dynamic "
        "axis by its name in the build's spec: "
        + (
            f"{' '.join(swept)} ({of}) would send those sizes, and {why.message}"
            if why
            else f"did you mean {' '.join(swept)} ({of}), or --shape {text.strip()} to send these dims at every level?"
        ),
        hint=f"{' '.join(s.partition('=')[0] + '=SIZES' for s in swept)}: {why.hint}" if why else None,
        flag="--shapes",
    )


def _axis_typed(text: str, model: str, spec: ModelSpec, axis: str, sizes: Sequence[int]) -> ClientError:
    """``--shapes time:32`` where ``time`` is an axis of the build: ``--shapes time=32``, where the sweep takes those sizes
    (trial 29, T29-11: it was offered ``--shape time:32``, which the same command refuses, time naming no input)."""
    lo, opt, hi = spec.dynamic_axes[axis]
    step = spec.step(axis)
    meant = f"--shapes {axis}={_text(sizes)}"
    form = f"--shapes {text!r} is NAME:dims (--shape's form: one input's dims), not AXIS=SIZE, and {axis} is a dynamic axis of {model}'s build"
    outside = [s for s in sizes if not lo <= s <= hi]
    off = off_step(axis, sizes, (lo, opt, hi), step)
    if outside:
        return ClientError(
            f"{form}: {meant} would sweep {_text(outside)}, outside the axis's range {range_words(lo, hi, step)} in the build's spec",
            hint=f"{axis}=SIZES: sweep sizes within {range_words(lo, hi, step)} (what the export was verified for)",
            flag="--shapes",
        )
    if off:
        return ClientError(f"{form}: {meant} would sweep {off[0]}", hint=f"{axis}=SIZES: {off[1]}", flag="--shapes")
    return ClientError(f"{form}: did you mean {meant}?", hint=f"{meant} (AXIS=SIZE: --shapes' form)", flag="--shapes")


def _text(dims: Sequence[int]) -> str:
    return ",".join(map(str, dims))
