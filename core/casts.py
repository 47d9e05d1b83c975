"""One rule for turning a user's values into an input's dtype, for every way values arrive:
numbers of a perf_analyzer JSON file (which has no dtypes), a ``.npy``/``.npz`` array of another
dtype, integers drawn from a build's value range (clients' requests, the sweep's generated data,
the build's warmup files: :func:`builders.config.warmup.warmup_values`).

The rule (:func:`convert`): a value is converted only when the conversion keeps it.

- **Integer and bool inputs**: every value must come back equal after the cast: a whole number
  within the dtype's range (``[0, 255]`` for uint8, ``[-2**31, 2**31 - 1]`` for int32); a bool
  takes ``0``/``1`` or ``false``/``true``, and so, the other way, an integer input takes ``false``/``true``
  as ``0``/``1`` (the same values, as JSON, NumPy and Python count them; break test B8 asked). ``2.7`` for
  an int64 token id, ``300`` for uint8, ``2**40`` for int32, ``2`` for a bool are refused; ``3.0`` is
  taken as ``3``.
- **Float inputs**: any number is rounded to the nearest value of the dtype (float32 has no
  ``0.1``: IEEE 754 round-to-nearest, as NumPy's ``astype`` does); a finite value beyond the dtype
  (above 65504 for float16) would become infinite and is refused.
- **Strings** for a number, and numbers for a string (``TYPE_STRING``) input, are refused.

Why here: NumPy's ``astype`` truncates a float toward zero when casting to an integer and gives an
undefined value (at most a ``RuntimeWarning``) for one outside the target's range (NumPy docs,
"numpy.ndarray.astype" and "Data type promotion / casting"; NumPy 2.4 names this check
``casting="same_value"``), and Triton serves the bytes it is sent, so a value changed here would
be measured or answered silently. A refusal names where the value came from, the input, the first
value that does not convert with its position, the dtype, and what to give instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from core.errors import ClientError, ToolkitError

#: numpy kinds that are numbers: bool, signed and unsigned integers, floats.
NUMBER_KINDS = "biuf"


def convert(
    values: np.ndarray, name: str, dtype: str, triton: str, where: str, *, error: type[ToolkitError] = ClientError
) -> np.ndarray:
    """``values`` in ``dtype`` by the module's rule, or a refusal naming the first value it would change.

    Args:
        values: The values as given (any shape; a JSON list read by ``np.asarray``).
        name: The input's name.
        dtype: The input's numpy dtype name (``"int64"``, ``"float16"``, ``"object"`` for strings).
        triton: The config's type (``"TYPE_INT64"``), named in the message.
        where: Where the values came from, first in the message (``"in.json: entry 3"``).
        error: The error class to raise (``ConfigError`` for a build's warmup data).

    Returns:
        ``values`` as an array of ``dtype`` (the same object when it is of ``dtype`` already).

    Raises:
        ClientError: (or ``error``) a value the cast would change; the message gives how many, the first
            with its position (``[row, column]``), the dtype, and the hint what to give instead.
    """
    arr = np.asarray(values)
    want = np.dtype(dtype)
    if arr.dtype == want:
        return arr
    if want.kind == "O":  # TYPE_STRING: texts, as perf_analyzer's JSON gives them
        if arr.dtype.kind in "USO" and all(isinstance(v, (str, bytes)) for v in arr.reshape(-1)):
            return arr.astype(want)
        return _refuse(arr, np.ones(arr.shape, bool), name, dtype, triton, where, "is not a text", error)
    if arr.dtype.kind not in NUMBER_KINDS:  # strings, None, ints beyond 64 bits: judged one by one
        bad = np.array([not _fits(v, want) for v in arr.reshape(-1)], bool).reshape(arr.shape)
        if bad.any():
            return _refuse(arr, bad, name, dtype, triton, where, _why(arr.reshape(-1)[int(np.argmax(bad))], want), error)
        arr = np.asarray(arr.tolist(), np.float64 if want.kind == "f" else want)  # fitting python numbers
    with np.errstate(all="ignore"):
        cast = arr.astype(want)
        if want.kind == "f":
            bad = np.isfinite(arr.astype(np.float64)) & ~np.isfinite(cast)
        else:
            bad = cast != arr  # a fraction, an out-of-range value, NaN; a bool's 2
    if np.any(bad):
        why = _why(arr.reshape(-1)[int(np.argmax(bad))].item(), want)
        return _refuse(arr, bad, name, dtype, triton, where, why, error)
    return cast


#: The families within which a typed array is cast (README, "clients infer"): floats, integers
#: (signed and unsigned), bools. JSON numbers have no dtype and take :func:`convert` alone.
FAMILIES = ("f", "iu", "b")


def convert_array(
    arr: np.ndarray, name: str, dtype: str, triton: str, where: str, *, error: type[ToolkitError] = ClientError
) -> np.ndarray:
    """A typed array (``.npy``/``.npz``, an array passed in Python) in ``dtype``: cast by :func:`convert`
    within its family (float64 to float32, int32 to int64), refused across families (trial 13, T13-2:
    int64 pixels 0..254 were cast to a float32 image input and float32 token ids to int64 with a
    warning, where the README promises a refusal). An array's dtype says what its values mean, so
    integers for a float input are most often unscaled data (pixels for normalised floats) and floats
    for an integer input a file meant for another input: the user converts, knowing which.

    Raises:
        ClientError: (or ``error``) a number array of another family, naming both dtypes and the
            conversion to make; what :func:`convert` refuses.
    """
    arr, want = np.asarray(arr), np.dtype(dtype)
    family = {kind: f for f in FAMILIES for kind in f}
    if arr.dtype.kind in family and want.kind in family and family[arr.dtype.kind] != family[want.kind]:
        raise error(
            f"{where}: input {name!r} takes {dtype} ({triton}); an array is cast only float to float or integer to "
            f"integer, not {arr.dtype} to {dtype}",
            hint=f"convert {name!r} to the values the model expects yourself, e.g. {astype_code(dtype)} after any "
            f"scaling it needs, or check that the file is meant for this model's {name!r}",
        )
    return convert(arr, name, dtype, triton, where, error=error)


def same_family(a: Any, b: Any) -> bool:
    """Whether dtypes ``a`` and ``b`` are of one :data:`FAMILIES` family (float, integer, bool): the casts
    :func:`convert_array` makes; any other pair it refuses."""
    family = {kind: f for f in FAMILIES for kind in f}
    return family.get(np.dtype(a).kind) == family.get(np.dtype(b).kind) is not None


def astype_code(dtype: str) -> str:
    """The numpy call that converts an array ``arr`` to ``dtype``, as a user types it and as it runs on every numpy
    the toolkit installs: ``"arr.astype(np.float32)"``, ``"arr.astype(bool)"`` (``np.bool`` is missing from numpy
    1.24 to 1.26; trial 20, T20-5: the advice for a 0/1 int64 mask raised AttributeError)."""
    return "arr.astype(bool)" if np.dtype(dtype) == np.dtype(bool) else f"arr.astype(np.{np.dtype(dtype).name})"


def _fits(v: Any, want: np.dtype) -> bool:
    """Whether a python value ``v`` converts to ``want`` by the rule (for arrays numpy keeps as objects)."""
    if isinstance(v, (bool, np.bool_)):
        return True
    if not isinstance(v, (int, float, np.number)):
        return False
    if want.kind == "f":
        try:
            f = float(v)
        except OverflowError:  # a python int beyond float64
            return False
        return bool(not np.isfinite(f) or abs(f) <= np.finfo(want).max)
    if want.kind == "b":
        return bool(v in (0, 1))
    info = np.iinfo(want)
    return bool(_whole(v) and info.min <= v <= info.max)


def _whole(v: Any) -> bool:
    """Whether number ``v`` is a whole number (a python int of any size is)."""
    return isinstance(v, (int, np.integer)) or bool(np.isfinite(v) and float(v).is_integer())


def _why(v: Any, want: np.dtype) -> str:
    """Why value ``v`` does not convert to ``want``, in words."""
    if isinstance(v, (str, bytes)) or not isinstance(v, (bool, int, float, np.number)):
        return "is not a number"
    if want.kind == "f":
        return f"is beyond {want.name}'s largest value {np.finfo(want).max:g} (it would become inf)"
    if want.kind == "b":
        return "is neither 0 nor 1 (false nor true)"
    info = np.iinfo(want)
    if not _whole(v):
        return f"is not a whole number (a cast would make it {int(v) if np.isfinite(v) else 'undefined'})"
    return f"is outside {want.name}'s range [{info.min}, {info.max}]"


def _refuse(
    arr: np.ndarray, bad: np.ndarray, name: str, dtype: str, triton: str, where: str, why: str, error: type[ToolkitError]
) -> Any:
    first = np.unravel_index(int(np.argmax(bad)), arr.shape) if arr.ndim else ()
    value = arr.reshape(-1)[int(np.argmax(bad))] if arr.size else None
    value = value.item() if isinstance(value, np.generic) else value
    n = int(np.count_nonzero(bad))
    at = f" at [{', '.join(map(str, first))}]" if arr.ndim else ""
    want = np.dtype(dtype)
    if want.kind == "O":
        fix = f"give {name!r} texts (strings)"
    elif want.kind == "f":
        fix = f"give {name!r} numbers within ±{np.finfo(want).max:g}"
    elif want.kind == "b":
        fix = f"give {name!r} 0/1 or false/true"
    else:
        info = np.iinfo(want)
        fix = f"give {name!r} whole numbers within [{info.min}, {info.max}] (no cast rounds or wraps them for you)"
    label = "bytes" if want.kind == "O" else dtype
    shown = repr(value) if len(repr(value)) <= 40 else f"{repr(value)[:37]}..."
    raise error(
        f"{where}: input {name!r} takes {label} ({triton}), but {n} value{'s do' if n > 1 else ' does'} not convert to "
        f"it exactly: the first, {shown}{at}, {why}",
        hint=f"{fix}, or check that the file is meant for this model's {name!r}",
    )
