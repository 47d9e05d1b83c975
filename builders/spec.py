"""Typed description of a model's inputs and outputs (its I/O signature).

Shapes are *per sample*: the batch axis is implicit and always first, as in Triton's
``dims`` when ``max_batch_size > 0`` (Triton docs, "Model Configuration: Inputs and
Outputs"). A dimension is either a fixed ``int`` or the *name* of a dynamic axis
(``"seq"``), whose range is given in :attr:`ModelSpec.dynamic_axes`.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np

from builders.errors import ModelSpecError

#: numpy dtype name -> Triton ``DataType`` enum name (model_config.proto).
TRITON_DTYPES: dict[str, str] = {
    "bool": "TYPE_BOOL",
    "uint8": "TYPE_UINT8",
    "int8": "TYPE_INT8",
    "int16": "TYPE_INT16",
    "int32": "TYPE_INT32",
    "int64": "TYPE_INT64",
    "float16": "TYPE_FP16",
    "float32": "TYPE_FP32",
    "float64": "TYPE_FP64",
}
#: Triton dtype enum name -> numpy dtype name (the inverse of :data:`TRITON_DTYPES`).
NUMPY_DTYPES: dict[str, str] = {v: k for k, v in TRITON_DTYPES.items()}

Dim = int | str


@dataclasses.dataclass(frozen=True)
class TensorSpec:
    """One named input or output tensor.

    Attributes:
        name: Tensor name as served by Triton (e.g. ``"INPUT__0"`` or ``"input_ids"``).
        dtype: numpy dtype name, one of :data:`TRITON_DTYPES` (``"float32"``, ``"int64"``...).
        shape: Per-sample shape without the batch axis; ints are fixed, strings name a
            dynamic axis (e.g. ``(512,)`` or ``("seq",)``).
        value_range: ``(low, high)`` inclusive range for generated integer inputs such as
            token ids; ignored for floating inputs (which are drawn from N(0, 1)).
    """

    name: str
    dtype: str
    shape: tuple[Dim, ...]
    value_range: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        if self.dtype not in TRITON_DTYPES:
            raise ModelSpecError(
                f"tensor {self.name!r}: dtype {self.dtype!r} is not supported",
                hint=f"use one of {', '.join(TRITON_DTYPES)}",
            )
        for d in self.shape:
            if isinstance(d, int) and d <= 0:
                raise ModelSpecError(f"tensor {self.name!r}: dimension {d} must be > 0 or an axis name")

    @property
    def triton_dtype(self) -> str:
        """Triton ``DataType`` enum name, e.g. ``"TYPE_FP32"``."""
        return TRITON_DTYPES[self.dtype]

    def triton_dims(self) -> list[int]:
        """Per-sample dims for ``config.pbtxt``: dynamic axes become ``-1``."""
        return [d if isinstance(d, int) else -1 for d in self.shape]

    def concrete_shape(self, axis_sizes: dict[str, int]) -> tuple[int, ...]:
        """Per-sample shape with every named axis replaced by ``axis_sizes[name]``."""
        return tuple(d if isinstance(d, int) else axis_sizes[d] for d in self.shape)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "dtype": self.dtype,
            "shape": list(self.shape),
            "value_range": list(self.value_range) if self.value_range else None,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "TensorSpec":
        vr = d.get("value_range")
        return cls(d["name"], d["dtype"], tuple(d["shape"]), tuple(vr) if vr else None)


@dataclasses.dataclass(frozen=True)
class ModelSpec:
    """The I/O signature of a model.

    Attributes:
        inputs: Input tensors, in the order the model's ``forward`` takes them.
        outputs: Output tensors, in the order ``forward`` returns them (tuple/dict outputs
            flattened). Output shapes may be left as ``()`` before export; the export fills
            them in from the traced model.
        dynamic_axes: Range of each named dynamic axis: ``{"seq": (min, opt, max)}``.
            The batch axis is not listed here: it is always ``(1, opt, max_batch_size)``.
    """

    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    dynamic_axes: dict[str, tuple[int, int, int]] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        names = [t.name for t in (*self.inputs, *self.outputs)]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ModelSpecError(f"tensor names must be unique; repeated: {sorted(dup)}")
        used = {d for t in self.inputs for d in t.shape if isinstance(d, str)}
        missing = used - set(self.dynamic_axes)
        if missing:
            raise ModelSpecError(
                f"inputs use dynamic axes {sorted(missing)} with no declared range",
                hint='declare them, e.g. dynamic_axes={"seq": (1, 64, 128)} (min, opt, max)',
            )
        for axis, rng in self.dynamic_axes.items():
            lo, opt, hi = rng
            if not (1 <= lo <= opt <= hi):
                raise ModelSpecError(f"dynamic axis {axis!r}: range {rng} must satisfy 1 <= min <= opt <= max")

    def axis_sizes(self, which: str = "opt") -> dict[str, int]:
        """Each dynamic axis at its ``"min"``, ``"opt"`` or ``"max"`` size."""
        i = {"min": 0, "opt": 1, "max": 2}[which]
        return {axis: rng[i] for axis, rng in self.dynamic_axes.items()}

    def example_inputs(self, batch: int, axis_sizes: dict[str, int] | None = None, seed: int = 0) -> dict[str, np.ndarray]:
        """Random inputs of shape ``[batch, *per_sample_shape]``.

        Floating inputs are N(0, 1) in their dtype; integer inputs are uniform within
        ``value_range`` (default ``[0, 100]``); bool inputs are all True.
        """
        sizes = axis_sizes if axis_sizes is not None else self.axis_sizes("opt")
        rng = np.random.default_rng(seed)
        out: dict[str, np.ndarray] = {}
        for t in self.inputs:
            shape = (batch, *t.concrete_shape(sizes))
            if t.dtype.startswith("float"):
                out[t.name] = rng.standard_normal(shape).astype(t.dtype)
            elif t.dtype == "bool":
                out[t.name] = np.ones(shape, dtype=bool)
            else:
                lo, hi = t.value_range or (0, 100)
                out[t.name] = rng.integers(lo, hi + 1, size=shape).astype(t.dtype)
        return out

    def with_outputs(self, outputs: tuple[TensorSpec, ...]) -> "ModelSpec":
        return dataclasses.replace(self, outputs=outputs)

    def to_json(self) -> dict[str, Any]:
        return {
            "inputs": [t.to_json() for t in self.inputs],
            "outputs": [t.to_json() for t in self.outputs],
            "dynamic_axes": {k: list(v) for k, v in self.dynamic_axes.items()},
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "ModelSpec":
        try:
            return cls(
                tuple(TensorSpec.from_json(t) for t in d["inputs"]),
                tuple(TensorSpec.from_json(t) for t in d.get("outputs", [])),
                {k: tuple(v) for k, v in d.get("dynamic_axes", {}).items()},
            )
        except (KeyError, TypeError, ValueError) as e:
            raise ModelSpecError(
                f"input spec is malformed: {e!r}",
                hint='expected {"inputs": [{"name", "dtype", "shape", "value_range"?}], "outputs": [...], "dynamic_axes": {...}}',
            ) from e

    @classmethod
    def from_file(cls, path: str | Path) -> "ModelSpec":
        """Load a spec from a JSON file (the format of :meth:`to_json`)."""
        p = Path(path)
        try:
            return cls.from_json(json.loads(p.read_text()))
        except FileNotFoundError as e:
            raise ModelSpecError(f"spec file {p} does not exist") from e
        except json.JSONDecodeError as e:
            raise ModelSpecError(f"spec file {p} is not valid JSON: {e}") from e
