"""The refusals of a ``--shape`` that is not the form its flag takes, answered from the model's config and build spec
(:mod:`clients.shapes`' rule sizes the dims they suggest): one wording for ``clients infer``, ``triton-perf sweep``
and ``triton-perf coldstart`` (:func:`clients.shape_flags.refuse_shape_flags` finds the model)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from builders.model.spec import ModelSpec
from builders.model.tensor import BATCH_AXIS
from clients.shape_flags import AxisForm, NotNameDims, ShapeModel
from clients.shapes import ConfigInput, fitted_dims, labels, resolve
from core.errors import ClientError


def axis_form_refusal(
    typed: AxisForm,
    model: str,
    inputs: Sequence[ConfigInput],
    max_batch_size: int,
    spec: ModelSpec | None,
    form: str | None = None,
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
        form: What the flag is, its refusal's first words (default: ``AXIS=SIZE``, ``--shapes``' form; an axis
            typed as an input's name, ``--shape H:24``, says so: s22z, Z-7).
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
    form = form or f"--shape {typed.text!r} is AXIS=SIZE (triton-perf sweep --shapes' form), not NAME:dims"
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


def axis_as_input(
    model: str, inputs: Sequence[ConfigInput], max_batch_size: int, spec: ModelSpec | None, sizes: Mapping[str, Sequence[int]]
) -> None:
    """Refuse a ``--shape`` that names one of the build's axes, not an input (``--shape H:24``; s22z, Z-7: "'H' names no
    input" where ``H=24`` got the ``NAME:dims`` to give): :func:`axis_form_refusal`'s answer, ``--shape image:3,24,32``.

    Raises:
        ClientError: naming the axis's input and the ``--shape`` that sends that size.
    """
    config = {n for n, _ in inputs}
    for name, given in sizes.items():
        if name not in config and names_axis(name, inputs, max_batch_size, spec):
            text = f"{name}:{_text(given)}"
            typed = AxisForm(text, name, tuple(int(g) for g in given))
            raise axis_form_refusal(
                typed, model, inputs, max_batch_size, spec, form=f"--shape {text!r} names an axis, not an input"
            )


def names_axis(axis: str, inputs: Sequence[ConfigInput], max_batch_size: int, spec: ModelSpec | None) -> bool:
    """Whether the build's spec names ``axis`` in one of the model's inputs."""
    tensors = {t.name: t for t in spec.inputs} if spec else {}
    return any(axis in labels([int(d) for d in dims], tensors.get(n), max_batch_size) for n, dims in inputs)


def name_dims_refusal(
    typed: NotNameDims, model: str, inputs: Sequence[ConfigInput], max_batch_size: int, spec: ModelSpec | None
) -> ClientError:
    """The refusal of a ``--shape`` that is not ``NAME:dims``, with an example of the model's own inputs (s22z, Z-7:
    ``e.g. --shape input_ids:128`` for a model without one): dims typed without a name (``--shape 3,24,40``) are told
    the input they fit; else the input typed, or the first with a dynamic dim, at the sizes it is sent by default."""
    config = {n: [int(d) for d in dims] for n, dims in inputs}
    parts = [p.strip() for p in typed.text.split(",")]
    if ":" not in typed.text and all(p.isdigit() and int(p) >= 1 for p in parts):
        fits = [(n, m) for n, d in config.items() if (m := fitted_dims(d, [int(p) for p in parts])) is not None]
        if fits:
            meant = f"{fits[0][0]}:{_text(fits[0][1])}"
            return ClientError(
                f"{typed.message}: the dims need their input's name: did you mean --shape {meant}?",
                hint=f"--shape {meant} (input {fits[0][0]}'s config dims {config[fits[0][0]]}, without the batch axis; "
                "perf_analyzer's --shape)",
                flag="--shape",
            )
    name = typed.text.rpartition(":")[0].strip() or typed.text.strip()
    dynamic = [n for n, d in config.items() if any(x < 0 for x in d)]
    chosen = name if name in config else next(iter(dynamic or config), None)
    if chosen is None:
        return typed
    try:
        sized: list[int | str] = list(resolve(model, inputs, max_batch_size, spec)[chosen].dims)
    except ClientError:  # a dim nothing sizes: said as N
        sized = ["N" if x < 0 else x for x in config[chosen]]
    sent = ",".join(map(str, sized))
    return ClientError(
        typed.message,
        hint=f"give an input's name and its dims without the batch axis, each >= 1, e.g. --shape {chosen}:{sent} "
        f"({model}'s input {chosen}, config dims {config[chosen]}; perf_analyzer's --shape)",
        flag="--shape",
    )


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
    if at is None or len(given) != len(at) or not all(g.isdigit() for g in given):
        return None
    tensors = {t.name: t for t in spec.inputs} if spec else {}
    axes = labels(at, tensors.get(name.strip()), max_batch_size)
    swept = [f"--shapes {a}={g}" for a, d, g in zip(axes, at, given) if d < 0 and isinstance(a, str) and a != BATCH_AXIS]
    if not swept:
        return None
    return ClientError(
        f"--shapes {text!r} is NAME:dims (--shape's form: one input's dims), not AXIS=SIZE: --shapes sweeps a dynamic "
        f"axis by its name in the build's spec: did you mean {' '.join(swept)} (the axes of {name.strip()}'s dynamic dims, "
        f"config dims {at}, in {model}'s build), or --shape {text.strip()} to send these dims at every level?",
        flag="--shapes",
    )


def repository_models(repository: Path, variants: Sequence[str]) -> Iterator[ShapeModel]:
    """The models of ``variants`` (names or patterns, as ``--variants`` takes them; every variant where empty) in
    ``repository``, from their config.pbtxt and build manifest, read as they are needed: what a ``--shape`` refusal of
    ``triton-perf sweep`` and ``coldstart`` is answered from (:func:`clients.shape_flags.refuse_shape_flags`).

    Raises:
        ToolkitError: no such repository or variant, or a config that does not read.
    """
    from google.protobuf import json_format

    from builders.config.pbtxt import read_config
    from builders.repository.view import Repository

    repo = Repository(repository)
    for name in repo.names(variants, indexed=False):
        cfg = json_format.MessageToDict(read_config(repo.path / name / "config.pbtxt"), preserving_proto_field_name=True)
        dims = [(i["name"], [int(d) for d in i.get("dims", [])]) for i in cfg.get("input", [])]
        yield name, dims, int(cfg.get("max_batch_size", 0) or 0), repo.variant(name).served_spec


def _text(dims: Sequence[int]) -> str:
    return ",".join(map(str, dims))
