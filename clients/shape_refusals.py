"""The refusals of a ``--shape`` that is not the form its flag takes, answered from the model's config and build spec
(:mod:`clients.shapes`' rule sizes the dims they suggest): one wording for ``clients infer``, ``triton-perf sweep``
and ``triton-perf coldstart`` (:func:`clients.shape_flags.refuse_shape_flags` finds the model)."""

from __future__ import annotations

from collections.abc import Sequence

from builders.model.spec import ModelSpec
from clients.shape_flags import AxisForm
from clients.shapes import ConfigInput, labels, resolve
from core.errors import ClientError


def axis_form_refusal(
    typed: AxisForm, model: str, inputs: Sequence[ConfigInput], max_batch_size: int, spec: ModelSpec | None
) -> ClientError:
    """The refusal of a ``--shape AXIS=SIZE`` (``--shapes``' form) for one model: whether the axis is one of its
    dynamic axes, and the ``--shape NAME:dims`` that sends that size, built from its config dims (the other
    dynamic dims at the sizes :func:`resolve` gives them; trial 26, T26-14).

    Args:
        typed: The flag as :func:`clients.shape_flags.parse_shape` refused it.
        model: The model (variant) name, for the message.
        inputs: Its config's inputs, ``(name, dims)``.
        max_batch_size: Its config's ``max_batch_size``.
        spec: The build's spec under served names (names the axes), or ``None``.
    """
    config = {n: [int(d) for d in dims] for n, dims in inputs}
    size, more = typed.sizes[0], typed.sizes[1:]
    one = f"; --shape sends one size (triton-perf sweep --shapes {typed.axis}={_text(typed.sizes)} measures each)" if more else ""
    if typed.axis in config:  # an input's name, '=' typed for ':'
        meant = f"{typed.axis}:{_text(typed.sizes)}"
        return ClientError(
            f"--shape {typed.text!r}: NAME:dims takes a colon: did you mean {meant}?",
            hint=f"--shape {meant} (input {typed.axis}'s config dims {config[typed.axis]}, without the batch axis; "
            "perf_analyzer's --shape)",
            flag="--shape",
        )
    tensors = {t.name: t for t in spec.inputs} if spec else {}
    try:
        sized = {n: list(r.dims) for n, r in resolve(model, inputs, max_batch_size, spec).items()}
    except ClientError:  # a dim nothing sizes: said as N
        sized = {}
    forms: list[tuple[str, list[int], str]] = []
    for name, dims in config.items():
        axes = labels(dims, tensors.get(name), max_batch_size)
        if typed.axis in axes:
            at = sized.get(name) or dims
            words = [str(size) if a == typed.axis else ("N" if d < 0 else str(d)) for a, d in zip(axes, at)]
            forms.append((name, dims, ",".join(words)))
    form = f"--shape {typed.text!r} is AXIS=SIZE (triton-perf sweep --shapes' form), not NAME:dims"
    if forms:
        name, dims, meant = forms[0]
        shared = [n for n, _, _ in forms[1:]]
        return ClientError(
            f"{form}: {typed.axis} is a dynamic axis of {model} (input {name}, config dims {dims}, -1 = dynamic), and "
            "--shape gives an input's dims: did you mean --shape " + f"{name}:{meant}?",
            hint=f"--shape {name}:{meant} (the dims without the batch axis, {typed.axis} at {size}; perf_analyzer's --shape)"
            + (
                f"; {', '.join(shared)} {'takes' if len(shared) == 1 else 'take'} the same size of the shared axis"
                if shared
                else ""
            )
            + one,
            flag="--shape",
        )
    named = sorted(spec.dynamic_axes) if spec else []
    dynamic = next(((n, d) for n, d in config.items() if any(x < 0 for x in d)), None)
    example = f"--shape {dynamic[0]}:{','.join('N' if x < 0 else str(x) for x in dynamic[1])}" if dynamic else None
    of = f" (config dims {dynamic[1]}, N the size)" if dynamic else ""
    return ClientError(
        f"{form}, and {typed.axis} names no dynamic axis of {model} ("
        + (
            f"its dynamic axes: {', '.join(named)}"
            if named
            else "its build names none"
            if spec
            else "no build spec names its axes"
        )
        + ")",
        hint=(
            f"give an input's dims without the batch axis, e.g. {example}{of}"
            if example
            else "its inputs have no dynamic dim: --shape is not needed"
        )
        + one,
        flag="--shape",
    )


def _text(dims: Sequence[int]) -> str:
    return ",".join(map(str, dims))
