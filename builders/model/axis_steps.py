"""The ranges and steps of dynamic axes: ``(min, opt, max)`` per axis, and a step where the model takes only
multiples of one (a U-Net-like model whose ``H`` and ``W`` are halved five times takes multiples of 32; trial 24,
T24-7: a mixed sweep drew 191x112 for such a model, and every mixed level failed).

A step is declared once, with the axis's range: ``--dynamic-axis H=64,128,256/32`` on the command line, the spec
file's ``"multiple_of": {"H": 32}`` beside its ``"dynamic_axes"``. It is recorded in the build manifest's spec
(:class:`builders.model.spec.ModelSpecRecord`), the one source every size drawn or checked reads: the build's
verification and warmup sizes (``min``, ``opt`` and ``max``, each a multiple), the sizes a mixed-size sweep
draws (:func:`perf.measure.mixed.mixed_sizes`), and every size a user gives (``clients infer/check --shape``, an
input file, ``triton-perf sweep --shapes``), refused with the nearest valid sizes when it is not a multiple
(:func:`off_step`). An axis without a step (every manifest written before steps) takes any size in its range.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping

from core.errors import ModelSpecError
from core.names import close_names


def split_step(text: str, values: str) -> tuple[str, int | None]:
    """``"64,128,256/32"`` -> ``("64,128,256", 32)``; ``(values, None)`` without a ``/``.

    Args:
        text: The whole ``--dynamic-axis`` value, for messages.
        values: Its part after ``=``.

    Raises:
        ModelSpecError: the step is not a whole number of at least 1.
    """
    sizes, sep, step = values.partition("/")
    if not sep:
        return values, None
    if not step.strip().isdigit() or int(step) < 1:
        raise ModelSpecError(
            f"--dynamic-axis {text!r}: the step {step.strip()!r} after '/' is not a whole number of at least 1",
            hint="expected AXIS=MIN,OPT,MAX/STEP, e.g. H=64,128,256/32 (H takes the multiples of 32 from 64 to 256)",
            flag="--dynamic-axis",
        )
    return sizes, int(step)


def axis_flag(axis: str, bounds: Iterable[int], step: int = 1) -> str:
    """The ``--dynamic-axis`` value of one axis: ``"H=64,128,256/32"`` (``"/STEP"`` only for a step above 1)."""
    return f"{axis}={','.join(map(str, bounds))}" + (f"/{step}" if step > 1 else "")


def range_words(lo: int, hi: int, step: int = 1) -> str:
    """A range of an axis as every output states it: ``"64..256 in steps of 16"`` (``"64..256"`` without a step
    above 1; trial 27, T27-5: a bundle README said "H 64..256" of a model that takes multiples of 16 only)."""
    return f"{lo}..{hi}" + (f" in steps of {step}" if step > 1 else "")


def undeclared_hint(axis: str, declared: Mapping[str, tuple[int, ...]], steps: Mapping[str, int]) -> str:
    """What to do about dynamic axis ``axis`` an input names with no range: its flag and spec entry with the numbers of
    an axis declared beside it (an image's ``W`` like its ``H``), said as that axis's; example numbers, said as such,
    when none is (trial 27, T27-16: "--dynamic-axis W=1,64,128" right after ``H=64,128,256/16``, which failed the
    build at W=1)."""
    like = next(iter(declared), None)
    bounds, step = (tuple(declared[like]), steps.get(like, 1)) if like else ((1, 64, 128), 1)
    said = (
        f"the numbers are {like}'s: give {axis}'s own if it differs"
        if like
        else "example numbers: give the sizes the model takes"
    )
    return (
        f"declare each (min, opt, max): --dynamic-axis {axis_flag(axis, bounds, step)}, or in a spec file "
        f"{spec_entry(axis, bounds, step)} ({said})"
    )


def spec_entry(axis: str, bounds: Iterable[int], step: int = 1) -> str:
    """The spec file's entries of one axis: ``'"dynamic_axes": {"H": [64, 128, 256]}, "multiple_of": {"H": 32}'``."""
    entry = {"dynamic_axes": {axis: list(bounds)}, **({"multiple_of": {axis: step}} if step > 1 else {})}
    return json.dumps(entry)[1:-1]


def require_axes(dynamic_axes: Mapping[str, tuple[int, ...]], multiple_of: Mapping[str, int]) -> None:
    """Each axis's range is ``(min, opt, max)`` with ``1 <= min <= opt <= max``; each step is a whole number of at
    least 1 for a declared axis, and the axis's ``min``, ``opt`` and ``max`` are multiples of it (the build verifies
    the model there, and a TensorRT profile tunes for ``opt``).

    Raises:
        ModelSpecError: the first axis that breaks a rule, with the range or step to give instead.
    """
    for axis, rng in dynamic_axes.items():
        if len(rng) != 3:
            raise ModelSpecError(
                f"dynamic axis {axis!r}: range {rng} must be (min, opt, max)",
                hint=f"give three sizes: --dynamic-axis {axis}=MIN,OPT,MAX (e.g. {axis}=1,64,128), or in a spec "
                f'file "dynamic_axes": {{"{axis}": [1, 64, 128]}}',
                flag="--dynamic-axis",
            )
        lo, opt, hi = rng
        if not (1 <= lo <= opt <= hi):
            raise ModelSpecError(
                f"dynamic axis {axis!r}: range {rng} must satisfy 1 <= min <= opt <= max",
                hint=axis_range_hint(axis, lo, opt, hi),
                flag="--dynamic-axis",
            )
    for axis, step in multiple_of.items():
        if axis not in dynamic_axes:
            near = close_names(axis, dynamic_axes)
            meant = f" (did you mean {near[0]!r}?)" if near else ""
            named = near[0] if near else axis  # 'h' for 'H' was told to declare an axis 'h'
            step = step if isinstance(step, int) and not isinstance(step, bool) and step > 1 else 32
            raise ModelSpecError(
                f"multiple_of names {axis!r}, not a dynamic axis{meant} (the dynamic axes: "
                f"{', '.join(sorted(dynamic_axes)) or 'none'})",
                hint=f'declare a step beside the axis\'s range: "dynamic_axes": {{"{named}": [64, 128, 256]}}, '
                f'"multiple_of": {{"{named}": {step}}} (--dynamic-axis {named}=64,128,256/{step})',
                flag="--dynamic-axis",
            )
        if isinstance(step, bool) or not isinstance(step, int) or step < 1:
            raise ModelSpecError(
                f"dynamic axis {axis!r}: step {step!r} is not a whole number of at least 1",
                hint=f"give the number every size of {axis} is a multiple of, e.g. --dynamic-axis {axis}=64,128,256/32",
                flag="--dynamic-axis",
            )
        bad = sorted({v for v in dynamic_axes[axis] if v % step})
        lo, opt, hi = dynamic_axes[axis]
        first, last = multiples(lo, hi, step)
        if first > last:  # rounding to multiples would leave the range (H=64,96,128/512 was told H=512,512,512/512)
            common = math.gcd(lo, opt, hi)
            shared = f"are all multiples of {common}" if common > 1 else "share no step above 1: declare none"
            raise ModelSpecError(
                f"dynamic axis {axis!r}: its step is {step}, and no multiple of {step} lies within its range {lo}..{hi}",
                hint=f"give a step the axis's sizes are multiples of: min, opt and max {shared} "
                f"(--dynamic-axis {axis_flag(axis, (lo, opt, hi), common)}; a spec file: "
                f"{spec_entry(axis, (lo, opt, hi), common)}), or a range that holds multiples of {step}",
                flag="--dynamic-axis",
            )
        if bad:
            snapped = narrowed((lo, opt, hi), step)
            raise ModelSpecError(
                f"dynamic axis {axis!r}: its step is {step}, and {' and '.join(map(str, bad))} of its range "
                f"{lo},{opt},{hi} {'is' if len(bad) == 1 else 'are'} not a multiple of {step}: min, opt and max are "
                "sizes the build verifies the model at",
                hint=f"give min, opt and max as multiples of {step} within the range given ({lo}..{hi}): --dynamic-axis "
                f"{axis_flag(axis, snapped, step)} (a spec file: {spec_entry(axis, snapped, step)})",
                flag="--dynamic-axis",
            )


def axis_range_hint(axis: str, lo: int, opt: int, hi: int) -> str:
    """What to give for a (min, opt, max) out of order: an opt outside a good min..max is moved into it, never made
    the max (T24-6: ``H=64,300,256`` was told ``H=64,256,300``, widening the range the user meant); otherwise the
    sizes smallest first."""
    roles = "(min: the smallest size the build verifies, opt: the size a TensorRT profile tunes for, max: the largest)"
    if 1 <= lo <= hi:
        near = min(max(opt, lo), hi)
        return f"opt must lie within min..max ({lo}..{hi}): e.g. --dynamic-axis {axis}={lo},{near},{hi} {roles}"
    fixed = sorted(max(1, int(v)) for v in (lo, opt, hi))
    return f"give the sizes smallest first: --dynamic-axis {axis}={','.join(map(str, fixed))} {roles}"


def _down(size: int, step: int) -> int:
    return size // step * step


def _up(size: int, step: int) -> int:
    return -(-size // step) * step


def nearest(size: int, step: int, lo: int, hi: int) -> list[int]:
    """The valid sizes nearest ``size`` of an axis of range ``lo..hi`` (multiples of ``step``): the multiple
    below it and the one above, each within the range (one when ``size`` lies beyond an end)."""
    below, above = min(max(_down(size, step), lo), hi), max(min(_up(size, step), hi), lo)
    return sorted({below, above})


def off_step(axis: str, sizes: Iterable[int], bounds: tuple[int, int, int], step: int) -> tuple[str, str] | None:
    """What is wrong with the sizes of ``axis`` that are not multiples of its ``step``, and what to give instead:
    ``("100 is not a multiple of 32, the step the build declared for axis H", "give H a multiple of 32 within
    64..256: the nearest valid sizes to 100 are 96 and 128")``; ``None`` when every size is a multiple (always, for
    step 1).

    Args:
        axis: The dynamic axis.
        sizes: The sizes given (a mixed range's ends among them).
        bounds: The axis's verified ``(min, opt, max)``.
        step: Its step (1: any size).
    """
    bad = sorted({int(s) for s in sizes if int(s) % step})
    if not bad:
        return None
    lo, _opt, hi = bounds
    near = "; ".join(f"to {s} are {' and '.join(map(str, nearest(s, step, lo, hi)))}" for s in bad)
    near = near.replace(" are ", " is ") if all(len(nearest(s, step, lo, hi)) == 1 for s in bad) else near
    return (
        f"{', '.join(map(str, bad))} {'is' if len(bad) == 1 else 'are'} not a multiple of {step}, "
        f"the step the build declared for axis {axis} (its sizes are {lo}, {lo + step}, ..., {hi})",
        f"give {axis} a multiple of {step} within {lo}..{hi}: the nearest valid sizes {near}",
    )


def multiples(lo: int, hi: int, step: int) -> tuple[int, int]:
    """``(first, last)`` index of the multiples of ``step`` within ``lo..hi``: size ``k * step`` for ``k`` in
    ``first..last`` (``lo..hi`` itself for step 1)."""
    return -(-lo // step), hi // step


def narrowed(bounds: tuple[int, int, int], step: int) -> tuple[int, int, int]:
    """``(min, opt, max)`` rounded inward to multiples of ``step`` (min up, max down; opt to the nearest multiple
    within them), so the build verifies the model only at sizes within the range it was given (s21k:
    ``H=60,128,256/32`` was told ``H=32,128,256/32``, a min below the 60 the user said the model takes). The range
    must hold a multiple of ``step`` (:func:`require_axes` says so first when it does not)."""
    lo, opt, hi = bounds
    lo, hi = _up(lo, step), _down(hi, step)
    return lo, min(nearest(opt, step, lo, hi), key=lambda v: (abs(v - opt), v)), hi


def widened(bounds: tuple[int, int, int], step: int) -> tuple[int, int, int]:
    """``(min, opt, max)`` widened outward to multiples of ``step`` (min down, max up, at least ``step``; opt to
    the nearest multiple within them)."""
    lo, opt, hi = bounds
    lo, hi = max(step, _down(lo, step)), max(step, _up(hi, step))
    return lo, min(max(nearest(opt, step, lo, hi)[0], lo), hi), hi


#: A whole number that shares no factor with this one (2 * 3 * 5 * 7) is off every multiple of 2, 3, 4, 5, 6, 7, 8...
_SMALL_PRIMES = 210


def off_size(lo: int, hi: int, step: int, taken: Iterable[int]) -> int | None:
    """A size of an axis of range ``lo..hi`` (multiples of ``step``) that lies off every multiple a model may round
    to, where ``taken`` (the min, opt and max) all lie on one (trial 30, F1: an autoencoder whose output is
    ``8 * ceil(H / 8)`` was probed and verified at H 16, 32 and 64 only, its output recorded as following H, and a
    request of H 20 came back 24 rows high without a word).

    Returns:
        The first ``k * step`` within the range, not in ``taken``, whose ``k`` shares no factor with 2, 3, 5 and 7
        (17 for 16..64; 11 for 1..128), else the first with an odd ``k`` (24 for 16..64 in steps of 8: off every
        multiple of 16), else the first not in ``taken``; ``None`` when the range holds no other size.
    """
    first, last = multiples(lo, hi, step)
    seen = set(taken)
    for fits in (lambda k: k > 1 and math.gcd(k, _SMALL_PRIMES) == 1, lambda k: k % 2 == 1, lambda _k: True):
        k = next((k for k in range(first, last + 1) if fits(k) and k * step not in seen), None)
        if k is not None:
            return k * step
    return None
