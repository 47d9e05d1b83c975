"""The range a generated request's integer input is drawn from, checked to fit the served type: one
function (:func:`request_range`) for ``clients infer``'s requests (:func:`clients.inputs.plan_inputs`)
and every entry of the sweep's generated ``--input-data`` (:func:`perf.measure.inputs.input_args`).
The range itself is :func:`builders.model.range_source.input_range`'s to decide (the build's recorded
range, the spec's, the default); a value drawn from it reaches the served type by
:func:`core.casts.convert`'s rule.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from builders.model.range_source import InputRange, input_range
from builders.model.tensor import TensorSpec
from builders.model.value_ranges import ValueRange, at_sizes, range_words
from core.casts import convert
from core.errors import ClientError


def request_range(
    name: str, dtype: str, triton: str, t: TensorSpec | None, sizes: Mapping[str, int]
) -> tuple[InputRange, ValueRange]:
    """The range a generated request's integer input ``name`` is drawn from, and that range concrete
    at the request's dynamic-axis ``sizes`` (a bound that names an axis at its size there), checked
    to fit the served type (:func:`range_in_dtype`): ``clients infer``'s requests (:func:`clients.inputs.plan_inputs`)
    and each entry of the sweep's generated ``--input-data`` (:func:`perf.measure.inputs.input_args`,
    a mixed-size workload's entries each at their own sizes) read it here.

    Args:
        name: The input (as served).
        dtype: The served numpy dtype name (``"int64"``).
        triton: The served type (``"TYPE_INT64"``), for messages.
        t: The build's spec of the input (served names; its recorded range), or ``None`` without a build.
        sizes: The request's dynamic-axis sizes (:meth:`builders.model.spec.ModelSpec.sizes_of`).

    Returns:
        The range and its source as the one rule decides it (:meth:`builders.model.tensor.TensorSpec.input_range`;
        the default for an input the build gave none), and the range at ``sizes``.

    Raises:
        ClientError: a bound of the range the served type cannot hold (:func:`range_in_dtype`).
    """
    r = (t.input_range() if t is not None else None) or input_range(dtype)
    if r is None:
        raise ClientError(
            f"input {name!r} is {dtype} ({triton}): not an integer input, which has no value range",
            hint=f"give {name!r} your own values with --input-data FILE",
        )
    return r, range_in_dtype(name, at_sizes(r.range, sizes), dtype, triton)  # type: ignore[arg-type]


def range_in_dtype(name: str, value_range: ValueRange, dtype: str, triton: str) -> ValueRange:
    """``value_range`` (the build's, checked against the spec's dtype) when the served ``dtype`` holds
    all of it, by :func:`core.casts.convert`'s rule: values drawn from it are cast to the served
    type, and a range the type cannot hold (an int64 spec range ``0..300`` served as ``TYPE_INT8``)
    would wrap the values silently.

    Raises:
        ClientError: a bound of the range that ``dtype`` cannot hold, naming the input and its type.
    """
    convert(np.asarray(value_range), name, dtype, triton, f"the build's value_range {range_words(value_range)}")
    return value_range
