"""The command-line form of an input spec: ``--input NAME:DTYPE:SHAPE[:LOW..HIGH|:DOMAIN]`` (the range
may be one per position of the last axis: ``categories:int64:6:0..4,0..11,0..6,0..29,0..2,0..8``) and
``--dynamic-axis AXIS=MIN,OPT,MAX[/STEP]`` (:meth:`builders.model.spec.ModelSpec.from_flags`; the step:
:mod:`builders.model.axis_steps`)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from builders.model.axis_steps import axis_flag, off_step, range_words, spec_entry, split_step, widened
from builders.model.domains import DOMAINS
from builders.model.tensor import Dim, TensorSpec
from builders.model.value_ranges import parse_range_text, range_text
from core import dtypes
from core.errors import ModelSpecError
from core.names import bracketed_dims, x_separated_dims, x_separated_list


def parse_input_flag(text: str) -> TensorSpec:
    """Parse ``NAME:DTYPE:SHAPE[:LOW..HIGH|:DOMAIN]`` (see :meth:`ModelSpec.from_flags`); the
    fourth field is a value range, one ``LOW..HIGH`` per position of the last axis
    (``0..4,0..11,0..29``, :mod:`builders.model.value_ranges`), or a domain name
    (:data:`builders.model.domains.DOMAINS`).

    Raises:
        ModelSpecError: wrong number of fields, unknown dtype, bad shape or range.
    """
    parts = text.split(":")
    if len(parts) not in (3, 4) or not parts[0]:
        raise ModelSpecError(
            f"--input {text!r} does not parse",
            hint="expected NAME:DTYPE:SHAPE[:LOW..HIGH|:DOMAIN], e.g. pixels:float32:3,224,224, "
            "input_ids:int64:seq:0..30521, lengths:int64:1:1..time (a bound may name a dynamic axis: its size in the "
            "same request), categories:int64:3:0..4,0..11,0..29 (one range per position of the last axis) "
            "or attention_mask:int64:seq:mask",
            flag="--input",
        )
    plain = [bracketed_dims(p) or p for p in parts]
    if plain != parts:  # '[1,H,W]' was an axis 'W]' (trial 30, F9)
        which = "the shape" if plain[2] != parts[2] else "the value range"
        shown = parts[2] if plain[2] != parts[2] else parts[3]
        raise ModelSpecError(
            f"--input {text!r}: {which} {shown!r} is written in brackets: write it without brackets: {':'.join(plain)}",
            hint=f"--input {':'.join(plain)} (NAME:DTYPE:SHAPE[:LOW..HIGH|:DOMAIN], the dims comma-separated)",
            flag="--input",
        )
    dims = [x.strip() for x in parts[2].split(",") if x.strip()]
    if any(x_separated_dims(d) for d in dims):
        meant = ",".join(x_separated_dims(d) or d for d in dims)
        raise ModelSpecError(
            f"--input {text!r}: {parts[2]!r} is a shape typed with x, not the name of a dynamic axis: "
            f"dims are comma-separated: did you mean {meant}?",
            hint=f"--input {':'.join([*parts[:2], meant, *parts[3:]])}",
            flag="--input",
        )
    shape: list[Dim] = []
    for d in dims:
        shape.append(int(d) if d.lstrip("-").isdigit() else d)
    value_range = None
    domain = None
    if len(parts) == 4 and parts[3] in DOMAINS:
        domain = parts[3]
    elif len(parts) == 4:
        value_range = parse_range_text(parts[3])
        if value_range is None:
            raise ModelSpecError(
                f"--input {text!r}: {parts[3]!r} is neither a value range nor a domain",
                hint="expected LOW..HIGH (e.g. 0..30521), LOW..AXIS (at most the size of a dynamic axis in the same "
                "request, e.g. 1..time), one LOW..HIGH per position of the last axis (e.g. 0..4,0..11,0..29) or one of "
                f"the domains {', '.join(sorted(DOMAINS))}",
                flag="--input",
            )
    return TensorSpec(parts[0], parts[1], tuple(shape), value_range, domain=domain)


def parse_output_flag(text: str) -> str:
    """``--output NAME`` -> ``NAME``: an output is named only, its dtype and shape come from the eager model.

    Raises:
        ModelSpecError: a name followed by a dtype (``recon:float32:1,H,W``) or with brackets (``recon[1,H,W]``): a
            shape given to a flag that takes none, which was kept as the output's name (trial 30, F9's kind).
    """
    fields = text.split(":")
    name = fields[0].split("[")[0].split("(")[0].strip()
    if not bracketed_dims(text) and not (len(fields) > 1 and fields[1].strip() in dtypes.NAMES):
        return text
    return _refused_output(text, name or "NAME")


def _refused_output(text: str, name: str) -> str:
    raise ModelSpecError(
        f"--output {text!r} gives more than a name: --output takes the output's name only (its dtype and shape come "
        "from the model)",
        hint=f"--output {name} (a spec file's outputs may declare dtype and shape: "
        f'{{"name": "{name}", "dtype": "float32", "shape": [1, "H", "W"]}})',
        flag="--output",
    )


def input_flag(t: TensorSpec) -> str:
    """The ``--input`` value that gives ``t`` (:func:`parse_input_flag`'s inverse):
    ``"categories:int64:6:0..4,0..11,0..6,0..29,0..2,0..8"``."""
    last = t.domain or (range_text(t.value_range) if t.value_range is not None else None)
    return ":".join([t.name, t.dtype, ",".join(str(d) for d in t.shape), *([last] if last else [])])


def parse_axis_flag(text: str) -> tuple[str, tuple[int, int, int], int | None]:
    """Parse ``AXIS=MIN,OPT,MAX[/STEP]`` (e.g. ``seq=1,64,128``; ``H=64,128,256/32``: H takes multiples of 32).

    Returns:
        ``(axis, (min, opt, max), step)``, the step ``None`` when none is given.

    Raises:
        ModelSpecError: the text is not of that form.
    """
    name, sep, values = text.partition("=")
    if bracketed_dims(values):
        raise ModelSpecError(
            f"--dynamic-axis {text!r}: the sizes {values!r} are written in brackets: write them without brackets: "
            f"{name}={bracketed_dims(values)}",
            hint="expected AXIS=MIN,OPT,MAX[/STEP], e.g. seq=1,64,128 or H=64,128,256/32",
            flag="--dynamic-axis",
        )
    values, step = split_step(text, values)
    meant = x_separated_list(values)
    if sep and name and meant:
        raise ModelSpecError(
            f"--dynamic-axis {text!r}: the sizes are comma-separated: did you mean {name}={meant}?",
            hint="expected AXIS=MIN,OPT,MAX, e.g. seq=1,64,128",
            flag="--dynamic-axis",
        )
    form = "expected AXIS=MIN,OPT,MAX, e.g. seq=1,64,128"
    if not sep or not name:
        why = "has no '=' between the axis and its sizes" if not sep else "names no axis before '='"
        raise ModelSpecError(f"--dynamic-axis {text!r} {why}", hint=form, flag="--dynamic-axis")
    sizes = [v.strip() for v in values.split(",")]
    bad = [v for v in sizes if not v.lstrip("-").isdigit()]
    if bad or len(sizes) != 3:  # say which part is wrong (break test B5's kind: the form alone said nothing)
        why = (
            (f"{bad[0]!r} is not a whole number" if bad[0] else "a size is empty")
            if bad
            else f"gives {len(sizes)} sizes, not 3 (min, opt and max)"
        )
        raise ModelSpecError(f"--dynamic-axis {text!r}: {why}", hint=f"{form} (min <= opt <= max)", flag="--dynamic-axis")
    lo, opt, hi = (int(v) for v in sizes)
    return name, (lo, opt, hi), step


def axis_range_form(value: Any) -> Any:
    """A spec file's range of one dynamic axis (``"dynamic_axes": {"seq": [1, 64, 128]}``) checked for its form
    before its type is read, as :func:`parse_axis_flag` checks ``--dynamic-axis``: three whole numbers, said in one
    line with what is wrong (issue 26: ``[1, 64]`` got ``dynamic_axes.seq[2]: required field is missing``, four
    sizes pydantic's tuple text, a bool read as 1). The order of the sizes is :class:`~builders.model.spec.ModelSpec`'s
    to check.

    Raises:
        ValueError: not a list of three whole numbers (the record's validator says it beside the field).
    """
    items = list(value) if isinstance(value, (list, tuple)) else None
    if items is None:
        why = "not a list"
    elif len(items) != 3:
        why = f"{len(items)} sizes, not 3 (min, opt and max)"
    else:
        bad = [v for v in items if isinstance(v, bool) or not isinstance(v, int)]
        if not bad:
            return value
        why = f"{_json(bad[0])} is not a whole number"
    raise ValueError(f"[min, opt, max], three whole numbers smallest first (e.g. [1, 64, 128]); found {_json(value)}: {why}")


def _json(value: Any) -> str:
    try:
        return json.dumps(value)
    except TypeError:
        return repr(value)


def widened_range(bounds: tuple[int, int, int], sizes: Iterable[int]) -> tuple[int, int, int]:
    """``(min, opt, max)`` widened to hold ``sizes``: the end a size lies beyond moves out to
    it; the other end and ``opt`` stay (``opt`` was within the old range, so it is within the
    wider one). Sizes already within the range change nothing.

    Args:
        bounds: An axis's verified ``(min, opt, max)`` in the build's spec.
        sizes: The sizes to serve (each ``>= 1``).
    """
    lo, opt, hi = bounds
    sizes = list(sizes)
    lo, hi = min([lo, *sizes]), max([hi, *sizes])
    return lo, min(max(opt, lo), hi), hi


def wider_range_hint(axis: str, bounds: tuple[int, int, int], sizes: Iterable[int], verb: str = "serve", step: int = 1) -> str:
    """The advice of every size refused for leaving an axis's verified range (``clients infer
    --shape``, an input file, ``triton-perf sweep --shapes``, ``coldstart --shape``): the
    ``--dynamic-axis`` flag (and spec-file entry) of :func:`widened_range` (trial 9, F11: a size
    below ``min`` was told to rebuild with the range it already had).

    Args:
        axis: The dynamic axis (``"time"``).
        bounds: Its verified ``(min, opt, max)``.
        sizes: The refused sizes.
        verb: What the user wants to do with them (``"serve"``, ``"sweep"``).
        step: The axis's step (:mod:`builders.model.axis_steps`): the wider range's ends are multiples of it,
            and the flag keeps it.

    Returns:
        E.g. ``'to serve 8, rebuild with a wider range: builders build ... --dynamic-axis
        time=8,128,512 (a spec file: "dynamic_axes": {"time": [8, 128, 512]})'``.
    """
    sizes = sorted(set(sizes))
    wide = widened(widened_range(bounds, sizes), step)
    flag = f"builders build ... --dynamic-axis {axis_flag(axis, wide, step)} (a spec file: {spec_entry(axis, wide, step)})"
    off = [s for s in sizes if s % step]
    if not off:
        return f"to {verb} {_and(sizes)}, rebuild with a wider range: {flag}"
    # a size off the step is in no range of that step: say what the rebuild takes (trial 29, T29-12: "to sweep 10 and
    # 130, rebuild with ... time=16,64,144/16", a range that holds neither)
    said = (
        f"{_and(off)} {'is not a multiple' if len(off) == 1 else 'are not multiples'} of {step}, the step of axis {axis}, which a "
        f"rebuild keeps (a model that takes other sizes is rebuilt with another step after '/')"
    )
    if (wide[0], wide[2]) == (bounds[0], bounds[2]):
        return said
    return f"{said}; a rebuild with a wider range takes the multiples of {step} from {wide[0]} to {wide[2]}: {flag}"


def size_problem(
    axis: str, size: int, bounds: tuple[int, int, int], step: int = 1, verb: str = "serve"
) -> tuple[str, str] | None:
    """What is wrong with one size of a dynamic axis, and what to do: the one rule of every size a request, an input
    file or a build's ``--sample`` gives (:func:`clients.shape_sizes.check_ranges`,
    :func:`builders.verify.input_draws.load_sample`; trial 30, F22: a build took a sample that clients refuse).

    Returns:
        ``(" sets axis H to 72, outside the build's verified range 16..64", hint)`` for a size outside ``min..max``,
        ``(": 36 is not a multiple of 8, the step ...", hint)`` for one off the step (:func:`off_step`), each to
        follow what gave the size (``"--shape image:1,72,40"``); ``None`` when the size is one the build verifies.
    """
    lo, opt, hi = bounds
    if not lo <= size <= hi:
        verified = range_words(lo, hi, step)
        return (
            f" sets axis {axis} to {size}, outside the build's verified range {verified}",
            f"give {axis} within {verified} (the sizes the build checked the outputs at); "
            + wider_range_hint(axis, (lo, opt, hi), [size], verb=verb, step=step),
        )
    off = off_step(axis, [size], bounds, step)
    return (f": {off[0]}", off[1]) if off else None


def _and(sizes: list[int]) -> str:
    return ", ".join(map(str, sizes[:-1])) + (" and " if len(sizes) > 1 else "") + str(sizes[-1])
