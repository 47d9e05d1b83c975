"""One table of tensor data types and their names in every framework the toolkit touches.

Each :class:`DataType` row ties together the names one element type has in numpy, torch,
ONNX (``TensorProto`` enum values), TensorRT, Triton's model configuration (``TYPE_*``,
``model_config.proto``) and tritonclient's wire protocol (``"FP32"``, ``"BYTES"``; Triton
docs, "Model Configuration: Datatypes"). Every conversion goes through this table; nothing
else in the toolkit keeps a dtype map, and nothing maps an unknown type to a default: an
unknown or unconvertible type raises :class:`~core.errors.DataTypeError` here, naming it.

Two rows have no counterpart somewhere:

- ``bfloat16``: numpy has no bfloat16, so host-side arrays of it cannot be made; models may
  compute in bf16 (see :mod:`core.precision`) but their *served* inputs and outputs must be
  another type. Triton (``TYPE_BF16``), torch, ONNX and TensorRT do have it.
- ``bytes``: Triton's ``TYPE_STRING`` / ``BYTES`` (numpy ``object`` arrays of ``bytes``);
  torch, and so a PyTorch model's own inputs, have no string type.

torch and tensorrt are imported only when a conversion to them is asked for.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from core.errors import DataTypeError


@dataclasses.dataclass(frozen=True)
class DataType:
    """One element type and its name in each framework.

    Attributes:
        name: The toolkit's name (numpy's where numpy has one): ``"float32"``, ``"bfloat16"``,
            ``"bytes"``. This is what specs, manifests and flags use.
        triton: Triton config enum name, ``"TYPE_FP32"``.
        client: tritonclient / KServe v2 datatype string, ``"FP32"``.
        numpy: numpy dtype name; ``None`` where numpy has no such type (bfloat16).
        torch: ``torch`` attribute name; ``None`` where torch has no such type (bytes).
        onnx: ``onnx.TensorProto`` enum value (``FLOAT = 1``...).
        tensorrt: ``tensorrt`` attribute name; ``None`` where TensorRT has no such type.
        kind: ``"float"``, ``"int"``, ``"uint"``, ``"bool"`` or ``"bytes"``.
    """

    name: str
    triton: str
    client: str
    numpy: str | None
    torch: str | None
    onnx: int
    tensorrt: str | None
    kind: str

    @property
    def is_floating(self) -> bool:
        """Whether the type is a floating-point one (fp16, bf16, fp32, fp64)."""
        return self.kind == "float"

    @property
    def is_integer(self) -> bool:
        """Whether the type is a signed or unsigned integer one."""
        return self.kind in ("int", "uint")

    def to_numpy(self) -> Any:
        """The ``numpy.dtype`` of this type.

        Raises:
            DataTypeError: numpy has no such type (bfloat16).
        """
        import numpy as np

        if self.numpy is None:
            raise DataTypeError(
                f"{self.name} has no numpy type, so tensors of it cannot be sent, received or compared on the host",
                hint="serve this tensor as float32 or float16 (cast in forward()); bfloat16 can still be the "
                "precision the model computes in (--precision bf16)",
            )
        return np.dtype(object) if self.numpy == "object" else np.dtype(self.numpy)

    def to_torch(self) -> Any:
        """The ``torch.dtype`` of this type.

        Raises:
            DataTypeError: torch has no such type (bytes).
        """
        if self.torch is None:
            raise DataTypeError(
                f"{self.name} ({self.triton}) has no torch type: a PyTorch model cannot take or return it",
                hint="tokenise strings before the model (e.g. an ensemble or a python-backend preprocessing step) "
                "and give the model integer ids",
            )
        import torch

        return getattr(torch, self.torch)

    def to_tensorrt(self) -> Any:
        """The ``tensorrt`` data type of this type (imports tensorrt).

        Raises:
            DataTypeError: TensorRT has no such type.
        """
        if self.tensorrt is None:
            raise DataTypeError(
                f"{self.name} ({self.triton}) has no TensorRT type",
                hint="give the tensor a dtype TensorRT takes (float32, float16, int32, int64, bool...), or build without --format trt",
            )
        import tensorrt as trt

        return getattr(trt, self.tensorrt)


def _t(
    name: str, triton: str, client: str, numpy: str | None, torch: str | None, onnx: int, tensorrt: str | None, kind: str
) -> DataType:
    return DataType(name, triton, client, numpy, torch, onnx, tensorrt, kind)


#: Every data type, in Triton's ``DataType`` enum order (model_config.proto). ONNX values
#: are ``onnx.TensorProto``'s; TensorRT names are the ``tensorrt`` module's attributes.
DATA_TYPES: tuple[DataType, ...] = (
    _t("bool", "TYPE_BOOL", "BOOL", "bool", "bool", 9, "bool", "bool"),
    _t("uint8", "TYPE_UINT8", "UINT8", "uint8", "uint8", 2, "uint8", "uint"),
    _t("uint16", "TYPE_UINT16", "UINT16", "uint16", "uint16", 4, None, "uint"),
    _t("uint32", "TYPE_UINT32", "UINT32", "uint32", "uint32", 12, None, "uint"),
    _t("uint64", "TYPE_UINT64", "UINT64", "uint64", "uint64", 13, None, "uint"),
    _t("int8", "TYPE_INT8", "INT8", "int8", "int8", 3, "int8", "int"),
    _t("int16", "TYPE_INT16", "INT16", "int16", "int16", 5, None, "int"),
    _t("int32", "TYPE_INT32", "INT32", "int32", "int32", 6, "int32", "int"),
    _t("int64", "TYPE_INT64", "INT64", "int64", "int64", 7, "int64", "int"),
    _t("float16", "TYPE_FP16", "FP16", "float16", "float16", 10, "float16", "float"),
    _t("float32", "TYPE_FP32", "FP32", "float32", "float32", 1, "float32", "float"),
    _t("float64", "TYPE_FP64", "FP64", "float64", "float64", 11, None, "float"),
    _t("bytes", "TYPE_STRING", "BYTES", "object", None, 8, None, "bytes"),
    _t("bfloat16", "TYPE_BF16", "BF16", None, "bfloat16", 16, "bfloat16", "float"),
)

_BY: dict[str, dict[Any, DataType]] = {
    "name": {t.name: t for t in DATA_TYPES},
    "triton": {t.triton: t for t in DATA_TYPES},
    "client": {t.client: t for t in DATA_TYPES},
    "onnx": {t.onnx: t for t in DATA_TYPES},
    "torch": {t.torch: t for t in DATA_TYPES if t.torch},
    "tensorrt": {t.tensorrt: t for t in DATA_TYPES if t.tensorrt},
}
#: The toolkit's names, for help texts and error messages.
NAMES: tuple[str, ...] = tuple(t.name for t in DATA_TYPES)
#: Types a PyTorch model's served inputs/outputs may have: a numpy and a torch type both exist.
TENSOR_IO_NAMES: tuple[str, ...] = tuple(t.name for t in DATA_TYPES if t.numpy and t.torch)


def _lookup(table: str, key: Any, what: str) -> DataType:
    try:
        return _BY[table][key]
    except (KeyError, TypeError):
        known = ", ".join(str(k) for k in _BY[table])
        raise DataTypeError(
            f"{what} {key!r} is not supported (no data type of the toolkit has that name)", hint=f"known: {known}"
        ) from None


def from_name(name: str) -> DataType:
    """The row named ``name`` (``"float32"``, ``"bfloat16"``, ``"bytes"``...).

    Raises:
        DataTypeError: unknown name (the message lists the known ones).
    """
    return _lookup("name", name, "dtype")


def from_triton(triton: str) -> DataType:
    """The row of a config's ``data_type`` (``"TYPE_FP32"``); ``"FP32"`` is accepted too.

    Raises:
        DataTypeError: unknown type.
    """
    if not str(triton).startswith("TYPE_") and triton in _BY["client"]:
        return _BY["client"][triton]
    return _lookup("triton", triton, "Triton data_type")


def from_client(client: str) -> DataType:
    """The row of a tritonclient datatype string (``"FP32"``, ``"BYTES"``).

    Raises:
        DataTypeError: unknown type.
    """
    return _lookup("client", client, "tritonclient datatype")


def from_onnx(elem_type: int) -> DataType:
    """The row of an ``onnx.TensorProto`` element type (``1`` = FLOAT).

    Raises:
        DataTypeError: an ONNX type with no row here (e.g. complex64, float8).
    """
    return _lookup("onnx", int(elem_type), "ONNX elem_type")


def from_numpy(dtype: Any) -> DataType:
    """The row of a numpy dtype (or anything ``numpy.dtype()`` takes); strings/bytes
    arrays (``object``, ``S``, ``U``) are ``bytes``.

    Raises:
        DataTypeError: a numpy type with no row here (e.g. complex128).
    """
    import numpy as np

    dt = np.dtype(dtype)
    if dt.kind in ("O", "S", "U"):
        return _BY["name"]["bytes"]
    return _lookup("name", dt.name, "numpy dtype")


def from_torch(dtype: Any) -> DataType:
    """The row of a ``torch.dtype`` (``torch.float32``) or its name (``"float32"``).

    Raises:
        DataTypeError: a torch type with no row here (e.g. complex64, float8).
    """
    name = str(dtype).removeprefix("torch.")
    return _lookup("torch", name, "torch dtype")


def from_tensorrt(dtype: Any) -> DataType:
    """The row of a TensorRT data type (``tensorrt.float32`` / ``DataType.FLOAT``).

    Raises:
        DataTypeError: a TensorRT type with no row here (e.g. fp8, int4).
    """
    import tensorrt as trt

    for t in DATA_TYPES:
        if t.tensorrt and getattr(trt, t.tensorrt, None) == dtype:
            return t
    raise DataTypeError(
        f"TensorRT data type {dtype!r} is not a data type the toolkit knows", hint=f"known: {', '.join(_BY['tensorrt'])}"
    )


def require_tensor_io(name: str, what: str = "tensor") -> DataType:
    """The row named ``name``, checked usable as a PyTorch model's served input/output.

    Raises:
        DataTypeError: unknown name, or a type with no numpy or no torch counterpart
            (``bfloat16``, ``bytes``), with what to do instead.
    """
    try:
        t = from_name(name)
        t.to_numpy()  # bfloat16: no numpy type
        if t.torch is None:
            t.to_torch()  # bytes: no torch type
    except DataTypeError as e:
        if (
            name not in _BY["name"]
        ):  # unknown: the names an input or output can take (trial 11, F5: the hint listed bytes and bfloat16)
            meant = _PRECISION_NAMES.get(str(name).lower())
            raise DataTypeError(
                f"{what}: {e.message}" + (f": did you mean {meant}?" if meant else ""),
                hint=f"a model's input or output dtype is one of {', '.join(TENSOR_IO_NAMES)}",
            ) from None
        raise DataTypeError(f"{what}: {e.message}", hint=e.hint) from None
    return t


#: Precision names typed where a dtype is wanted (``fp32`` for ``float32``).
_PRECISION_NAMES = {
    "fp16": "float16",
    "fp32": "float32",
    "fp64": "float64",
    "half": "float16",
    "float": "float32",
    "int": "int64",
    "long": "int64",
}
