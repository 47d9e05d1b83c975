"""The refusals of a ``--shape`` that is not the form its flag takes, answered from the model's config and build spec
(:mod:`clients.shapes`' rule sizes and checks the dims they suggest: :mod:`clients.shape_sizes`): one wording for ``clients infer``, ``triton-perf sweep``
and ``triton-perf coldstart`` (:func:`clients.shapes.refuse_shape_flags` finds the model)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from builders.model.spec import ModelSpec
from builders.model.tensor import BATCH_AXIS
from clients.shape_flags import BATCH_APART, AxisForm, NotNameDims, XSeparated, colon_separated_dims
from clients.shape_sizes import ConfigInput, Misfit, check_batch_size, check_ranges, fitted_dims, labels, size_inputs
from core.errors import ClientError
from core.names import require_known


def refused_as(
    model: str,
    inputs: Sequence[ConfigInput],
    max_batch_size: int,
    spec: ModelSpec | None,
    name: str,
    dims: Sequence[int],
    batch: int | None = None,
) -> ClientError | None:
    """Why ``--shape NAME:dims`` (with ``batch`` rows per request, where given) would be refused: its refusal, the message
    without the model's name (``"--shape tokens:2 sets axis seq to 2, outside the build's verified range 8..64"``), the
    hint its own; ``None`` where it is taken. Every
    ``--shape`` a refusal suggests is checked here before it is offered (trial 28, T28-8: ``--shape tokens:16,2`` was
    told ``--shape tokens:2``, which the same command refused)."""
    try:
        if batch is not None:
            check_batch_size(model, max_batch_size, batch)
        check_sizes(model, inputs, max_batch_size, spec, {name: tuple(int(d) for d in dims)})
    except ClientError as e:
        return ClientError(e.message.removeprefix(f"{model}: "), hint=e.hint, flag=e.flag)
    return None


def check_sizes(
    model: str,
    inputs: Sequence[ConfigInput],
    max_batch_size: int,
    spec: ModelSpec | None,
    sizes: Mapping[str, Sequence[int]],
    source: str | None = None,
) -> dict[str, tuple[int, str]]:
    """Check user-given dims against the config and the build's verified ranges; bind the axes they size: a ``--shape``
    of the wrong form refused in its own words first (dims colon-separated, an axis named for an input, a name of no
    input), then the raw check (:func:`clients.shape_sizes.check_ranges`), a misfit said with the dims meant
    (:func:`misfit_refusal`). Callers name it :func:`clients.shapes.check_sizes`.

    Args:
        model: Model (variant) name, for messages.
        inputs: The config's inputs, ``(name, dims)``.
        max_batch_size: The config's ``max_batch_size``.
        spec: The build's spec under served names, or ``None`` (nothing to check ranges against).
        sizes: Input name -> dims without the batch axis of a batching model.
        source: Where ``sizes`` come from, for messages: ``None`` for ``--shape`` flags, else
            e.g. an input file's path (then inputs of another rank are left to
            :func:`clients.inputs.validate_inputs`).

    Returns:
        Each spec axis the dims size: ``axis -> (size, what gave it)``.

    Raises:
        ClientError: a ``--shape`` names no input or does not fit its config dims; a size
            outside its axis's verified ``min..max``; two sizes for one axis.
    """
    if source is None:
        config = {n: [int(d) for d in dims] for n, dims in inputs}
        colon_separated_dims(sizes, config, lambda n, d: refused_as(model, inputs, max_batch_size, spec, n, d))
        axis_as_input(model, inputs, max_batch_size, spec, sizes)
        require_known("--shape", sizes, config, kind="input", owner=model, error=ClientError)
    try:
        return check_ranges(model, inputs, max_batch_size, spec, sizes, source)
    except Misfit as misfit:  # its suggestions are checked by this function (refused_as)
        raise misfit_refusal(model, inputs, max_batch_size, spec, misfit.name, misfit.given) from None


def misfit_refusal(
    model: str, inputs: Sequence[ConfigInput], max_batch_size: int, spec: ModelSpec | None, name: str, given: Sequence[int]
) -> ClientError:
    """The refusal of a ``--shape NAME:dims`` that does not fit its config dims (:func:`clients.shape_sizes.check_ranges`):
    the dims meant, where they can be read (the batch axis first, trial 10, F2; the dynamic dims alone or another size
    at a fixed one, s22z, Z-7), offered only where the same command takes them (:func:`refused_as`; trial 28, T28-8);
    else why not, and the input's dims as it is sent by default (the build's opt sizes, in its verified ranges)."""
    dims = next([int(d) for d in d_] for n, d_ in inputs if n == name)
    said = f"--shape {name}:{_text(given)} does not fit its config dims {dims} (-1 = dynamic)"
    meant: Sequence[int] | None = fitted_dims(dims, given)
    rest = fitted_dims(dims[1:], given) if max_batch_size == 0 and dims and len(given) < len(dims) else None
    if rest is not None:  # a max_batch_size 0 model's dims typed without its leading batch dim, 1 (trial 29, T29-4)
        meant = [1, *rest]
    if max_batch_size > 0 and len(given) == len(dims) + 1:  # the batch axis first, or one dim too many at the end
        count = f": {len(given)} dims for {len(dims)}"
        batched = refused_as(model, inputs, max_batch_size, spec, name, given[1:], batch=given[0])
        if batched is None:
            return ClientError(
                f"{said}{count}, the first read as the batch axis",
                hint=BATCH_APART.format(batch=given[0], shape=f"{name}:{_text(given[1:])}"),
                flag="--shape",
            )
        said += f"{count}; with the first as the batch axis, {batched.message}"
        meant = given[:-1]
    why = refused_as(model, inputs, max_batch_size, spec, name, meant) if meant is not None else None
    if meant is not None and why is None:
        return ClientError(
            f"{said}: did you mean --shape {name}:{_text(meant)}?",
            hint=f"--shape {name}:{_text(meant)} (every dim {_without(max_batch_size)}, the fixed ones as the config "
            "gives them; perf_analyzer's --shape)",
            flag="--shape",
        )
    if meant is not None and why is not None:
        said += f"; {why.message}"
    try:
        sent = f", e.g. --shape {name}:{_text(size_inputs(model, inputs, max_batch_size, spec, {}, {})[name].dims)} (as it is sent by default)"
    except ClientError:  # a dim nothing sizes
        sent = ""
    return ClientError(
        said,
        hint=f"give every dim, {_without(max_batch_size)}; -1 dims are free (within the build's verified ranges), the "
        f"others fixed{sent}",
        flag="--shape",
    )


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
    dynamic dims at the sizes :func:`clients.shapes.resolve` gives them; trial 26, T26-14).

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
        sized = {n: list(r.dims) for n, r in size_inputs(model, inputs, max_batch_size, spec, {}, {}).items()}
    except ClientError:  # a dim nothing sizes: said as N
        sized = {}
    forms: list[tuple[str, list[int], str, str]] = []
    for name, dims in config.items():
        axes = labels(dims, tensors.get(name), max_batch_size)
        if typed.axis in axes:
            at = sized.get(name) or dims
            words = [
                str(size) if a == typed.axis else "1" if a == BATCH_AXIS else "N" if d < 0 else str(d) for a, d in zip(axes, at)
            ]
            forms.append((name, dims, ",".join(words), ",".join("N" if a == typed.axis else w for a, w in zip(axes, words))))
    form = form or f"--shape {typed.text!r} is AXIS=SIZE (triton-perf sweep --shapes' form), not NAME:dims"
    if forms:
        name, dims, meant, with_n = forms[0]
        shared = [n for n, *_ in forms[1:]]
        why = (
            None
            if "N" in meant.split(",")
            else refused_as(model, inputs, max_batch_size, spec, name, [int(w) for w in meant.split(",")])
        )
        return ClientError(
            f"{form}: {typed.axis} is a dynamic axis of {model} (input {name}, config dims {dims}, -1 = dynamic), and "
            "--shape gives an input's dims" + (f", and {why.message}" if why else f": did you mean --shape {name}:{meant}?"),
            hint=(
                f"--shape {name}:{with_n if why else meant} (the dims {_without(max_batch_size)}, "
                + (
                    f"{typed.axis} at N; perf_analyzer's --shape): {why.hint}"
                    if why
                    else f"{typed.axis} at {size}; perf_analyzer's --shape)"
                )
            )
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
    example, of = None, ""
    if dynamic:  # a max_batch_size 0 model's batch dim is 1, the one its build verified (trial 29, T29-4: N,4,N)
        lead = ["1"] if max_batch_size == 0 else []
        example = f"--shape {dynamic[0]}:{','.join(lead + ['N' if x < 0 else str(x) for x in dynamic[1][len(lead) :]])}"
        of = f" (config dims {dynamic[1]}, N the size)" + (
            f", as it is sent by default --shape {dynamic[0]}:{_text(sized[dynamic[0]])}" if dynamic[0] in sized else ""
        )
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
            f"give an input's dims {_without(max_batch_size)}, e.g. {example}{of}"
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
    parts, said, fits = [p.strip() for p in typed.text.split(",")], typed.message, []
    if ":" not in typed.text and all(p.isdigit() and int(p) >= 1 for p in parts):
        fits = [(n, m) for n, d in config.items() if (m := fitted_dims(d, [int(p) for p in parts])) is not None]
        taken = [(n, m) for n, m in fits if refused_as(model, inputs, max_batch_size, spec, n, m) is None]  # T28-8
        if taken:
            meant = f"{taken[0][0]}:{_text(taken[0][1])}"
            return ClientError(
                f"{typed.message}: the dims need their input's name: did you mean --shape {meant}?",
                hint=f"--shape {meant} (input {taken[0][0]}'s config dims {config[taken[0][0]]}, without the batch axis; "
                "perf_analyzer's --shape)",
                flag="--shape",
            )
        why = refused_as(model, inputs, max_batch_size, spec, *fits[0]) if fits else None
        if why is not None:  # the input they fit, and why those dims are refused: the example below is taken
            said = f"{said}: the dims need their input's name, and {why.message}"
    name = fits[0][0] if fits else typed.text.rpartition(":")[0].strip() or typed.text.strip()
    dynamic = [n for n, d in config.items() if any(x < 0 for x in d)]
    chosen = name if name in config else next(iter(dynamic or config), None)
    if chosen is None:
        return typed
    try:
        sized: list[int | str] = list(size_inputs(model, inputs, max_batch_size, spec, {}, {})[chosen].dims)
    except ClientError:  # a dim nothing sizes: said as N
        sized = ["N" if x < 0 else x for x in config[chosen]]
    sent = ",".join(map(str, sized))
    return ClientError(
        said,
        hint=f"give an input's name and its dims without the batch axis, each >= 1, e.g. --shape {chosen}:{sent} "
        f"({model}'s input {chosen}, config dims {config[chosen]}; perf_analyzer's --shape)",
        flag="--shape",
    )


def x_separated_refusal(
    typed: XSeparated, model: str, inputs: Sequence[ConfigInput], max_batch_size: int, spec: ModelSpec | None
) -> ClientError:
    """The refusal of ``--shape ids:3x64`` answered from the model: the comma form where the same command takes it,
    else why not, with the advice of that refusal (:func:`misfit_refusal`'s readings, each checked: trial 28, T28-8);
    the flag's own words for an input the model does not have."""
    if typed.name not in {n for n, _ in inputs}:
        return typed
    why = refused_as(model, inputs, max_batch_size, spec, typed.name, typed.dims)
    if why is None:
        first, rest = typed.dims[0], typed.dims[1:]
        batched = bool(rest) and refused_as(model, inputs, max_batch_size, spec, typed.name, rest, batch=first) is None
        return ClientError(
            typed.message,
            hint=f"--shape {typed.name}:{_text(typed.dims)} (the dims without the batch axis, perf_analyzer's --shape)"
            + (
                f"; if {first} is the batch size: {BATCH_APART.format(batch=first, shape=f'{typed.name}:{_text(rest)}')}"
                if batched
                else ""
            ),
            flag="--shape",
        )
    return ClientError(f"{typed.message.partition(': did you mean')[0]}, and {why.message}", hint=why.hint, flag="--shape")


def _text(dims: Sequence[int]) -> str:
    return ",".join(map(str, dims))


def _without(max_batch_size: int) -> str:
    """How a ``--shape``'s dims stand to the batch axis: a max_batch_size 0 model's leading dim is its batch axis, given
    as 1 (trial 29, T29-4: "without the batch axis" told its users to drop a dim the same command requires)."""
    return "without the batch axis" if max_batch_size > 0 else "with the leading batch dim 1 of a max_batch_size 0 model"
