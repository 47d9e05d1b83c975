"""The I/O signature an exported artifact declares, read from the file itself.

:func:`read_artifact_io` reads an ONNX graph (with ``onnx``), a TorchScript module's
``forward`` signature (with torch) or a TensorRT engine (where ``tensorrt`` is importable and
can deserialise it). ``builders build`` writes configs from it and ``builders validate``
compares hand-written configs with it (:func:`builders.config_checks.artifact_problems`).
Data types go through the one :mod:`core.dtypes` table.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from pathlib import Path

from core import dtypes, formats
from core.errors import ConfigError, DataTypeError

log = logging.getLogger(__name__)

#: A dynamic dim in a shape (ONNX symbolic dim, TensorRT -1), as in Triton's ``dims``.
WILDCARD = -1


@dataclasses.dataclass(frozen=True)
class TensorIO:
    """One input or output as the exported artifact declares it.

    Attributes:
        name: Tensor name in the artifact (ONNX graph / TensorRT engine / forward argument).
        data_type: Triton ``DataType`` name (``"TYPE_FP32"``); ``None`` = the artifact does not say.
        shape: Full shape *with* the batch axis when the artifact has one; ``-1`` marks a
            dynamic dim; ``None`` = unknown.
    """

    name: str
    data_type: str | None = None
    shape: tuple[int, ...] | None = None


@dataclasses.dataclass(frozen=True)
class ArtifactIO:
    """The I/O signature read from an exported file (see :func:`builders.validate.read_artifact_io`).

    Attributes:
        format: ``"torchscript"``, ``"onnx"`` or ``"trt"``.
        inputs: Inputs in the artifact's order.
        outputs: Outputs in order; ``None`` when the artifact does not tell (TorchScript
            returning a dict or list).
        positional: TorchScript: tensors are matched by position, the names are forward
            argument names (Triton's PyTorch backend also accepts ``<name>__<index>``).
        max_batch_size: TensorRT: the largest batch of optimisation profile 0.
    """

    format: str
    inputs: tuple[TensorIO, ...]
    outputs: tuple[TensorIO, ...] | None
    positional: bool = False
    max_batch_size: int | None = None


def read_artifact_io(fmt: str, path: str | Path) -> ArtifactIO | None:
    """Read the I/O signature an exported file declares.

    Args:
        fmt: ``"onnx"`` (graph inputs that are not initializers, and outputs, with element
            types and shapes), ``"torchscript"`` (``forward`` argument names and the number
            of returned tensors; no dtypes or shapes) or ``"trt"`` (engine I/O tensors and
            profile 0's maximum batch).
        path: The file (for ONNX also a folder holding ``model.onnx``).

    Returns:
        The signature, or ``None`` when it cannot be read here (TensorRT without the
        ``tensorrt`` package or a GPU).

    Raises:
        ConfigError: the file is not a valid artifact of that format.
    """
    p = Path(path)
    st = p.stat()
    return _read_cached(fmt, str(p.resolve()), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=64)
def _read_cached(fmt: str, path: str, _mtime_ns: int, _size: int) -> ArtifactIO | None:
    if fmt == "onnx":
        return _onnx_io(Path(path))
    if fmt == "torchscript":
        return _torchscript_io(Path(path))
    if fmt == "trt":
        return _tensorrt_io(Path(path))
    raise ConfigError(f"unknown artifact format {fmt!r}", hint="expected torchscript, onnx or trt")


def _onnx_io(path: Path) -> ArtifactIO:
    import onnx

    if path.is_dir():
        path = path / formats.get("onnx").file
    try:
        model = onnx.load(str(path), load_external_data=False)
    except Exception as e:  # onnx raises DecodeError, OSError, ...
        raise ConfigError(f"{path.name} is not a readable ONNX model: {type(e).__name__}: {e}") from e
    graph = model.graph
    inits = {i.name for i in graph.initializer}

    def tensor(vi: object) -> TensorIO:
        tt = vi.type.tensor_type  # type: ignore[attr-defined]
        dtype = None
        if tt.elem_type:
            try:
                dtype = dtypes.from_onnx(tt.elem_type).triton
            except DataTypeError:  # a type with no Triton counterpart: never matches a config
                dtype = f"ONNX elem_type {tt.elem_type} (no Triton type)"
        shape = None
        if tt.HasField("shape"):
            shape = tuple(d.dim_value if d.HasField("dim_value") and d.dim_value > 0 else WILDCARD for d in tt.shape.dim)
        return TensorIO(vi.name, dtype, shape)  # type: ignore[attr-defined]

    return ArtifactIO(
        "onnx",
        tuple(tensor(i) for i in graph.input if i.name not in inits),
        tuple(tensor(o) for o in graph.output),
    )


def _torchscript_io(path: Path) -> ArtifactIO:
    import torch

    try:
        module = torch.jit.load(str(path), map_location="cpu")
    except Exception as e:  # RuntimeError for anything that is not a TorchScript archive
        raise ConfigError(f"{path.name} is not a loadable TorchScript module: {type(e).__name__}: {str(e)[:200]}") from e
    schema = module.forward.schema
    args = [a.name for a in schema.arguments[1:]]  # [0] is self
    outputs: tuple[TensorIO, ...] | None = None
    if len(schema.returns) == 1:
        ret = schema.returns[0].type
        if isinstance(ret, torch.TensorType):
            outputs = (TensorIO("__0"),)
        elif isinstance(ret, torch.TupleType) and all(isinstance(e, torch.TensorType) for e in ret.elements()):
            outputs = tuple(TensorIO(f"__{i}") for i in range(len(ret.elements())))
    return ArtifactIO("torchscript", tuple(TensorIO(a) for a in args), outputs, positional=True)


def _tensorrt_io(path: Path) -> ArtifactIO | None:
    try:
        import tensorrt as trt
    except ImportError:
        log.info("tensorrt is not importable: %s is not compared with its config", path)
        return None
    try:
        runtime = trt.Runtime(trt.Logger(trt.Logger.ERROR))
        engine = runtime.deserialize_cuda_engine(path.read_bytes())
    except Exception as e:  # no GPU, or a TensorRT version mismatch
        log.info("could not deserialise %s here (%s): not compared with its config", path, e)
        return None
    if engine is None:
        raise ConfigError(f"{path.name} is not a TensorRT engine this TensorRT ({trt.__version__}) can read",
                          hint="rebuild the plan with the TensorRT version of the serving container")
    inputs, outputs = [], []
    max_batch: int | None = None
    for i in range(engine.num_io_tensors):
        name = engine.get_tensor_name(i)
        try:
            dtype = dtypes.from_tensorrt(engine.get_tensor_dtype(name)).triton
        except DataTypeError:  # e.g. fp8/int4: no Triton type, never matches a config
            dtype = f"TensorRT {engine.get_tensor_dtype(name)} (no Triton type)"
        t = TensorIO(name, dtype, tuple(int(d) for d in engine.get_tensor_shape(name)))
        if engine.get_tensor_mode(name) == trt.TensorIOMode.INPUT:
            inputs.append(t)
            if engine.num_optimization_profiles > 0 and t.shape and t.shape[0] == -1:
                hi = engine.get_tensor_profile_shape(name, 0)[2][0]
                max_batch = hi if max_batch is None else min(max_batch, hi)
        else:
            outputs.append(t)
    return ArtifactIO("trt", tuple(inputs), tuple(outputs), max_batch_size=max_batch)
