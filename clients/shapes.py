"""The one rule that sizes each dynamic dim of a request (the ``--shape NAME:dims`` grammar: :mod:`clients.shape_flags`).

``clients infer``, the sweep's perf_analyzer flags (:mod:`perf.measure.inputs`) and the
cold-start requests (:mod:`perf.coldstart.measure`) all size inputs here, so the same flags
send the same shapes everywhere.

The rule, for each ``-1`` in an input's ``config.pbtxt`` dims (Triton docs, "Model
Configuration: Inputs and Outputs"), in order:

1. the user's ``--shape NAME:dims`` for that input: the per-request dims without the batch
   axis of a batching model (perf_analyzer's ``--shape`` form);
2. where the build's spec names the dim's axis (``"seq"``): the size another input's
   ``--shape`` gave that axis (inputs that share an axis, ``input_ids`` and
   ``attention_mask``, share its size), else the axis's ``opt`` size
   (:attr:`builders.model.spec.ModelSpec.dynamic_axes`);
3. the leading batch axis of a ``max_batch_size: 0`` model: 1 (one sample per request, as
   perf_analyzer sends it; its build verified it at batch 1 only, so a ``--shape`` or input
   file that sets it to another size is refused: every input of a request shares it);
4. else one error naming the input, the axis and the ``--shape`` to give: never a guess, which
   would send (and measure) another workload than the user's.

Sizes given by ``--shape`` or carried by an input file are checked against the build's
verified range of their axis before any request is sent (:func:`check_sizes`): the ``(min,
max)`` of :attr:`~builders.model.spec.ModelSpec.dynamic_axes`, at both ends of which the build
compared the export's outputs with PyTorch's
(:func:`builders.verify.verification.verification_points`) and which bounds a TensorRT
engine's optimisation profile. A size outside is refused, as ``triton-perf sweep --shapes``
refuses it, and so is one off its axis's step (:mod:`builders.model.axis_steps`); two sizes for one shared axis too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NoReturn

import click

from builders.model.spec import ModelSpec
from clients.shape_flags import AxisForm, NotNameDims, ShapeModel, XSeparated, parse_shape
from clients.shape_refusals import axis_form_refusal, check_sizes, name_dims_refusal, names_axis, x_separated_refusal
from clients.shape_sizes import (
    ConfigInput,
    DimSize,
    ResolvedInput,
    batch_sizes_of,
    batch_sizes_text,
    check_batch_size,
    labels,
    size_inputs,
)
from core.errors import ToolkitError
from core.flag_refusals import named_once

#: The raw rule's names its callers import from here (clients.shape_sizes holds them, below the refusals' words;
#: clients.shape_refusals holds check_sizes, which words a --shape of the wrong form first).
__all__ = [
    "ConfigInput",
    "DimSize",
    "ResolvedInput",
    "batch_sizes_of",
    "batch_sizes_text",
    "check_batch_size",
    "check_sizes",
    "labels",
    "refuse_shape_flags",
    "resolve",
]


def resolve(
    model: str,
    inputs: Sequence[ConfigInput],
    max_batch_size: int,
    spec: ModelSpec | None,
    shapes: Mapping[str, Sequence[int]] | None = None,
) -> dict[str, ResolvedInput]:
    """The concrete dims of every input, by the module's rule.

    Args:
        model: Model (variant) name, for messages.
        inputs: The config's inputs, ``(name, dims)`` (``-1`` dynamic).
        max_batch_size: The config's ``max_batch_size``.
        spec: The build's spec under served names (named axes, ``opt`` sizes, verified
            ranges), or ``None`` for a repository without the toolkit's build manifest.
        shapes: The user's ``--shape`` values: input name -> dims (win over the spec).

    Returns:
        Input name -> its resolved dims, in config order.

    Raises:
        ClientError: see :func:`check_sizes`; a dynamic dim that nothing sizes (the message
            names the input and the axis, the hint the ``--shape`` to give).
    """
    given = {k: tuple(int(d) for d in v) for k, v in (shapes or {}).items()}
    return size_inputs(model, inputs, max_batch_size, spec, given, check_sizes(model, inputs, max_batch_size, spec, given))


def refuse_shape_flags(error: click.BadParameter, shapes: Iterable[str], models: Callable[[], Iterable[ShapeModel]]) -> NoReturn:
    """Raise ``error`` (a ``--shape`` that does not parse: :func:`clients.shape_flags.parse_shapes`), answered from the model where it can
    be read: the one rule of ``clients infer``, ``triton-perf sweep`` and ``triton-perf coldstart`` (s22z, Z-15: the
    sweep's ``--shape H=16`` got the form's own words where clients infer named ``--shape image:3,16,32``). The first
    flag that does not parse decides: ``AXIS=SIZE`` (:class:`~clients.shape_flags.AxisForm`) is told the ``NAME:dims`` that sends the size,
    from the first model whose build names the axis (:func:`clients.shape_refusals.axis_form_refusal`); a flag that
    names no input (:class:`~clients.shape_flags.NotNameDims`) an example of the model's own inputs.

    Args:
        error: The usage error of the flags as :func:`clients.shape_flags.parse_shapes` refused them.
        shapes: The ``--shape`` values as typed.
        models: The models the flags are for (:data:`~clients.shape_flags.ShapeModel`), read only for this refusal; a
            :class:`~core.errors.ToolkitError` (no server, no such variant) leaves ``error``'s own words.

    Raises:
        click.BadParameter: always.
    """
    for text in shapes:
        try:
            parse_shape(text)
        except (AxisForm, NotNameDims, XSeparated) as typed:
            try:
                known = list(models())
            except ToolkitError:  # no server, no such model: the form's own words
                break
            if not known:
                break
            if isinstance(typed, AxisForm):
                said = axis_form_refusal(typed, *next((m for m in known if names_axis(typed.axis, *m[1:])), known[0]))
            elif isinstance(typed, XSeparated):
                said = x_separated_refusal(typed, *next((m for m in known if typed.name in dict(m[1])), known[0]))
            else:
                said = name_dims_refusal(typed, *known[0])
            raise named_once(
                click.BadParameter(str(said), ctx=error.ctx, param=error.param, param_hint=error.param_hint)
            ) from None
        except ToolkitError:
            break
    raise error
