"""The raw rule that sizes each dynamic dim of a request, below its words (:mod:`clients.shapes` is the rule and its
entry points; :mod:`clients.shape_refusals` words a ``--shape`` of the wrong form and checks the ``--shape`` it offers
with the checks here).

The checks of sizes against the config dims, the build's verified ranges, an axis's step and one size per shared axis
(:func:`check_ranges`), the batch size (:func:`check_batch_size`), the sizing of each input's dims
(:func:`size_inputs`) and what the spec calls each dim (:func:`labels`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from builders.model.spec import ModelSpec
from builders.model.spec_flags import size_problem
from builders.model.tensor import BATCH_AXIS, Dim, TensorSpec
from core.errors import ClientError

#: One input's config dims: ``(name, dims)``, ``-1`` for a dynamic dim.
ConfigInput = tuple[str, Sequence[int]]


@dataclasses.dataclass(frozen=True)
class DimSize:
    """How one dynamic dim got its size.

    Attributes:
        label: The spec's axis name (``"seq"``, ``"batch"`` for the leading batch axis of a
            ``max_batch_size: 0`` model), or ``"axis I"`` (its index in the config dims).
        size: The size sent.
        source: Why, in words: ``"--shape"``, ``"--shape ids:12"`` (another input's, for a
            shared axis), ``"the build's opt size of axis seq"``...
    """

    label: str
    size: int
    source: str

    def describe(self) -> str:
        """``"seq=64 (the build's opt size of axis seq)"``."""
        return f"{self.label}={self.size} ({self.source})"


@dataclasses.dataclass(frozen=True)
class ResolvedInput:
    """One input's concrete dims and how its dynamic dims got their sizes.

    Attributes:
        name: Input name (as served).
        dims: The config dims with every ``-1`` made concrete (no batch axis for a batching
            model; the leading batch axis of a ``max_batch_size: 0`` model included).
        given: Whether the dims came from the user's ``--shape``.
        sizes: One entry per dynamic dim, in order.
    """

    name: str
    dims: tuple[int, ...]
    given: bool
    sizes: tuple[DimSize, ...]

    def describe(self) -> str:
        """How its dynamic dims were sized, ``"; "``-joined (``""`` when it has none)."""
        return "; ".join(s.describe() for s in self.sizes)


def labels(dims: Sequence[int], tensor: TensorSpec | None, max_batch_size: int) -> list[Dim | None]:
    """What the build's spec calls each config dim of one input: an axis name (``"seq"``,
    :data:`~builders.model.spec.BATCH_AXIS` for the leading batch axis of a ``max_batch_size:
    0`` model), a fixed size, or ``None`` when the spec does not describe it."""
    if tensor is None:
        return [None] * len(dims)
    shape: list[Dim | None] = list(tensor.shape)
    if max_batch_size == 0 and len(dims) == len(shape) + 1:
        shape = list(tensor.full_shape())  # the config's leading -1 is the batch axis
    return shape if len(shape) == len(dims) else [None] * len(dims)


class Misfit(ClientError):
    """A ``--shape NAME:dims`` that does not fit its config dims, found by :func:`check_ranges`: never said in these
    words, :func:`clients.shape_refusals.misfit_refusal` says it with the dims meant.

    Attributes:
        name: The input named.
        given: The dims given.
    """

    def __init__(self, name: str, given: tuple[int, ...]):
        self.name, self.given = name, given
        super().__init__(f"--shape {name}:{_text(given)} does not fit its config dims", flag="--shape")


def check_ranges(
    model: str,
    inputs: Sequence[ConfigInput],
    max_batch_size: int,
    spec: ModelSpec | None,
    sizes: Mapping[str, Sequence[int]],
    source: str | None = None,
) -> dict[str, tuple[int, str]]:
    """Check user-given dims against the config and the build's verified ranges; bind the axes they size: the raw
    check of :func:`clients.shapes.check_sizes`, which words a ``--shape`` of the wrong form first and a misfit
    (:class:`Misfit`) with the dims meant (:mod:`clients.shape_refusals`). Arguments and return value: as
    :func:`clients.shapes.check_sizes`.

    Raises:
        Misfit: a ``--shape`` does not fit its config dims (or names no input).
        ClientError: a size outside its axis's verified ``min..max``; two sizes for one axis; a
            leading batch dim other than 1 of a ``max_batch_size: 0`` model.
    """
    config = {n: [int(d) for d in dims] for n, dims in inputs}
    tensors = {t.name: t for t in spec.inputs} if spec else {}
    ranges = spec.dynamic_axes if spec else {}
    bound: dict[str, tuple[int, str]] = {}
    for name, given in sizes.items():
        dims, given = config.get(name, []), tuple(int(d) for d in given)
        if len(given) != len(dims) or any(d >= 0 and g != d for d, g in zip(dims, given)):
            if source is not None:
                continue
            raise Misfit(name, given)
        what = f"--shape {name}:{_text(given)}" if source is None else f"input {name!r} of {source}"
        axes = labels(dims, tensors.get(name), max_batch_size)
        for axis, size in zip(axes, given):
            if not isinstance(axis, str) or axis == BATCH_AXIS:
                continue
            # outside min..max, or off the axis's step (builders.model.axis_steps): the rule a build's --sample meets too
            wrong = size_problem(axis, size, ranges[axis], spec.step(axis)) if spec and axis in ranges else None
            if wrong:  # typed: exit 2; a file's: a problem found (1)
                raise ClientError(f"{model}: {what}{wrong[0]}", hint=wrong[1], flag="--shape" if source is None else None)
            if bound.get(axis, (size, ""))[0] != size:
                raise ClientError(
                    f"{model}: {bound[axis][1]} and {what} give axis {axis} two sizes ({bound[axis][0]} and {size})",
                    hint=f"inputs that share axis {axis} take one size: give them the same",
                )
            bound.setdefault(axis, (size, what))
        if axes and axes[0] == BATCH_AXIS and given[0] != 1:  # after its other dims: the suggestion keeps them
            raise unverified_batch(model, name, given, what, source)
    return bound


def unverified_batch(model: str, name: str, given: Sequence[int], what: str, source: str | None) -> ClientError:
    """The refusal of a leading batch dim other than 1 of a ``max_batch_size: 0`` model's input (trial 28, T28-15:
    ``--shape tokens:3,16`` sent tokens at batch 3 and lengths at batch 1, and the server failed inside the model): its
    build verified it at batch 1 only (:func:`builders.verify.verification.verification_points`), and every other input
    is sent one sample, so one size of the batch axis for every input is 1."""
    one = f"{name}:{_text((1, *given[1:]))}"
    return ClientError(
        f"{model}: {what} sets the leading batch dim to {given[0]}, but {model} does not batch (max_batch_size 0): its "
        "build verified it at batch 1 only, and every other input is sent one sample",
        hint=(f"--shape {one}" if source is None else f"save one sample per request ({one})")
        + f" (one sample per request; perf_analyzer sends a max_batch_size 0 model so too); for {given[0]} rows per "
        f"request, use a variant with max_batch_size >= {given[0]} and the batch flag (clients infer -b {given[0]}; "
        f"triton-perf sweep and coldstart --batch-sizes {given[0]})",
        flag="--shape" if source is None else None,
    )


def size_inputs(
    model: str,
    inputs: Sequence[ConfigInput],
    max_batch_size: int,
    spec: ModelSpec | None,
    shapes: Mapping[str, tuple[int, ...]],
    bound: Mapping[str, tuple[int, str]],
) -> dict[str, ResolvedInput]:
    """The concrete dims of every input, by the rule of :mod:`clients.shapes`, from dims already checked
    (:func:`clients.shapes.resolve` checks them first).

    Args:
        model: Model (variant) name, for messages.
        inputs: The config's inputs, ``(name, dims)`` (``-1`` dynamic).
        max_batch_size: The config's ``max_batch_size``.
        spec: The build's spec under served names (named axes, ``opt`` sizes, verified
            ranges), or ``None`` for a repository without the toolkit's build manifest.
        shapes: The user's ``--shape`` values, checked: input name -> dims (win over the spec).
        bound: The axes they size, as :func:`check_ranges` returns them.

    Returns:
        Input name -> its resolved dims, in config order.

    Raises:
        ClientError: a dynamic dim that nothing sizes (the message names the input and the
            axis, the hint the ``--shape`` to give).
    """
    tensors = {t.name: t for t in spec.inputs} if spec else {}
    opt = spec.axis_sizes("opt") if spec else {}
    out: dict[str, ResolvedInput] = {}
    for name, config_dims in inputs:
        dims = [int(d) for d in config_dims]
        given = shapes.get(name)
        concrete: list[int] = []
        said: list[DimSize] = []
        for i, (d, axis) in enumerate(zip(dims, labels(dims, tensors.get(name), max_batch_size))):
            label = axis if isinstance(axis, str) else f"axis {i}"
            if d >= 0:
                concrete.append(d)
                continue
            if given is not None:
                size = DimSize(label, given[i], "--shape")
            elif axis == BATCH_AXIS:
                size = DimSize(label, 1, "max_batch_size 0: one sample per request")
            elif isinstance(axis, int):
                size = DimSize(label, axis, "the build's spec")
            elif isinstance(axis, str) and axis in bound:
                size = DimSize(label, bound[axis][0], f"as {bound[axis][1]} gives it")
            elif isinstance(axis, str) and axis in opt:
                size = DimSize(label, opt[axis], f"the build's opt size of axis {axis}")
            else:
                example = ",".join("N" if x < 0 else str(x) for x in dims)
                raise ClientError(
                    f"input {name!r} dims[{i}] is dynamic (-1 in config.pbtxt dims {dims}) and nothing gives its size"
                    + ("" if spec else " (the repository has no toolkit build manifest for this model)"),
                    hint=f"pass --shape {name}:{example} with N the size to send (perf_analyzer's --shape)",
                )
            concrete.append(size.size)
            said.append(size)
        out[name] = ResolvedInput(name, tuple(concrete), given is not None, tuple(said))
    return out


def check_batch_size(model: str, max_batch_size: int, batch_size: int, *, flag: str | None = None) -> None:
    """Refuse a batch size the model cannot take (the same rule as perf_analyzer's ``-b``).

    Args:
        model: The model's name, for the message.
        max_batch_size: Its config's ``max_batch_size`` (0: it does not batch).
        batch_size: Rows per request.
        flag: The flag the batch size was typed with (``"-b"``): the refusal is then a usage
            error of it (exit 2); ``None`` (default): one found while working (exit 1).

    Raises:
        ClientError: ``batch_size`` outside ``1..max_batch_size``, or above 1 for a model
            that does not batch (``max_batch_size: 0``: Triton takes each request as one
            sample, so perf_analyzer refuses ``-b`` above 1 there too).
    """
    if max_batch_size > 0 and not 1 <= batch_size <= max_batch_size:
        raise ClientError(
            f"{model}: batch size {batch_size} is outside 1..{max_batch_size} (max_batch_size)",
            hint="split the request or use a variant with a larger max_batch_size",
            flag=flag,
        )
    if max_batch_size == 0 and batch_size != 1:
        raise ClientError(
            f"{model} does not batch (max_batch_size 0): batch size {batch_size} cannot be sent",
            hint="use -b 1 (one sample per request; perf_analyzer refuses -b above 1 for it too), "
            "or a variant with max_batch_size > 0",
            flag=flag,
        )


def fitted_dims(dims: Sequence[int], given: Sequence[int]) -> list[int] | None:
    """The dims ``given`` meant for config ``dims``: a size for each dynamic dim alone (``image:24,40`` of ``[3, -1,
    -1]``: ``3,24,40``; s22z, Z-7), or every dim with another size at a fixed one (``1,24,40``: ``3,24,40``); ``None``
    for another count."""
    sizes = iter(given)
    if all(d >= 0 for d in dims):  # no dynamic dim: nothing to send other than the config's
        return None
    if len(given) == len(dims):
        return [d if d >= 0 else g for d, g in zip(dims, given)]
    return [d if d >= 0 else next(sizes) for d in dims] if 0 < len(given) == sum(d < 0 for d in dims) else None


def _text(dims: Sequence[int]) -> str:
    return ",".join(map(str, dims))


def batch_sizes_of(tensors: Sequence[TensorSpec], arrays: Mapping[str, Any]) -> dict[str, int]:
    """The size of the batch axis and of each named dynamic axis in one batch of inputs.

    Args:
        tensors: The inputs' specs (their ``shape`` names the dynamic axes; the batch axis is first).
        arrays: The inputs, by spec name (numpy arrays: only ``.shape`` is read).

    Returns:
        ``{"batch": 4, "ncat": 8}``: the batch first, then each axis in the order the inputs name
        it; empty when no input of ``tensors`` is in ``arrays``.
    """
    out: dict[str, int] = {}
    for t in tensors:
        shape = getattr(arrays.get(t.name), "shape", None)
        if shape is None or len(shape) != len(t.shape) + 1:
            continue
        out.setdefault(BATCH_AXIS, int(shape[0]))
        for d, size in zip(t.shape, shape[1:]):
            if isinstance(d, str):
                out.setdefault(d, int(size))
    return out


def batch_sizes_text(sizes: Mapping[str, int]) -> str:
    """``{"batch": 4, "ncat": 8}`` -> ``"batch 4, ncat=8"`` (``--shape``'s ``axis=size`` form for the axes)."""
    return ", ".join(f"{BATCH_AXIS} {v}" if k == BATCH_AXIS else f"{k}={v}" for k, v in sizes.items())
