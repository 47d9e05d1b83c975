"""The values of ``triton-perf sweep``'s flags that are more than a click type:
``--concurrency`` (levels, ranges, ``auto``), ``--request-rates`` and ``--shapes`` (``--shape``
is :func:`clients.shape_flags.parse_shapes`)
(:class:`perf.sweep.options.SweepOptions` names them as its fields' parsers)."""

from __future__ import annotations

import click

from core.cli import CommaList
from core.names import bracketed_dims, x_separated_list
from perf.records.results import MIXED
from perf.search.policy import AUTO


def concurrency_item(text: str) -> list[int] | list[str]:
    """One part of ``--concurrency``: ``auto`` (the adaptive ladder, :mod:`perf.search.policy`), a
    level ``4``, or perf_analyzer's linear range ``start:end[:step]`` (``1:8:2`` -> 1, 3, 5, 7).

    Raises:
        ValueError: not ``auto``, an integer >= 1 or a valid range.
    """
    if text.strip().lower() == AUTO:
        return [AUTO]
    if ":" in text:
        try:
            parts = [int(x) for x in text.split(":")]
        except ValueError:
            raise ValueError("a range is start:end[:step] with integers") from None
        if len(parts) not in (2, 3) or parts[0] < 1 or parts[1] < parts[0] or (len(parts) == 3 and parts[2] < 1):
            raise ValueError("a range is start:end[:step] with 1 <= start <= end and step >= 1")
        return list(range(parts[0], parts[1] + 1, parts[2] if len(parts) == 3 else 1))
    try:
        level = int(text)
    except ValueError:
        raise ValueError(f"{text!r} is not auto, a level (an integer >= 1) or a range start:end[:step]") from None
    if level < 1:
        raise ValueError("concurrency levels are >= 1")
    return [level]


def concurrency_list(text: str) -> tuple[int, ...]:
    """``"1,2,4"`` (a list) or ``"start:end[:step]"`` (perf_analyzer's linear range), or both mixed.

    Raises:
        click.BadParameter: a part is neither.
    """
    return CommaList(concurrency_item).convert(text, None, None)  # a text of no level is refused there


def concurrency_setting(levels: tuple[int | str, ...]) -> tuple[int, ...] | str:
    """The ``--concurrency`` values as :attr:`SweepOptions.concurrency`: ``"auto"`` alone, or the levels.

    Raises:
        click.BadParameter: ``auto`` mixed with levels.
    """
    if AUTO in levels:
        if len(levels) > 1:
            raise click.BadParameter(
                f"--concurrency auto grows its own levels; got it with {list(levels)}: pass one or the other"
            )
        return AUTO
    return tuple(int(c) for c in levels)


#: The form of one ``--shapes`` flag, said by every refusal of one.
SHAPES_FORM = "AXIS=SIZE[,SIZE...] or AXIS=LOW..HIGH, e.g. seq=16,64,128 or time=1000..16000 (a mix of sizes across the range)"


