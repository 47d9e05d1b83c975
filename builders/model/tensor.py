"""One named input or output tensor of a model (:class:`TensorSpec`) and its JSON form.

Shapes are *per sample*: the batch axis is implicit and sits at :attr:`TensorSpec.batch_axis`
(always first for inputs, as in Triton's ``dims`` when ``max_batch_size > 0``; Triton docs,
"Model Configuration: Inputs and Outputs"). A dimension is either a fixed ``int`` or the
*name* of a dynamic axis (``"seq"``), whose range the model's spec declares
(:attr:`builders.model.spec.ModelSpec.dynamic_axes`).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
from pydantic import Field, StrictInt, StrictStr, ValidationError, field_validator

from builders.model.domains import DOMAINS, check_domain, domain_values
from builders.model.range_source import InputRange, input_range
from builders.model.value_ranges import (
    DEFAULT_INT_RANGE,
    ValueRange,
    draw_integers,
    normal_range,
    per_position,
    range_bounds,
    shape_problem,
)
from core import dtypes
from core.errors import ModelSpecError
from core.names import x_separated_dims
from core.records import Record, describe

Dim = int | str
__all__ = [
    "BATCH_AXIS",
    "DEFAULT_INT_RANGE",
    "Dim",
    "TensorSpec",
    "TensorSpecRecord",
    "ValueRange",
    "output_placeholder",
    "request_axis_sizes",
    "validate_json",
]
#: Name of the implicit first (batch) axis in exported graphs and error messages.
BATCH_AXIS = "batch"


@dataclasses.dataclass(frozen=True)
class TensorSpec:
    """One named input or output tensor.

    Attributes:
        name: Tensor name as served by Triton (e.g. ``"INPUT__0"`` or ``"input_ids"``).
        dtype: Data type name, one of :data:`core.dtypes.TENSOR_IO_NAMES` (``"float32"``,
            ``"int64"``...): a type with both a numpy and a torch counterpart.
        shape: Per-sample shape without the batch axis; ints are fixed, strings name a
            dynamic axis (e.g. ``(512,)`` or ``("seq",)``).
        value_range: ``(low, high)`` inclusive range of integer inputs such as token ids, or
            one ``(low, high)`` per position of a fixed last axis (a tabular input's columns,
            :mod:`builders.model.value_ranges`); a bound may name a dynamic axis (its size in the
            same request: ``(1, "time")``); every generated input stays within it
            (:meth:`bounds`). Only for integer inputs.
        key: Outputs: the tensor's identity in what ``forward`` returns, its path through
            dicts (keys) and tuples/lists (positions), e.g. ``("logits",)`` or ``(1, "feat")``;
            ``()`` for a lone tensor; ``None`` when not recorded (inputs, older manifests).
            Names are tied to outputs by this key, never by position alone.
        batch_axis: Where the batch axis sits in the tensor's full shape: 0 (always, for
            inputs), another position for an output the model returns with the batch
            elsewhere (``[4, batch]``), ``None`` for an output with no batch axis. Only 0
            can be served with ``max_batch_size > 0`` (``builders.model.outputs`` finds it).
        domain: Inputs: what values a request can send beyond dtype and range, one of
            :data:`builders.model.domains.DOMAINS` (``"mask"``: 0s and 1s, at least one 1
            per row); every generated input respects it. ``None``: no constraint.
        declared: Outputs: whether the spec gave its dtype and shape (``False``: a bare name,
            :func:`output_placeholder`); a declared output is checked against the eager
            model's (:func:`builders.model.declared_outputs.check_declared`). Not compared.
        recorded: Inputs read back from a build: the range the build recorded and where it came from
            (the manifest's ``value_ranges``, :func:`builders.repository.view.with_ranges`), which
            :meth:`input_range` returns; ``None``: the spec's own. Not compared, nor part of the JSON form.
    """

    name: str
    dtype: str
    shape: tuple[Dim, ...]
    value_range: ValueRange | None = None
    key: tuple[str | int, ...] | None = None
    batch_axis: int | None = 0
    domain: str | None = None
    declared: bool = dataclasses.field(default=True, compare=False, repr=False)
    recorded: InputRange | None = dataclasses.field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        dtypes.require_tensor_io(self.dtype, f"tensor {self.name!r}")
        check_domain(self.name, self.dtype, self.domain, self.value_range)
        problem = dims_error(self.name, self.dtype, self.shape)
        if problem is not None:
            raise problem
        if self.batch_axis is not None and not 0 <= self.batch_axis <= len(self.shape):
            raise ModelSpecError(
                f"tensor {self.name!r}: batch_axis {self.batch_axis} is outside its shape "
                f"(0..{len(self.shape)} for {len(self.shape)} per-sample dims)",
                hint=f"give batch_axis within 0..{len(self.shape)}, or drop it (the batch is axis 0)",
                flag="--spec",
            )
        object.__setattr__(self, "value_range", normal_range(self.name, self.dtype, self.shape, self.value_range))

    @property
    def triton_dtype(self) -> str:
        """Triton ``DataType`` enum name, e.g. ``"TYPE_FP32"``."""
        return dtypes.from_name(self.dtype).triton

    def triton_dims(self) -> list[int]:
        """Per-sample dims for ``config.pbtxt``: dynamic axes become ``-1``."""
        return [d if isinstance(d, int) else -1 for d in self.shape]

    def full_shape(self) -> tuple[Dim, ...]:
        """The whole shape: the per-sample shape with :data:`BATCH_AXIS` at :attr:`batch_axis`."""
        if self.batch_axis is None:
            return self.shape
        return (*self.shape[: self.batch_axis], BATCH_AXIS, *self.shape[self.batch_axis :])

    def concrete_shape(self, axis_sizes: dict[str, int]) -> tuple[int, ...]:
        """Per-sample shape with every named axis replaced by ``axis_sizes[name]``."""
        return tuple(d if isinstance(d, int) else axis_sizes[d] for d in self.shape)

    def draw(self, shape: tuple[int, ...], rng: np.random.Generator, sizes: Mapping[str, int] | None = None) -> np.ndarray:
        """Random values of this input, of ``shape`` (batch axis first), within its domain: the
        one rule for every generated input (export examples, reference data, warmup data).
        ``sizes``: the request's dynamic-axis sizes, for a ``value_range`` bound that names an
        axis (:func:`builders.model.value_ranges.at_sizes`).

        Floating inputs are N(0, 1) in their dtype; integer inputs are uniform within the range
        :meth:`input_range` decides (``value_range``, per position where it gives one pair each; the
        build's recorded one; the default); bool inputs are all True; an
        input with a ``domain`` respects it (a ``mask``: a padding mask, at least one 1 per
        row; :func:`builders.model.domains.domain_values`).
        """
        if self.domain is not None:
            return domain_values(self.domain, self.dtype, shape, "random", rng)
        if dtypes.from_name(self.dtype).is_floating:
            return rng.standard_normal(shape).astype(self.dtype)
        if self.dtype == "bool":
            return np.ones(shape, dtype=bool)
        return draw_integers(self._range(), shape, rng, sizes).astype(self.dtype)

    def input_range(self, origin: str | None = None) -> InputRange | None:
        """The range this input's values are drawn from and checked against, and where it came from
        (the build's recorded source, else ``origin``, the spec's): the one rule,
        :func:`builders.model.range_source.input_range`; ``None`` for an input that is not an
        integer or has a domain."""
        return input_range(self.dtype, self.domain, self.value_range, origin, self.recorded)

    def _range(self) -> ValueRange:
        r = self.input_range()
        if r is None:
            raise ValueError(f"input {self.name!r} ({self.dtype}{', ' + self.domain if self.domain else ''}) has no value range")
        return r.range

    def bounds(self, sizes: Mapping[str, int] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Inclusive low and high of this integer input's values as arrays that broadcast against
        a sample (batch axis first): 0-d for one range, one per position of the last axis for a
        per-position range, of the range :meth:`input_range` decides (the default when the spec gives none;
        :func:`builders.model.value_ranges.range_bounds`, what every generator and check reads);
        a bound that names a dynamic axis at its size in ``sizes`` (the request's)."""
        return range_bounds(self._range(), sizes)

    def to_json(self) -> dict[str, Any]:
        """The JSON form (:class:`TensorSpecRecord`; ``batch_axis`` only when it is not 0,
        ``domain`` only when there is one)."""
        d = TensorSpecRecord.from_spec(self).model_dump(mode="json")
        if d.get("batch_axis") == 0:
            del d["batch_axis"]
        if d.get("domain") is None:
            d.pop("domain", None)
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> TensorSpec:
        """Inverse of :meth:`to_json`.

        Raises:
            ModelSpecError: a missing key or wrong type (naming the field), or an inconsistent tensor.
        """
        return validate_json(TensorSpecRecord, d, "tensor spec").to_spec()


class TensorSpecRecord(Record):
    """JSON form of a :class:`TensorSpec` (the same fields; ``shape`` as a list)."""

    name: str
    dtype: str = Field(description="a core.dtypes tensor I/O name: float32, int64, bool...")
    shape: list[StrictInt | StrictStr] = Field(description="per-sample shape, no batch axis; strings name dynamic axes")
    value_range: (
        tuple[StrictInt | StrictStr, StrictInt | StrictStr] | list[tuple[StrictInt | StrictStr, StrictInt | StrictStr]] | None
    ) = Field(
        None,
        description="integer inputs: inclusive [low, high] of every value, or one [low, high] per position of a "
        "fixed last axis (a tabular input's columns: [[0, 4], [0, 11], ...]); a bound may name a dynamic axis, "
        'its size in the same request ([1, "time"]: lengths of at most the time axis)',
    )
    key: list[StrictStr | StrictInt] | None = Field(
        None,
        description="outputs: path of the tensor in what forward() returns (dict keys, tuple positions); "
        "[] for a lone tensor; null when not recorded",
    )
    batch_axis: int | None = Field(
        0,
        description="outputs: position of the batch axis in the full shape (null: none); "
        "only 0 is served with max_batch_size > 0",
    )
    domain: str | None = Field(
        None,
        description="inputs: what values a request can send (builders.model.domains): "
        + "; ".join(f"{k}: {v}" for k, v in DOMAINS.items()),
    )

    @field_validator("value_range", mode="before")
    @classmethod
    def _range_form(cls, value: Any) -> Any:
        """One line stating the forms for a ``value_range`` that has none of them
        (:func:`builders.model.value_ranges.shape_problem`), not one per member of the union."""
        problem = shape_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value

    @classmethod
    def from_spec(cls, t: TensorSpec) -> TensorSpecRecord:
        """The record of ``t`` (tuples become lists)."""
        return cls(
            name=t.name,
            dtype=t.dtype,
            shape=list(t.shape),
            value_range=list(t.value_range) if per_position(t.value_range) else t.value_range,  # type: ignore[arg-type]
            key=list(t.key) if t.key is not None else None,
            batch_axis=t.batch_axis,
            domain=t.domain,
        )

    def to_spec(self, output: bool = False) -> TensorSpec:
        """The :class:`TensorSpec` this record describes (``output``: one of the spec's outputs, said so
        in a wrong dim's error, :func:`dims_error`).

        Raises:
            ModelSpecError: the tensor is inconsistent (:meth:`TensorSpec.__post_init__`).
        """
        problem = dims_error(self.name, self.dtype, self.shape, output=True) if output else None
        if problem is not None:
            raise problem
        return TensorSpec(
            self.name,
            self.dtype,
            tuple(self.shape),
            tuple(self.value_range) if isinstance(self.value_range, list) else self.value_range,
            tuple(self.key) if self.key is not None else None,
            self.batch_axis,
            self.domain,
        )


def dims_error(name: str, dtype: str, shape: Sequence[Any], output: bool = False) -> ModelSpecError | None:
    """The error for the first dim of ``shape`` a per-sample shape cannot hold, or ``None``: a ``-1``
    (:func:`minus_one_error`), a dim that is not an int > 0 or a name, a shape typed with ``x``
    (``"3x64"``), or the batch axis. ``output``: the tensor is one of the spec's outputs, whose fix
    is its spec-file ``"shape"``, never an ``--input`` flag."""
    for i, d in enumerate(shape):
        if isinstance(d, int) and not isinstance(d, bool) and d == -1:
            return minus_one_error(name, dtype, shape, i, output)
        kind = "output" if output else "tensor"
        if isinstance(d, bool) or not isinstance(d, (int, str)) or (isinstance(d, int) and d <= 0) or d == "":
            return ModelSpecError(
                f"{kind} {name!r}: dimension {d!r} must be an int > 0 or the name of a dynamic axis",
                hint='e.g. shape [3, 224, 224] or ["seq"]',
                flag="--spec" if output else "--input",
            )
        meant = x_separated_dims(d) if isinstance(d, str) else None
        if meant is not None:  # the whole shape in the hint: the other dims kept, this one split
            meant = ",".join(x_separated_dims(e) or str(e) if isinstance(e, str) else str(e) for e in shape)
            where = "in the spec file's outputs" if output else f"--input {name}:{dtype}:{meant}, or in a spec file"
            return ModelSpecError(
                f"{kind} {name!r}: dimension {d!r} is a shape typed with x, not the name of a dynamic axis: "
                f"dims are comma-separated: did you mean {meant}?",
                hint=f'give the dims one by one: {where} "shape": [{meant.replace(",", ", ")}]',
                flag="--spec" if output else "--input",
            )
        if d == BATCH_AXIS:
            return ModelSpecError(
                f"{kind} {name!r}: {BATCH_AXIS!r} is the implicit first axis; per-sample shapes must not name it",
                hint=f"drop {BATCH_AXIS!r} from the shape (it is always axis 0)",
                flag="--spec" if output else "--input",
            )
    return None


def minus_one_error(name: str, dtype: str, shape: Sequence[Dim], i: int, output: bool = False) -> ModelSpecError:
    """The error for a ``-1`` at position ``i`` of a tensor's shape (ONNX's and Triton's way to write
    a dynamic size): a leading one is the batch axis, which per-sample shapes leave out (as for a
    leading ``"batch"``); any other is a dynamic dim, which the spec names. A leading ``-1`` may also
    be a dynamic size of each sample (``[-1, 4]``): both fixes are given. An input's fix is its
    ``--input`` flag and the axis's range; an output's is its spec-file ``"shape"``, whose dynamic dims
    take any name and no range, or a bare name (an output has no ``--input`` flag: the old hint gave
    one for every tensor)."""
    named: list[Dim] = [f"{name}_dim{j + 1}" if d == -1 else d for j, d in enumerate(shape)]
    kind = "output" if output else "tensor"
    if i == 0:
        what = (
            f"a leading -1 (the batch axis as ONNX and Triton configs write it) is the implicit first axis; "
            f"per-sample shapes must not include it (shape {list(shape)})"
        )
        todo = (  # the -1 may as well be a dynamic size of each sample (break test B3: feat [-1, 4])
            f"drop the -1 if it is the batch axis (always axis 0): {_forms(name, dtype, named[1:], output)}; or, if "
            f"it is a dynamic size of each sample, name that {'dim' if output else 'axis'}: {_forms(name, dtype, named, output)}"
        )
    else:
        what = f"dimension {i} is -1 (a dynamic size), which a spec gives as a named dynamic {'dim' if output else 'axis'} (shape {list(shape)})"
        todo = ("name the dynamic dim: " if output else "name the dynamic axis and give its range: ") + _forms(
            name, dtype, named, output
        )
    if output:
        todo += f'; or give the output as a bare name ("{name}") to take its dtype and shape from the model'
    return ModelSpecError(f"{kind} {name!r}: {what}", hint=todo, flag="--spec" if output else "--input")


def _forms(name: str, dtype: str, shape: list[Dim], output: bool) -> str:
    """``shape`` as a spec file's ``"shape"`` and, for an input, its ``--input`` flag with the range flag of
    any axis named after the tensor (:func:`minus_one_error`'s names); an output's dims take any name, no range."""
    axes = [d for d in shape if isinstance(d, str) and d.startswith(f"{name}_dim")]
    if output:
        anyname = " (an output's dynamic dim takes any name and no range)" if axes else ""
        return f'in the spec file\'s outputs "shape": {json.dumps(shape)}{anyname}'
    ranges = f' with --dynamic-axis {axes[0]}=MIN,OPT,MAX (the spec\'s "dynamic_axes")' if axes else ""
    flag = f"--input {name}:{dtype}:{','.join(map(str, shape))}"
    return f'in a spec file "shape": {json.dumps(shape)} (for an input, on the command line: {flag}){ranges}'


R = TypeVar("R", bound=Record)


def validate_json(model: type[R], data: Any, source: str) -> R:
    """Validate the decoded JSON of an input spec, or of one tensor of it, as ``model``.

    Args:
        model: The record class (:class:`TensorSpecRecord` or
            :class:`builders.model.spec.ModelSpecRecord`).
        data: The decoded JSON.
        source: Where it came from, for messages (a file path).

    Raises:
        ModelSpecError: a missing key or a wrong type; the message names each field, what
            was expected and what was found.
    """
    try:
        return model.model_validate(data)
    except ValidationError as e:
        raise ModelSpecError(
            f"{source} is malformed:\n" + describe(e),
            hint='expected {"inputs": [{"name", "dtype", "shape", "value_range"?}], "outputs": [...], "dynamic_axes": {...}} '
            "(docs/schemas/input_spec.json)",
        ) from None


def request_axis_sizes(inputs: Sequence[TensorSpec], shapes: Mapping[str, Sequence[int]]) -> dict[str, int]:
    """The dynamic-axis sizes of one request whose ``inputs`` have ``shapes`` (input name ->
    dims, with or without the batch axis; inputs ``shapes`` lacks, or of another rank, are
    skipped): what a ``value_range`` bound that names an axis is at in that request."""
    out: dict[str, int] = {}
    for t in inputs:
        dims = list(shapes.get(t.name, ()))
        if t.name not in shapes or len(dims) not in (len(t.shape), len(t.shape) + 1):
            continue
        for d, n in zip(t.shape, dims[len(dims) - len(t.shape) :]):
            if isinstance(d, str):
                out.setdefault(d, int(n))
    return out


def output_placeholder(name: str) -> TensorSpec:
    """An output known only by name (``declared`` False); dtype and shape come from the eager model later."""
    return TensorSpec(name, "float32", (), declared=False)
