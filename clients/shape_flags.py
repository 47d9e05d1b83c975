"""The ``--shape NAME:dims`` grammar (perf_analyzer's ``--shape``: one input's dims without the batch axis of a
batching model), read by ``clients infer``, ``triton-perf sweep`` and ``triton-perf coldstart``; the sizes it gives
are checked and used by :mod:`clients.shapes`."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from core.errors import ClientError
from core.names import bracketed_dims, x_separated_list

#: What a ``--shape`` refusal is answered from: one model's name, its config inputs ``(name, dims)`` (``-1``
#: dynamic), its ``max_batch_size`` and its build's spec under served names (``None``: no toolkit build manifest).
ShapeModel = tuple[str, Sequence[tuple[str, Sequence[int]]], int, Any]

#: ``AXIS=SIZE[,SIZE...]``: ``triton-perf sweep --shapes``' form (a dynamic axis and its sizes), typed to ``--shape``.
AXIS_FORM = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*=\s*(\d+(?:\s*,\s*\d+)*)\s*$")


class AxisForm(ClientError):
    """A ``--shape`` typed in ``--shapes``' ``AXIS=SIZE`` form (trial 26, T26-14: ``--shape time=4000`` was told only
    "is not NAME:dims ... e.g. --shape input_ids:128"). Its words say the form; where the model is known,
    :func:`clients.shapes.refuse_shape_flags` says the ``NAME:dims`` to give, built from the model's config.

    Attributes:
        text: The flag's value as typed.
        axis: The axis it names (or an input's name, with ``=`` for ``:``).
        sizes: The sizes it gives.
    """

    def __init__(self, text: str, axis: str, sizes: tuple[int, ...]):
        self.text, self.axis, self.sizes = text, axis, sizes
        super().__init__(
            f"--shape {text!r} is AXIS=SIZE (triton-perf sweep --shapes' form: a dynamic axis and its size), not NAME:dims: "
            "--shape gives one input's dims",
            hint=f"give the input's dims without the batch axis, with {sizes[0]} where the {axis} axis is (an input of dims "
            f"[1, {axis}]: --shape NAME:1,{sizes[0]}; perf_analyzer's --shape); in triton-perf sweep, --shapes "
            f"{axis}={_text(sizes)} sends that size of the axis",
            flag="--shape",
        )


class NotNameDims(ClientError):
    """A ``--shape`` that is not ``NAME:dims`` (``--shape 3,24,40``, ``--shape image``). Its own example names no
    input; where the model is known, :func:`clients.shapes.refuse_shape_flags` gives one of its inputs (s22z, Z-7: the example was
    ``--shape input_ids:128``, an input the model lacked).

    Attributes:
        text: The flag's value as typed.
    """

    def __init__(self, text: str):
        self.text = text
        super().__init__(
            f"--shape {text!r} is not NAME:dims",
            hint="give an input's name and its dims without the batch axis, each >= 1, comma-separated: --shape "
            "NAME:D1,D2,... (perf_analyzer's --shape)",
            flag="--shape",
        )


class XSeparated(ClientError):
    """A ``--shape`` whose dims were ``x``-separated (``ids:3x64``): its own words offer the comma form and, where the
    first dim may be the batch size, the dims without it; where the model is known, :func:`clients.shapes.refuse_shape_flags` offers
    only the one the same command takes (trial 28, T28-8: every suggested ``--shape`` is checked first).

    Attributes:
        name: The input named.
        dims: The dims, as the comma form reads them.
    """

    def __init__(self, text: str, name: str, dims: tuple[int, ...]):
        self.name, self.dims = name, dims
        meant, first, rest = _text(dims), dims[0], _text(dims[1:])
        super().__init__(
            f"--shape {text!r}: dims are comma-separated: did you mean {name}:{meant}?",
            hint=f"--shape {name}:{meant} (the dims without the batch axis, perf_analyzer's --shape)"
            + (f"; if {first} is the batch size: {BATCH_APART.format(batch=first, shape=f'{name}:{rest}')}" if rest else ""),
            flag="--shape",
        )


class Bracketed(XSeparated):
    """A ``--shape`` whose dims were typed in brackets or parentheses (``image:[1,48,40]``; trial 30, F17: it was told
    "'[1', '40]' are not integers ... --shape image:N,48,N"). Its words say to write the dims without brackets; where
    the model is known it is answered as :class:`XSeparated` is (the form the same command takes, checked)."""

    def __init__(self, text: str, name: str, dims: tuple[int, ...]):
        self.name, self.dims = name, dims
        ClientError.__init__(
            self,
            f"--shape {text!r}: the dims are written in brackets: write them without brackets: {name}:{_text(dims)}",
            hint=f"--shape {name}:{_text(dims)} (the dims comma-separated, without the batch axis: perf_analyzer's --shape)",
            flag="--shape",
        )


#: How a shape that holds the batch axis is given instead (trial 10, F2: ``--shape input_ids:3x64``
#: for a one-dim input was told "did you mean input_ids:3,64?", which fails next for its rank).
BATCH_APART = (
    "--shape takes the dims without the batch axis (--shape {shape}) and the batch size goes to the "
    "command's batch flag (clients infer -b {batch}; triton-perf sweep and coldstart --batch-sizes {batch})"
)


def parse_shape(text: str) -> tuple[str, tuple[int, ...]]:
    """``--shape NAME:D1,D2`` (perf_analyzer's form; dims without the batch axis) -> ``(NAME, (D1, D2))``.

    The last ``:`` splits the name from the dims (``ns:x:4`` names ``ns:x``).

    Raises:
        AxisForm: ``AXIS=SIZE``, ``--shapes``' form (``time=4000``).
        XSeparated: ``NAME:3x64``.
        NotNameDims: no ``NAME:`` or no dims.
        ClientError: dims that are not integers >= 1.
    """
    form = AXIS_FORM.match(text)
    if form and ":" not in text:
        raise AxisForm(text, form.group(1), tuple(int(x) for x in form.group(2).split(",")))
    name, sep, dims = text.rpartition(":")
    plain = bracketed_dims(dims)
    if sep and name and plain:
        if all(d.isdigit() for d in plain.split(",")):
            raise Bracketed(text, name, tuple(int(d) for d in plain.split(",")))
        raise ClientError(
            f"--shape {text!r}: the dims are written in brackets: write them without brackets: {name}:{plain}",
            hint="give the dims comma-separated, each an integer, without the batch axis (perf_analyzer's --shape): "
            + _with_n(name, plain, lambda d: not d.isdigit()),
            flag="--shape",
        )
    meant = x_separated_list(dims)
    if sep and name and meant:
        raise XSeparated(text, name, tuple(int(d) for d in meant.split(",")))
    bad = [d.strip() for d in dims.split(",") if not d.strip().lstrip("-").isdigit()]
    if sep and name and dims.strip() and bad:  # name the part that is wrong, not the whole flag's form
        what = ", ".join(repr(b) if b else "an empty dim" for b in dict.fromkeys(bad))
        raise ClientError(
            f"--shape {text!r}: {what} {'is not an integer' if len(set(bad)) == 1 else 'are not integers'}: "
            "every dim must be an integer >= 1, the dims comma-separated",
            hint=f"give every dim of {name} as an integer, without the batch axis (perf_analyzer's --shape): "
            + _with_n(name, dims, lambda d: d in bad),
            flag="--shape",
        )
    try:
        shape = tuple(int(d) for d in dims.split(","))
    except ValueError:
        shape = ()
    if sep and name and shape and min(shape) < 1:
        raise ClientError(
            f"--shape {text!r}: every dim must be an integer >= 1",
            hint="give the dims without the batch axis (perf_analyzer's --shape): " + _with_n(name, dims, lambda d: int(d) < 1),
            flag="--shape",
        )
    if not sep or not name or not shape:
        raise NotNameDims(text)
    return name, shape


def _with_n(name: str, dims: str, wrong: Callable[[str], bool]) -> str:
    """The typed flag with ``N`` for each dim ``wrong`` picks: ``"--shape image:3,N,40 with N an integer >= 1"`` (its
    own input's name, never another model's: s22z, Z-7)."""
    parts = [d.strip() for d in dims.split(",")]
    return f"--shape {name}:{','.join('N' if wrong(d) else d for d in parts)} with N an integer >= 1"


def parse_shapes(values: Iterable[str]) -> dict[str, tuple[int, ...]]:
    """Every ``--shape`` flag -> ``{NAME: dims}``; one flag per input, holding all its dims.

    Raises:
        ClientError: a flag that does not parse (:func:`parse_shape`), or one input named by two
            flags (each read as one dim of a two-dim input, or as two sizes, it would be neither).
    """
    given: dict[str, list[tuple[int, ...]]] = {}
    for text in values:
        name, dims = parse_shape(text)
        given.setdefault(name, []).append(dims)
    twice = {name: all_dims for name, all_dims in given.items() if len(all_dims) > 1}
    if twice:
        name, all_dims = next(iter(twice.items()))
        raise ClientError(
            "; ".join(f"--shape {n} given {len(d)} times ({', '.join(_text(x) for x in d)})" for n, d in twice.items())
            + ": one flag gives every dim of an input",
            hint=f"give its dims in one flag, comma-separated, without the batch axis: --shape {name}:"
            + ",".join(str(x) for dims in all_dims for x in dims)
            + " (a model with two dims), or the one size you meant",
            flag="--shape",
        )
    return {name: all_dims[0] for name, all_dims in given.items()}


def colon_separated_dims(
    sizes: Mapping[str, Sequence[int]],
    config: Mapping[str, object],
    refused: Callable[[str, Sequence[int]], ClientError | None] = lambda name, dims: None,
) -> None:
    """Refuse a ``--shape`` whose dims were colon-separated (``image:3:300:300``, trial 13, T13-1).

    :func:`parse_shape` splits at the last colon, so that flag names ``image:3:300``; when the text
    before the last colon is an input's name followed by ``:`` and integers, the name was right and
    the separator was not, and "names no input" would point at the wrong part. ``refused`` says why
    the comma form would be refused in turn (:func:`clients.shape_refusals.refused_as`), said with it
    (trial 28, T28-8: no ``--shape`` is offered that the same command refuses).

    Raises:
        ClientError: naming the comma form, ``--shape image:3,300,300``.
    """
    for name, given in sizes.items():
        known = next((n for n in config if name.startswith(f"{n}:")), None)
        dims = name[len(known) + 1 :].split(":") if known else []
        if known and name not in config and all(d.strip().isdigit() for d in dims):
            meant = f"{known}:{_text([*map(int, dims), *given])}"
            why = refused(known, [*map(int, dims), *given])
            raise ClientError(
                f"--shape '{name}:{_text(given)}': dims are comma-separated, not colon-separated"
                + (f", and {why.message}" if why else f": did you mean {meant}?"),
                hint=why.hint or f"--shape {known}:D1,D2,... (NAME:dims, the dims comma-separated; perf_analyzer's --shape)"
                if why
                else f"--shape {meant} (NAME:dims, the dims without the batch axis, comma-separated; perf_analyzer's --shape)",
                flag="--shape",
            )


def _text(dims: Sequence[int]) -> str:
    return ",".join(map(str, dims))