def parse_shapes_flag(text: str) -> tuple[str, tuple[int | str, ...]]:
    """``--shapes seq=16,64,128`` -> ``("seq", (16, 64, 128))``; a range ``LO..HI`` is one mixed
    workload (requests of sizes drawn across it, :mod:`perf.measure.mixed`), kept as its text:
    ``--shapes time=1000..16000`` -> ``("time", ("1000..16000",))``.

    Raises:
        click.BadParameter: not ``AXIS=SIZE|LO..HI[,...]`` with sizes >= 1 and ``LO < HI``; the
            message names the item that is wrong and why (break test B5: a reversed range, a range
            of one size, a size below 1 and two axes in one flag all got the form alone).
    """
    plain = bracketed_dims(text)
    if plain:  # 'H=[16,32]' (trial 30, F17's kind)
        raise click.BadParameter(f"--shapes {text!r}: the sizes are written in brackets: write them without brackets: {plain}")
    name, colon, dims = text.rpartition(":")
    if colon and name.strip() and "=" not in text and dims.replace(",", "").strip().isdigit():  # --shape's form (T26-14)
        last = dims.split(",")[-1].strip()
        raise click.BadParameter(
            f"--shapes {text!r} is NAME:dims (--shape's form: one input's dims), not AXIS=SIZE: --shapes sweeps a dynamic "
            f"axis by its name in the build's spec; did you mean --shapes AXIS={last}, AXIS the build's name of "
            f"{name.strip()}'s dynamic axis (a name the build does not have is refused with its axes listed), or --shape "
            f"{text.strip()} to send these dims at every level?"
        )
    axis, sep, sizes = text.partition("=")
    axis = axis.strip()
    meant = x_separated_list(sizes)
    if sep and axis and meant:
        raise click.BadParameter(f"--shapes {text!r}: the sizes are comma-separated: did you mean {axis}={meant}?")
    items = [x.strip() for x in sizes.split(",") if x.strip()]
    if not sep or not axis or not items:
        raise click.BadParameter(f"--shapes {text!r} is not {SHAPES_FORM}")
    others = [x for x in items if "=" in x]
    if others:
        second = others[0].partition("=")[0].strip()
        raise click.BadParameter(
            f"--shapes {text!r} names two axes ({axis} and {second}): one flag gives the sizes of one axis; "
            f"give one flag per axis, e.g. --shapes {axis}={items[0]} --shapes {others[0]}"
        )
    values: list[int | str] = []
    for item in items:
        try:
            values.append(_size_item(item))
        except ValueError as e:
            raise click.BadParameter(f"--shapes {text!r}: {item!r} {e}") from None
    return axis, tuple(dict.fromkeys(values))


def _size_item(text: str) -> int | str:
    """One ``--shapes`` item: a size ``>= 1``, or a mixed range ``LO..HI`` (``1 <= LO < HI``) as ``"LO..HI"``.

    Raises:
        ValueError: neither; its message says why, to follow the item (``"is a range of one size: give 100"``).
    """
    if MIXED in text:
        parts = text.split(MIXED)
        if len(parts) != 2 or not all(_whole(x) for x in parts):
            raise ValueError(f"is not a range LOW..HIGH of two whole numbers; expected {SHAPES_FORM}")
        lo, hi = (int(x) for x in parts)
        if lo < 1:
            raise ValueError(f"starts at {lo}: sizes are >= 1")
        if lo > hi:
            raise ValueError(f"is reversed: did you mean {hi}{MIXED}{lo}?")
        if lo == hi:
            raise ValueError(f"is a range of one size: give the size, {lo}, or a wider range")
        return f"{lo}{MIXED}{hi}"
    if not _whole(text):
        raise ValueError(f"is not a size (a whole number >= 1) or a range; expected {SHAPES_FORM}")
    if (size := int(text)) < 1:
        raise ValueError("is below 1: sizes are >= 1")
    return size


def _whole(text: str) -> bool:
    """Whether ``text`` is a whole number, signed or not (its sign is checked apart)."""
    return text.strip().lstrip("-").isdigit()


def sweep_axes_flags(values: tuple[str, ...]) -> dict[str, tuple[int | str, ...]]:
    """``--shapes`` flags -> ``{axis: sizes}`` (:func:`parse_shapes_flag`); one flag per axis.

    Raises:
        click.BadParameter: a flag that does not parse, or an axis named by two flags (the
            first was silently replaced by the second).
    """
    out: dict[str, tuple[int | str, ...]] = {}
    for text in values:
        axis, sizes = parse_shapes_flag(text)
        if axis in out:
            every = ",".join(str(x) for x in dict.fromkeys((*out[axis], *sizes)))
            raise click.BadParameter(
                f"--shapes {axis} given twice ({','.join(map(str, out[axis]))} and {','.join(map(str, sizes))}): one "
                f"flag gives every size of an axis, e.g. --shapes {axis}={every}"
            )
        out[axis] = sizes
    return out


def positive_rate(text: str) -> float:
    """One ``--request-rates`` item (requests/s).

    Raises:
        ValueError: not a number > 0.
    """
    rate = float(text)
    if not rate > 0:
        raise ValueError("request rates are > 0 requests/s")
    return rate
